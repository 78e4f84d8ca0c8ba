#pragma once
// Refusing programs built against another MPI: a binary linked with Open
// MPI's libmpi.so.40 started by lapirun would find no Open MPI runtime and
// run as N separate one-rank jobs, each "succeeding". lapirun reads the
// program's ELF dynamic section and names the problem instead. (MPICH-built
// programs need libmpich.so.12 / libmpi.so.12, Lapis' own sonames: fine.)

#include <optional>
#include <string>
#include <vector>

namespace lapis::runtime {

// The DT_NEEDED entries of an ELF64 file; empty if it is no ELF file (a
// script) or cannot be read.
std::vector<std::string> needed_libraries(const std::string& path);

// Why `path` cannot run under lapirun, naming the foreign library; nullopt
// when nothing speaks against it.
std::optional<std::string> foreign_mpi(const std::string& path);

}  // namespace lapis::runtime
