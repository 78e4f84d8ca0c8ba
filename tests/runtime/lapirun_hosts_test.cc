// lapirun across test hosts (tests/support/test_hosts.hpp): -H, --hostfile, -ppn, the launch
// agent, the TCP rendezvous and its per-job secret, exit status, timeout and clean-up across
// hosts, and bad input (unknown host, wrong secret). lapirun itself runs inside host 0.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/runtime/on_hosts.hpp"
#include "tests/runtime/subprocess.hpp"
#include "tests/support/launch.hpp"
#include "tests/support/test_hosts.hpp"

namespace {

using namespace lapis::runtime::testing;
using lapis::testing::TestHosts;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// lapirun ARGS... on host 0, with the test agent.
Outcome run_on_host0(const TestHosts& hosts, const std::vector<std::string>& args, Command::EnvChanges env = {},
                     double timeout = 60) {
  std::vector<std::string> argv = hosts.enter(0);
  argv.push_back(lapirun_path());
  argv.insert(argv.end(), args.begin(), args.end());
  Command::EnvChanges all = lapirun_env(hosts);
  all.insert(all.end(), env.begin(), env.end());  // later entries win
  return run(Command(argv, all, timeout));
}

// A finished job leaves no process in any test host.
void check_nothing_left(const TestHosts& hosts) {
  const std::vector<pid_t> left = hosts.left_after(10);
  CHECK_MESSAGE(left.empty(), "processes left in the test hosts: " << left.size());
}

std::string host_list(const TestHosts& hosts, int slots) {
  return hosts.name(0) + ":" + std::to_string(slots) + "," + hosts.name(1) + ":" + std::to_string(slots);
}

}  // namespace

TEST_CASE("the fixture's hosts have their own names and addresses, and vanish afterwards") {
  std::vector<pid_t> holders;
  {
    TestHosts hosts(2);
    if (hosts.skip_if_unavailable("fixture")) return;
    for (int i = 0; i < 2; ++i) {
      holders.push_back(hosts.holder(i));
      std::vector<std::string> argv = hosts.enter(i);
      argv.insert(argv.end(), {"sh", "-c", "hostname; ip -4 -o addr show dev lapis0"});
      const Outcome outcome = run(Command(argv));
      INFO(describe(outcome));
      CHECK(outcome.status == 0);
      CHECK(contains(outcome.out, hosts.name(i) + "\n"));
      CHECK(contains(outcome.out, hosts.address(i) + "/24"));
    }
  }
  for (pid_t pid : holders) CHECK(process_gone(pid, 10));
}

TEST_CASE("the hosts vanish when the process that made them is killed") {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // makes hosts, reports their holders, and waits to be SIGKILLed
    ::close(pipe_fds[0]);
    TestHosts hosts(2);
    pid_t holders[3] = {hosts.available() ? 1 : 0, hosts.available() ? hosts.holder(0) : 0,
                        hosts.available() ? hosts.holder(1) : 0};
    (void)!::write(pipe_fds[1], holders, sizeof holders);
    for (;;) ::pause();
  }
  ::close(pipe_fds[1]);
  pid_t holders[3] = {};
  const bool got = ::read(pipe_fds[0], holders, sizeof holders) == static_cast<ssize_t>(sizeof holders);
  ::close(pipe_fds[0]);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  REQUIRE(got);
  TestHosts probe(0);
  if (holders[0] == 0 && probe.skip_if_unavailable("cleanup after SIGKILL")) return;
  CHECK(process_gone(holders[1], 10));
  CHECK(process_gone(holders[2], 10));
}

TEST_CASE("-H host:2,host:2 runs 2 ranks on each host through the agent, over a TCP rendezvous") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("-H")) return;
  const Outcome where = run_on_host0(hosts, {"-H", host_list(hosts, 2), probe_path(), "where"});
  INFO(describe(where));
  CHECK(where.status == 0);
  for (int rank = 0; rank < 4; ++rank) {
    CHECK(contains(where.out, "rank " + std::to_string(rank) + " of 4 on " + hosts.name(rank / 2) + "\n"));
  }
  // The collectives work and the ranks see a TCP endpoint on host 0's address and a secret.
  const Outcome check = run_on_host0(hosts, {"-H", host_list(hosts, 2), probe_path(), "check", "4", "lapirun"});
  INFO(describe(check));
  CHECK(check.status == 0);
  const Outcome env = run_on_host0(hosts, {"-H", host_list(hosts, 1), "--tag-output", probe_path(), "env",
                                           "LAPIS_RENDEZVOUS", "LAPIS_JOB_SECRET"});
  INFO(describe(env));
  CHECK(env.status == 0);
  CHECK(contains(env.out, "[1] LAPIS_RENDEZVOUS=tcp:" + hosts.address(0) + ":"));
  CHECK(contains(env.out, "[1] LAPIS_JOB_SECRET="));
  check_nothing_left(hosts);
}

TEST_CASE("a job on this host only keeps the Unix rendezvous and has no secret") {
  const Outcome env = run(Command({lapirun_path(), "-H", "localhost:2", probe_path(), "env", "LAPIS_RENDEZVOUS",
                                   "LAPIS_JOB_SECRET"}));
  INFO(describe(env));
  CHECK(env.status == 0);
  CHECK(contains(env.out, "LAPIS_RENDEZVOUS=@lapirun-"));
  CHECK(contains(env.out, "LAPIS_JOB_SECRET unset"));
}

