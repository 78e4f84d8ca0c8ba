// Binary compatibility with MPICH: a C program compiled and linked by
// Debian's mpicc.mpich against MPICH's own mpi.h (tests/mpi/progs/mpich_abi.c:
// point-to-point, statuses, collectives, datatypes, communicators, errors)
// runs unchanged on Lapis' installed library, started by Lapis' mpirun or by
// hand with LD_LIBRARY_PATH, and the library it loaded is Lapis'. The
// project's MPI latency and bandwidth benchmarks, built the same way, run too.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "tests/support/launch.hpp"

namespace {

using lapis::testing::LaunchResult;
using lapis::testing::runfile;

LaunchResult sh(const std::string& command) {
  // Under --config=asan libmpi.so.12 is instrumented while the program built
  // by mpicc.mpich is not: the sanitizer runtime comes in through the library.
  const char* asan = std::getenv("ASAN_OPTIONS");
  return lapis::testing::run_shell("export ASAN_OPTIONS='" + std::string(asan ? asan : "") +
                                   ":verify_asan_link_order=0'; " + command + " 2>&1");
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// Lapis installed from the runfiles under TEST_TMPDIR/NAME, for programs
// built by MPICH's `wrapper`; empty (with a message) when that wrapper is
// missing.
std::string install_for(const std::string& wrapper, const std::string& name) {
  if (sh("command -v " + wrapper).status != 0) {
    MESSAGE("SKIPPED: " << wrapper << " is not installed (tools/setup.sh installs libmpich-dev)");
    return "";
  }
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string prefix = std::string(tmp) + "/" + name;
  LaunchResult install =
      sh("bash " + runfile("tools/install.sh") + " --from " + runfile("") + " " + prefix);
  INFO(install.output);
  REQUIRE(install.status == 0);
  return prefix;
}

}  // namespace

TEST_CASE("a program built by mpicc.mpich runs on Lapis' library") {
  const std::string prefix = install_for("mpicc.mpich", "prefix");
  if (prefix.empty()) return;
  const std::string tmp = std::getenv("TEST_TMPDIR");

  const std::string exe = tmp + "/mpich_abi";
  LaunchResult build = sh("mpicc.mpich -std=c11 -O1 -I" + runfile("tests/mpi/progs") + " " +
                          runfile("tests/mpi/progs/mpich_abi.c") + " -o " + exe);
  INFO(build.output);
  REQUIRE(build.status == 0);
  // Linked against MPICH's soname, not Lapis'.
  LaunchResult needed = sh("readelf -d " + exe);
  CHECK(needed.output.find("[libmpich.so.12]") != std::string::npos);

  const std::string library = "LIBRARY " + prefix + "/lib/libmpi.so.12\n";
  for (int ranks : {2, 3, 4}) {
    CAPTURE(ranks);
    LaunchResult run =
        sh(prefix + "/bin/mpirun -n " + std::to_string(ranks) + " --timeout 60 " + exe);
    INFO(run.output);
    CHECK(run.status == 0);
    CHECK(count(run.output, "OK\n") == ranks);
    CHECK(run.output.find("FAILED") == std::string::npos);
    CHECK(run.output.find(library) != std::string::npos);
    CHECK(run.output.find("VERSION Lapis MPI") != std::string::npos);
  }

  // By hand: Lapis' lib/ first in LD_LIBRARY_PATH, any launcher of Lapis'.
  LaunchResult by_hand = sh("LD_LIBRARY_PATH=" + prefix + "/lib " + prefix +
                            "/bin/lapirun -n 2 --timeout 60 " + exe);
  INFO(by_hand.output);
  CHECK(by_hand.status == 0);
  CHECK(count(by_hand.output, "OK\n") == 2);
  CHECK(by_hand.output.find(library) != std::string::npos);
}

// MPICH's C++ bindings are Debian's libmpichcxx.so.12 over the C library;
// user ops, error handlers and attribute callbacks written in C++ reach the
// library through MPICH's internal hooks (mpi/internal/mpich_cxx.hpp).
TEST_CASE("a program using MPICH's C++ bindings, built by mpicxx.mpich, runs on Lapis") {
  const std::string prefix = install_for("mpicxx.mpich", "cxx_prefix");
  if (prefix.empty()) return;
  const std::string tmp = std::getenv("TEST_TMPDIR");
  const std::string exe = tmp + "/mpich_cxx";
  LaunchResult build =
      sh("mpicxx.mpich -O1 " + runfile("tests/mpi/progs/mpich_cxx.cc") + " -o " + exe);
  INFO(build.output);
  REQUIRE(build.status == 0);
  CHECK(sh("readelf -d " + exe).output.find("[libmpichcxx.so.12]") != std::string::npos);
  for (int ranks : {1, 2, 3, 4}) {
    CAPTURE(ranks);
    LaunchResult run =
        sh(prefix + "/bin/mpirun -n " + std::to_string(ranks) + " --timeout 60 " + exe);
    INFO(run.output);
    CHECK(run.status == 0);
    CHECK(count(run.output, "OK\n") == ranks);
    CHECK(run.output.find("FAILED") == std::string::npos);
  }
}

TEST_CASE("Fortran programs built by mpifort.mpich run on Lapis' libraries") {
  const std::string prefix = install_for("mpifort.mpich", "fortran_prefix");
  if (prefix.empty()) return;
  const std::string tmp = std::getenv("TEST_TMPDIR");
  // mpif.h (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE by address in
  // MPICH's common blocks), the `mpi` module and the `mpi_f08` module (its
  // MPI_*_f08ts entry points, its MPIR_F08_* objects, its handle operators),
  // all MPICH's. The f08 program's truncated-name check passes a string
  // shorter than MPI_MAX_OBJECT_NAME, which MPICH's interface refuses.
  for (const char* source : {"fortran_fixed.f", "fortran_module.f90", "fortran_f08.f90"}) {
    CAPTURE(source);
    const std::string copy = tmp + "/mpich_" + source;
    // ... and names MPI 4.1's MPI_Remove_error_* MPIX_Delete_error_*; the
    // rest of MPI 4.1 it lacks (lines marked mpi41).
    const std::string drop = std::string(source) == "fortran_f08.f90"
                                 ? "/short/d;/mpi41/d;s/MPI_Remove_error_/MPIX_Delete_error_/"
                                 : "";
    REQUIRE(sh("sed '" + drop + "' " + runfile(std::string("tests/mpi/progs/") + source) + " > " +
               copy).status == 0);
    const std::string exe = copy + ".exe";
    LaunchResult build = sh("cd " + tmp + " && mpifort.mpich -fallow-argument-mismatch " +
                            copy + " -o " + exe);
    INFO(build.output);
    REQUIRE(build.status == 0);
    // Linked against MPICH's Fortran library; Lapis' is found under that name.
    CHECK(sh("readelf -d " + exe).output.find("[libmpichfort.so.12]") != std::string::npos);
    LaunchResult libs = sh("LD_LIBRARY_PATH=" + prefix + "/lib ldd " + exe);
    INFO(libs.output);
    CHECK(libs.output.find("libmpichfort.so.12 => " + prefix + "/lib/") != std::string::npos);
    for (int ranks : {2, 3}) {
      CAPTURE(ranks);
      LaunchResult run =
          sh(prefix + "/bin/mpirun -n " + std::to_string(ranks) + " --timeout 60 " + exe);
      INFO(run.output);
      CHECK(run.status == 0);
      CHECK(count(run.output, "OK\n") == ranks);
      CHECK(run.output.find("FAILED") == std::string::npos);
    }
  }
}

TEST_CASE("the MPI benchmarks built by mpicc.mpich run on Lapis' library") {
  const std::string prefix = install_for("mpicc.mpich", "bench_prefix");
  if (prefix.empty()) return;
  const std::string tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = runfile("benchmarks/mpi");
  for (const char* bench : {"mpi_latency", "mpi_bw"}) {
    CAPTURE(bench);
    const std::string exe = tmp + "/" + bench;
    LaunchResult build = sh("mpicc.mpich -std=gnu11 -O2 -I" + dir + " " + dir + "/" + bench +
                            ".c " + dir + "/bench_util.c -o " + exe);
    INFO(build.output);
    REQUIRE(build.status == 0);
    // The benchmark names the library it detects (MPI_Get_library_version).
    LaunchResult run = sh(prefix + "/bin/mpirun -n 2 --timeout 60 " + exe +
                          " --json --sizes 8,64K --iters 200");
    INFO(run.output);
    CHECK(run.status == 0);
    CHECK(count(run.output, "\"impl\":\"lapis\"") == 2);
  }
}
