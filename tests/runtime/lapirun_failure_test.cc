// lapirun's fail-fast rules: exit status of the first failing rank, no orphans, timeouts,
// signals to the launcher, and rendezvous errors instead of hangs.
#include <doctest/doctest.h>
#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/runtime/subprocess.hpp"

namespace {

using namespace lapis::runtime::testing;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string make_temp_dir() {
  std::string dir = "/tmp/lapis-rt-XXXXXX";
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  return dir;
}

// Every pid ("<rank pid> <child pid or 0>") written by the ranks into DIR/<rank>.pid.
std::vector<pid_t> read_pids(const std::string& dir, int nranks) {
  std::vector<pid_t> pids;
  for (int r = 0; r < nranks; ++r) {
    std::ifstream file(dir + "/" + std::to_string(r) + ".pid");
    REQUIRE_MESSAGE(file.good(), "rank " << r << " wrote no pid file");
    pid_t pid = 0, child = 0;
    file >> pid >> child;
    REQUIRE(pid > 0);
    pids.push_back(pid);
    if (child > 0) pids.push_back(child);
    std::remove((dir + "/" + std::to_string(r) + ".pid").c_str());
  }
  std::remove(dir.c_str());
  return pids;
}

void check_all_gone(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    CAPTURE(pid);
    CHECK(process_gone(pid, 10));
  }
}

}  // namespace

TEST_CASE("a rank exiting with 3 makes lapirun exit 3 and name the rank") {
  const Outcome outcome = run({{lapirun_path(), "-n", "4", probe_path(), "exit", "2", "3"}});
  INFO(describe(outcome));
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.status == 3);
  CHECK(contains(outcome.err, "lapirun: rank 2 exited with status 3"));
}

TEST_CASE("a rank killed by SIGKILL: the others and their children are ended") {
  const std::string dir = make_temp_dir();
  const Outcome outcome = run({{lapirun_path(), "-n", "4", probe_path(), "sigkill", "1", dir}});
  INFO(describe(outcome));
  CHECK_FALSE(outcome.timed_out);  // also proves no grandchild kept the output pipes open
  CHECK(outcome.status == 128 + SIGKILL);
  CHECK(contains(outcome.err, "lapirun: rank 1 killed by signal 9 (Killed)"));
  const auto pids = read_pids(dir, 4);
  CHECK(pids.size() == 8);
  check_all_gone(pids);
}

TEST_CASE("--timeout ends a job that never finishes, with status 124") {
  const Outcome outcome = run({{lapirun_path(), "--timeout", "1", "-n", "3", probe_path(), "sleep"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 124);
  CHECK(contains(outcome.err, "lapirun: timeout after 1 s"));
  CHECK(outcome.seconds < 10);
}

TEST_CASE("a timeout too far away to represent is no deadline, not an instant kill") {
  for (const char* huge : {"1e10", "1e300"}) {
    CAPTURE(huge);
    const Outcome outcome = run({{lapirun_path(), "--timeout", huge, "-n", "2", probe_path(), "check", "2", "lapirun"}});
    INFO(describe(outcome));
    CHECK(outcome.status == 0);
    const Outcome from_env = run({{lapirun_path(), "-n", "2", probe_path(), "check", "2", "lapirun"},
                                  {{"LAPIS_TIMEOUT", huge}}});
    INFO(describe(from_env));
    CHECK(from_env.status == 0);
  }
}

TEST_CASE("a rank that exits 0 while still in the job ends the job, naming its leave call") {
  const Outcome outcome = run({{lapirun_path(), "-n", "3", probe_path(), "leave-early", "1"}, {}, 30});
  INFO(describe(outcome));
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.status == 1);
  CHECK(contains(outcome.err, "lapirun: rank 1 exited with status 0 without calling probe_leave"));
  CHECK(outcome.seconds < 5);
}

TEST_CASE("a rank that left the job may exit before the others") {
  const Outcome outcome = run({{lapirun_path(), "-n", "3", probe_path(), "leave-then-exit", "2"}, {}, 30});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "rank 0: rank 2 left and exited"));
  CHECK(contains(outcome.out, "rank 1: rank 2 left and exited"));
}