TEST_CASE("--hostfile with comments and both formats, and -ppn") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("--hostfile")) return;
  const std::string file = "/tmp/lapis-hostfile-" + std::to_string(::getpid());
  std::ofstream(file) << "# test hosts\n\n" << hosts.name(0) << " slots=1   # first\n" << hosts.name(1) << ":3\n";
  const Outcome slots = run_on_host0(hosts, {"--hostfile", file, probe_path(), "where"});
  INFO(describe(slots));
  CHECK(slots.status == 0);
  CHECK(contains(slots.out, "rank 0 of 4 on " + hosts.name(0)));
  CHECK(contains(slots.out, "rank 3 of 4 on " + hosts.name(1)));
  const Outcome ppn = run_on_host0(hosts, {"--hostfile", file, "-ppn", "2", "-n", "3", "--report-bindings",
                                           "--bind-to", "none", probe_path(), "where"});
  INFO(describe(ppn));
  CHECK(ppn.status == 0);
  // Only this host's ranks are placed (and reported) here.
  CHECK(contains(ppn.err, "lapirun: rank 1 not bound"));
  CHECK_FALSE(contains(ppn.err, "lapirun: rank 2 "));
  CHECK(contains(ppn.out, "rank 1 of 3 on " + hosts.name(0)));
  CHECK(contains(ppn.out, "rank 2 of 3 on " + hosts.name(1)));
  std::remove(file.c_str());
  check_nothing_left(hosts);
}

TEST_CASE("a remote rank's exit status decides, and every rank on every host is ended") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("exit status")) return;
  const Outcome outcome = run_on_host0(hosts, {"-H", host_list(hosts, 2), probe_path(), "exit", "3", "5"});
  INFO(describe(outcome));
  CHECK(outcome.status == 5);
  CHECK(contains(outcome.err, "lapirun: rank 3 exited with status 5"));
  check_nothing_left(hosts);
}

TEST_CASE("a remote rank whose agent dies without it (as with ssh) ends when the launcher goes") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("detached agent")) return;
  // Rank 0 exits 7 after a barrier; the others wait forever. Killing rank 1's agent leaves the
  // rank itself running: only the closed rendezvous connection can end it.
  const Outcome outcome = run_on_host0(hosts, {"-H", host_list(hosts, 1), probe_path(), "exit", "0", "7"},
                                       {{"TEST_HOSTS_DETACH", "1"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 7);
  check_nothing_left(hosts);
}

TEST_CASE("--timeout ends ranks on every host") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("--timeout")) return;
  const Outcome outcome = run_on_host0(hosts, {"--timeout", "2", "-H", host_list(hosts, 2), probe_path(), "sleep"});
  INFO(describe(outcome));
  CHECK(outcome.status == 124);
  check_nothing_left(hosts);
}

TEST_CASE("an unknown host: the agent's error is shown, the job ends, nothing is left") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("unknown host")) return;
  const Outcome outcome =
      run_on_host0(hosts, {"-H", hosts.name(0) + ":1,no-such-host:1", probe_path(), "check", "2", "lapirun"});
  INFO(describe(outcome));
  CHECK(outcome.status == 255);
  CHECK(contains(outcome.err, "no test host named 'no-such-host'"));
  CHECK(contains(outcome.err, "lapirun: rank 1 exited with status 255"));
  check_nothing_left(hosts);
}

TEST_CASE("a rank with the wrong job secret is refused with a clear message") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("wrong secret")) return;
  // An agent that hands the remote rank a different secret.
  const std::string agent = "/tmp/lapis-bad-agent-" + std::to_string(::getpid()) + ".sh";
  std::ofstream(agent) << "#!/bin/bash\nhost=$1; shift; args=()\n"
                       << "for a in \"$@\"; do case $a in LAPIS_JOB_SECRET=*) args+=(LAPIS_JOB_SECRET=0000);; "
                       << "*) args+=(\"$a\");; esac; done\nexec " << TestHosts::agent_path() << " \"$host\" \"${args[@]}\"\n";
  REQUIRE(::chmod(agent.c_str(), 0755) == 0);
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {lapirun_path(), "-H", host_list(hosts, 1), probe_path(), "check", "2", "lapirun"});
  const Outcome outcome = run(Command(argv, {{"LAPIS_LAUNCH_AGENT", agent},
                                             {"TEST_HOSTS_MAP", hosts.hosts_variable()},
                                             {"LAPIS_RENDEZVOUS_ADDR", hosts.address(0)}}));
  INFO(describe(outcome));
  CHECK(outcome.status != 0);
  CHECK_FALSE(outcome.timed_out);
  CHECK(contains(outcome.err, "lapirun: refused a rendezvous connection claiming rank 1: wrong or missing job secret"));
  CHECK(contains(outcome.err, "wrong or missing job secret (LAPIS_JOB_SECRET)"));
  std::remove(agent.c_str());
  check_nothing_left(hosts);
}

TEST_CASE("a rendezvous address that is not this host's is a clear error") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("bad rendezvous address")) return;
  const Outcome outcome = run_on_host0(hosts, {"-H", host_list(hosts, 1), probe_path(), "check", "2", "lapirun"},
                                       {{"LAPIS_RENDEZVOUS_ADDR", hosts.address(1)}});
  INFO(describe(outcome));
  CHECK(outcome.status == 1);
  CHECK(contains(outcome.err, "cannot listen on rendezvous address " + hosts.address(1)));
  check_nothing_left(hosts);
}
