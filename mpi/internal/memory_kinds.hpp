#pragma once
// MPI 4.1's memory allocation kinds: what a program asks for
// ("mpi_memory_alloc_kinds", a comma-separated list of kind[:restrictor...])
// and what Lapis supports of it. Lapis moves any host memory, so it
// supports "mpi" (memory from MPI_Alloc_mem, MPI_Win_allocate and
// MPI_Win_allocate_shared: its restrictors alloc_mem, win_allocate,
// win_allocate_shared) and "system" (malloc, new, the stack ...), and no
// device kind (cuda, rocm, level_zero). The answer lists mpi and system
// always, then each requested kind supported, once, in the request's order
// (as MPICH 4.2).

#include <string>
#include <string_view>

namespace mpi {

inline constexpr const char* kMemoryKindsKey = "mpi_memory_alloc_kinds";

std::string supported_memory_kinds(std::string_view requested);

// The world model's: what the launcher asked for every rank
// (lapirun --memory-alloc-kinds, LAPIS_MEMORY_ALLOC_KINDS), supported.
const std::string& process_memory_kinds();

}  // namespace mpi
