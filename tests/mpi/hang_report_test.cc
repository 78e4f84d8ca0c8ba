// lapirun says where each rank of a stuck job waits before --timeout ends
// it (gdb attaches to the ranks from outside; the ranks cooperate in
// nothing), and with --get-stack-traces prints their backtraces.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a deadlocked job: the timeout report names each rank's MPI call") {
  const auto r =
      launch({.ranks = 3, .timeout_s = 2, .env = {}, .flags = {}}, "tests/mpi/progs/deadlock");
  INFO(r.output);
  CHECK(r.status == 124);
  CHECK(has(r.output, "lapirun: timeout after 2 s; where each rank waits:"));
  CHECK(has(r.output, "lapirun: rank 0 (pid "));
  // Every rank is named with the call it waits in (MPI_Probe for rank 1).
  for (const char* line : {"): waiting in MPI_Recv (", "): waiting in MPI_Probe ("}) {
    CAPTURE(line);
    CHECK(has(r.output, line));
  }
  // What each waits for: rank 0 receives from rank 1, rank 1 probes for tag 42.
  CHECK(has(r.output, "waiting in MPI_Recv (receive from 1, tag 7, context "));
  CHECK(has(r.output, "waiting in MPI_Probe (probe for any, tag 42, context "));
  CHECK(has(r.output, " receives posted, "));
  CHECK_FALSE(has(r.output, "cannot say where it waits"));
  CHECK_FALSE(has(r.output, "#0 "));  // no backtraces unless asked
}

TEST_CASE("--get-stack-traces adds every thread's backtrace") {
  const auto r = lapis::testing::run_shell(lapis::testing::runfile("runtime/lapirun") +
                                           " -n 2 --timeout 2 --get-stack-traces " +
                                           lapis::testing::runfile("tests/mpi/progs/deadlock") + " 2>&1");
  INFO(r.output);
  CHECK(r.status == 124);
  CHECK(has(r.output, "waiting in MPI_Recv"));
  CHECK(has(r.output, "lapirun:   Thread 1 "));
  // The main thread first (a gdb that runs out of time has listed it).
  CHECK(r.output.find("lapirun:   Thread 1 ") < r.output.find("lapirun:   Thread 2 "));
  CHECK(has(r.output, "lapirun:   #0 "));
  CHECK(has(r.output, " in main "));
}

TEST_CASE("SIGUSR1 to lapirun: the same report, and the job goes on") {
  // Polls files for what the job printed (a condition, not a guessed delay).
  const std::string script =
      "out=$TEST_TMPDIR/usr1.out; " + lapis::testing::runfile("runtime/lapirun") + " -n 2 --timeout 60 " +
      lapis::testing::runfile("tests/mpi/progs/deadlock") + " > $out 2>&1 & pid=$!; "
      "until [ $(grep -c 'waiting$' $out) -ge 2 ]; do sleep 0.05; done; "
      "kill -USR1 $pid; until grep -q 'waiting in MPI_Probe' $out; do sleep 0.05; done; "
      "kill -0 $pid && echo STILL-RUNNING; kill -TERM $pid; wait $pid; echo status=$?; cat $out";
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/usr1.sh";
  std::ofstream(path) << script << "\n";
  const auto r = lapis::testing::run_shell("timeout 50 sh " + path + " 2>&1");
  INFO(r.output);
  CHECK(has(r.output, "STILL-RUNNING"));
  CHECK(has(r.output, "waiting in MPI_Recv"));
  CHECK(has(r.output, "status=143"));  // ended by the SIGTERM that followed, not by the report
  CHECK_FALSE(has(r.output, "timeout after"));
}

// A spawned job's launcher is a child of the spawning rank, not of this lapirun: the timeout
// report asks it for its own, which comes through the spawning rank's output.
// The timeout leaves room for the spawn (a second lapirun and its ranks' MPI_Init) under the
// sanitizers on a loaded host; the children must be in their waits when it fires.
TEST_CASE("the timeout report covers the jobs the ranks spawned") {
  const auto r = launch({.ranks = 2, .timeout_s = 8, .env = {"LAPIS_UNIVERSE_SIZE=4"}, .flags = {}},
                        "tests/mpi/progs/deadlock", {"spawn"});
  INFO(r.output);
  CHECK(r.status == 124);
  CHECK(has(r.output, "lapirun: timeout after 8 s; where each rank waits:"));
  CHECK(has(r.output, "lapirun: asking the launcher of a spawned job (pid "));
  // The parents wait for child 0 (on the inter-communicator; the report names it by its task
  // number in the parents' engine), the children as in the plain case.
  CHECK(has(r.output, "lapirun: rank 0 (pid "));
  CHECK(has(r.output, ", tag 9, context "));
  CHECK(has(r.output, "lapirun (spawned job): rank 0 (pid "));
  CHECK(has(r.output, "lapirun (spawned job): rank 1 (pid "));
  CHECK(has(r.output, "waiting in MPI_Probe (probe for any, tag 42, context "));
  CHECK_FALSE(has(r.output, "cannot say where it waits"));
}