TEST_CASE("LAPIS_TIMEOUT works like --timeout") {
  const Outcome outcome = run({{lapirun_path(), "-n", "2", probe_path(), "sleep"}, {{"LAPIS_TIMEOUT", "0.5"}}});
  INFO(describe(outcome));
  CHECK(outcome.status == 124);
  CHECK(contains(outcome.err, "timeout after 0.5 s"));
}

TEST_CASE("MPICH's MPIEXEC_TIMEOUT works like --timeout when LAPIS_TIMEOUT is unset") {
  const Outcome outcome = run({{lapirun_path(), "-n", "2", probe_path(), "sleep"}, {{"MPIEXEC_TIMEOUT", "0.5"}}});
  INFO(describe(outcome));
  CHECK(outcome.status == 124);
  CHECK(contains(outcome.err, "timeout after 0.5 s"));
  const Outcome bad = run({{lapirun_path(), "-n", "2", probe_path(), "sleep"}, {{"MPIEXEC_TIMEOUT", "soon"}}});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "invalid MPIEXEC_TIMEOUT 'soon'"));
}

TEST_CASE("a rank dying while the others wait in allgather: they get an error, not a hang") {
  // The waiting ranks ignore SIGTERM, so only the rendezvous error can end them before the
  // launcher's SIGKILL, and only then do they print.
  const Outcome outcome = run({{lapirun_path(), "-n", "4", probe_path(), "die-in-allgather", "3", "5"}});
  INFO(describe(outcome));
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.status == 5);
  CHECK(contains(outcome.err, "lapirun: rank 3 exited with status 5"));
  for (int r = 0; r < 3; ++r) {
    CHECK(contains(outcome.out, "rank " + std::to_string(r) + ": BootstrapError:"));
  }
}

TEST_CASE("LAPIS_BOOTSTRAP_TIMEOUT bounds a rank's wait in a collective") {
  // Two ranks only: with more waiters, the first to time out disconnects and the others would
  // (rightly) fail on that instead.
  const Outcome outcome = run({{lapirun_path(), "-x", "LAPIS_BOOTSTRAP_TIMEOUT=0.5", "-n", "2", probe_path(),
                                "allgather-timeout"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 4);
  CHECK(contains(outcome.out, "no reply within"));
}

TEST_CASE("a bad LAPIS_LINK_TIMEOUT is refused before any rank starts") {
  for (const char* bad : {"0.5", "0", "-1", "two", "1e9", "2s"}) {
    const std::string dir = make_temp_dir();
    const Outcome outcome =
        run({{lapirun_path(), "-n", "2", probe_path(), "kill-launcher", std::to_string(SIGTERM), dir},
             {{"LAPIS_LINK_TIMEOUT", bad}}});
    INFO(bad << ": " << describe(outcome));
    CHECK(outcome.status == 1);
    CHECK(contains(outcome.err, std::string("lapirun: LAPIS_LINK_TIMEOUT must be a number of seconds from 1 to 3600, got '") +
                                    bad + "'"));
    CHECK_FALSE(std::ifstream(dir + "/0.pid").good());  // no rank started
    std::remove(dir.c_str());
  }
}

TEST_CASE("SIGTERM to lapirun stops every rank") {
  const std::string dir = make_temp_dir();
  const Outcome outcome = run({{lapirun_path(), "-n", "3", probe_path(), "kill-launcher", std::to_string(SIGTERM), dir}});
  INFO(describe(outcome));
  CHECK_FALSE(outcome.timed_out);
  CHECK(outcome.status == 128 + SIGTERM);
  CHECK(contains(outcome.err, "lapirun: received signal 15"));
  check_all_gone(read_pids(dir, 3));
}

TEST_CASE("SIGKILL to lapirun: the ranks die with it (parent-death signal)") {
  const std::string dir = make_temp_dir();
  const std::string tmpdir = make_temp_dir();
  const Outcome outcome = run({{lapirun_path(), "-n", "3", probe_path(), "kill-launcher", std::to_string(SIGKILL), dir},
                               {{"TMPDIR", tmpdir}}});
  INFO(describe(outcome));
  CHECK_FALSE(outcome.timed_out);  // the ranks held our output pipes: they must be gone
  CHECK(outcome.status == 128 + SIGKILL);
  check_all_gone(read_pids(dir, 3));
  // All ranks had joined, so the launcher had already removed its socket directory.
  CHECK(::rmdir(tmpdir.c_str()) == 0);
}
