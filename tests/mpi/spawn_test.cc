// MPI_Comm_spawn (tests/mpi/progs/spawn.c): a 2-rank job spawns 3 copies of its program, which
// connect back in MPI_Init; the two jobs talk, merge and disconnect; every process of both
// prints OK through the parents' lapirun. Spawning what cannot run is MPI_ERR_SPAWN at every
// rank of the group, and nothing waits.
#include <doctest/doctest.h>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::count_lines;

namespace {

// Runs `program` (under tests/mpi/progs) at 2 ranks, spawning allowed (LAPIS_UNIVERSE_SIZE=8),
// and checks that the job ended well and each of `processes` processes printed OK.
void expect_every_process_ok(const std::string& program, const std::vector<std::string>& args, int processes,
                             const std::string& mode = "LAPIS_MODE=polling") {
  const lapis::testing::LaunchResult r = lapis::testing::launch(
      {.ranks = 2, .timeout_s = 60, .env = {mode, "LAPIS_UNIVERSE_SIZE=8"}, .flags = {}},
      "tests/mpi/progs/" + program, args);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count_lines(r.output, "OK\n") == processes);
  CHECK(r.output.find("FAILED") == std::string::npos);
}

}  // namespace

TEST_CASE("a job spawns 3 children that connect back, talk, merge and disconnect") {
  for (const char* mode : {"LAPIS_MODE=polling", "LAPIS_MODE=interrupt"}) {
    CAPTURE(mode);
    expect_every_process_ok("spawn", {}, 2 + 3, mode);
  }
}

// Two threads of each rank spawn at once (MPICH's threads/spawn/th_taskmanager hung).
TEST_CASE("two threads spawn at once, each talking to its own children") {
  for (const char* mode : {"LAPIS_MODE=polling", "LAPIS_MODE=interrupt"}) {
    CAPTURE(mode);
    expect_every_process_ok("spawn_threads", {}, 2 + 2 * 2, mode);
  }
}

TEST_CASE("a LAPIS_UNIVERSE_SIZE that is not a count ends MPI_Init, naming it") {
  const lapis::testing::LaunchResult r = lapis::testing::launch(
      {.ranks = 2, .timeout_s = 60, .env = {"LAPIS_UNIVERSE_SIZE=many"}, .flags = {}}, "tests/mpi/progs/spawn");
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.output.find("LAPIS_UNIVERSE_SIZE='many'") != std::string::npos);
}

TEST_CASE("a LAPIS_APPNUM that is not a program index ends MPI_Init, naming it") {
  const lapis::testing::LaunchResult r = lapis::testing::launch(
      {.ranks = 2, .timeout_s = 60, .env = {"LAPIS_APPNUM=first"}, .flags = {}}, "tests/mpi/progs/spawn");
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.output.find("LAPIS_APPNUM='first'") != std::string::npos);
}

TEST_CASE("lapirun --wdir naming no directory ends that program's ranks, saying so") {
  const std::string lapirun = lapis::testing::runfile("runtime/lapirun");
  const lapis::testing::LaunchResult r = lapis::testing::run_shell(
      lapirun + " --timeout 60 -n 1 /bin/true : -n 1 --wdir /nonexistent/dir /bin/true 2>&1");
  INFO(r.output);
  CHECK(r.status == 127);
  CHECK(r.output.find("cannot enter --wdir /nonexistent/dir") != std::string::npos);
}

TEST_CASE("spawning what cannot run, or with bad arguments, is an error at every rank") {
  const lapis::testing::LaunchResult r = lapis::testing::launch(
      {.ranks = 3, .timeout_s = 60, .env = {}, .flags = {}}, "tests/mpi/progs/spawn", {"bad"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count_lines(r.output, "OK\n") == 3);
}

TEST_CASE("MPI_Comm_spawn_multiple starts one job of two programs, each knowing its MPI_APPNUM") {
  expect_every_process_ok("spawn", {"multiple"}, 2 + 3);
}

TEST_CASE("lapirun's MPMD form: one MPI_COMM_WORLD, ranks in program order, per-program -x and --wdir") {
  const std::string lapirun = lapis::testing::runfile("runtime/lapirun");
  const std::string program = lapis::testing::runfile("tests/mpi/progs/spawn");
  const lapis::testing::LaunchResult r =
      lapis::testing::run_shell(lapirun + " --timeout 60 -n 1 " + program + " app 0 3 - - : -n 2 -x MPMD_VALUE=two --wdir / " +
                                program + " app 1 3 / two 2>&1");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count_lines(r.output, "OK\n") == 3);
  CHECK(r.output.find("FAILED") == std::string::npos);
}

TEST_CASE("MPI_Intercomm_create between a job and the job one of its ranks spawned") {
  expect_every_process_ok("spawn", {"self_spawn"}, 2 + 2);
}

TEST_CASE("Fortran: MPI_COMM_SPAWN with an argv and MPI_ARGV_NULL, MPI_COMM_SPAWN_MULTIPLE with argvs") {
  expect_every_process_ok("fortran_spawn", {}, 2 + 2 + 2 + 1);
}
