// lapirun refuses a program built against Open MPI (it would run as N
// separate one-rank jobs) and names the library; other programs pass.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime/foreign_mpi.hpp"
#include "tests/support/launch.hpp"

using lapis::runtime::foreign_mpi;
using lapis::runtime::needed_libraries;
using lapis::testing::run_shell;
using lapis::testing::runfile;

TEST_CASE("DT_NEEDED of an ELF program; nothing for other files") {
  const auto sh = needed_libraries("/bin/sh");
  CHECK(std::find(sh.begin(), sh.end(), "libc.so.6") != sh.end());
  CHECK_FALSE(foreign_mpi("/bin/sh").has_value());
  const std::string script = std::string(std::getenv("TEST_TMPDIR")) + "/script.sh";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  CHECK(needed_libraries(script).empty());
  CHECK(needed_libraries("/no/such/file").empty());
  CHECK(needed_libraries("/dev/null").empty());
}

// lapirun reads only the ELF pieces it needs (a sanitizer build's program is
// over 100 MB): a file cut short after its header has no section table to read.
TEST_CASE("an ELF file cut short after its header: nothing, no crash") {
  const std::string cut = std::string(std::getenv("TEST_TMPDIR")) + "/cut";
  std::ifstream in("/bin/sh", std::ios::binary);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  std::ofstream(cut, std::ios::binary) << head;
  CHECK(needed_libraries(cut).empty());
}

TEST_CASE("a program built by Open MPI's mpicc is refused with its library named") {
  if (run_shell("command -v mpicc.openmpi").status != 0) {
    MESSAGE("SKIPPED: mpicc.openmpi is not installed (tools/setup.sh installs libopenmpi-dev)");
    return;
  }
  const std::string tmp = std::getenv("TEST_TMPDIR");
  std::ofstream(tmp + "/hello.c") << "#include <mpi.h>\n"
                                     "int main(int c, char** v) { MPI_Init(&c, &v); MPI_Finalize(); }\n";
  const auto build = run_shell("mpicc.openmpi " + tmp + "/hello.c -o " + tmp + "/hello_ompi 2>&1");
  INFO(build.output);
  REQUIRE(build.status == 0);
  const auto why = foreign_mpi(tmp + "/hello_ompi");
  REQUIRE(why.has_value());
  CHECK(why->find("built against Open MPI (it needs libmpi.so.40)") != std::string::npos);
  const auto run =
      run_shell(runfile("runtime/lapirun") + " -n 2 --timeout 20 " + tmp + "/hello_ompi 2>&1");
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK(run.output.find("lapirun: " + tmp + "/hello_ompi was built against Open MPI") !=
        std::string::npos);
}
