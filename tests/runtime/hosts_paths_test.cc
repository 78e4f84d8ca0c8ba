// The core and MPI across 2 test hosts x 2 ranks: ranks on one host reach each other through
// shared memory, ranks on the other host through UCX (over TCP on the hosts' link), as each
// rank's LAPIS_VERBOSE=1 path line says; and the programs pass.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <signal.h>
#include <string>
#include <vector>

#include "tests/runtime/on_hosts.hpp"
#include "tests/runtime/subprocess.hpp"
#include "tests/support/sanitizers.hpp"
#include "tests/support/test_hosts.hpp"

namespace {

using namespace lapis::runtime::testing;
using lapis::testing::TestHosts;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every host of `hosts` with 2 ranks ("-H h0:2,h1:2,...").
std::string two_each(const TestHosts& hosts) {
  std::string list;
  for (int i = 0; i < hosts.size(); ++i) list += (i ? "," : "") + hosts.name(i) + ":2";
  return list;
}

Outcome run_across(const TestHosts& hosts, const std::string& program, const std::vector<std::string>& x = {}) {
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {lapirun_path(), "--timeout", "240", "-H", two_each(hosts), "-x", "LAPIS_VERBOSE=1"});
  for (const std::string& setting : x) argv.insert(argv.end(), {"-x", setting});
  argv.push_back(runfile(program));
  return run(Command(argv,
                     lapirun_env(hosts),
                     300));
}

// What a pair of hosts uses: the automatic choice (shm within a host, ucx between), or ucx/tcp.
enum class Pairs { automatic, all_tcp, between_tcp, first_within_tcp };

bool tcp_between(Pairs pairs, int host, int peer_host) {
  switch (pairs) {
    case Pairs::automatic:
      return false;
    case Pairs::all_tcp:
      return true;
    case Pairs::between_tcp:
      return host != peer_host;
    case Pairs::first_within_tcp:
      return host == 0 && peer_host == 0;
  }
  return false;
}

// Rank r's line: "lapis[r] on HOST: paths: 0=... 1=... 2=... 3=..." (printed once per context);
// ranks 2h and 2h+1 are on host h.
void check_paths(const TestHosts& hosts, const std::string& err, Pairs pairs = Pairs::automatic) {
  const int ranks = 2 * hosts.size();
  for (int rank = 0; rank < ranks; ++rank) {
    const int host = rank / 2;
    std::string expected = "lapis[" + std::to_string(rank) + "] on " + hosts.name(host) + ": paths:";
    const auto at = err.find(expected);
    REQUIRE_MESSAGE(at != std::string::npos, "no path line from rank " << rank);
    const std::string line = err.substr(at, err.find('\n', at) - at);
    CAPTURE(line);
    for (int peer = 0; peer < ranks; ++peer) {
      const std::string p = " " + std::to_string(peer) + "=";
      if (peer == rank) CHECK(contains(line, p + "self"));
      else if (tcp_between(pairs, host, peer / 2))
        CHECK(contains(line, p + "ucx/tcp"));
      else if (peer / 2 == host) CHECK(contains(line, p + "shm"));
      else CHECK(contains(line, p + "ucx"));
    }
  }
}

// The "OK" lines the ranks of a program printed.
std::size_t count_oks(const std::string& out) {
  std::size_t oks = 0;
  for (auto at = out.find("OK\n"); at != std::string::npos; at = out.find("OK\n", at + 1)) ++oks;
  return oks;
}

// True (and says so loudly) when Open MPI's mpirun is not installed.
bool openmpi_missing() {
  if (run(Command({"sh", "-c", "command -v mpirun.openmpi"})).status == 0) return false;
  MESSAGE("mpirun.openmpi is not installed: skipped");
  std::fprintf(stderr, "\n*** TEST HOSTS: SKIPPED mpirun.openmpi across hosts: not installed ***\n\n");
  return true;
}

// Open MPI's mpirun in the first host, starting its daemons through the agent (as rsh) over the
// hosts' link: `options` (then -H places), and `program` with UCX kept to that link.
Outcome run_openmpi(const TestHosts& hosts, const std::vector<std::string>& options, const std::string& places,
                    const std::vector<std::string>& program) {
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe"});
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-H", places, "--mca", "plm_rsh_agent", TestHosts::agent_path(), "--mca",
                           "oob_tcp_if_include", "lapis0", "-x", "UCX_NET_DEVICES=lapis0"});
  argv.insert(argv.end(), program.begin(), program.end());
  return run(Command(argv, {{"TEST_HOSTS_MAP", hosts.hosts_variable()}, {"TEST_HOSTS_SHELL", "1"}}, 120));
}

}  // namespace

TEST_CASE("core programs across 2 hosts x 2 ranks: shm within a host, ucx between") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("core across hosts")) return;
  for (const char* program : {"tests/core/amsend_ranks", "tests/core/rma_ranks", "tests/core/fence_ranks"}) {
    CAPTURE(program);
    const Outcome outcome = run_across(hosts, program);
    INFO(describe(outcome));
    CHECK(outcome.status == 0);
    check_paths(hosts, outcome.err);
  }
  CHECK(hosts.left_after(10).empty());
}

// UCX counts every namespace on one kernel as one node (its node id is the boot id), so by
// default it joins the hosts through its own shared memory. Without that, it uses TCP, on the
// one interface that reaches the launcher (lapis0), and the programs still pass.
TEST_CASE("with UCX_TLS=tcp,self UCX joins the hosts over TCP on lapis0") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("core over TCP across hosts")) return;
  for (const char* program : {"tests/core/amsend_ranks", "tests/core/rma_ranks"}) {
    CAPTURE(program);
    const Outcome outcome = run_across(hosts, program, {"UCX_TLS=tcp,self", "UCX_LOG_LEVEL=info"});
    INFO(describe(outcome));
    CHECK(outcome.status == 0);
    check_paths(hosts, outcome.err);
    // UCX logs to stdout.
    CHECK(contains(outcome.out, "tcp/lapis0"));
    CHECK_FALSE(contains(outcome.out, "tcp/lo"));
    CHECK_FALSE(contains(outcome.err, "is not a Lapis variable"));
  }
}

// LAPIS_TRANSPORTS=tcp: every peer, on this host too, through UCX over TCP on lapis0 (never
// loopback: the job spans hosts). LAPIS_TRANSPORTS=shm cannot reach the other host: every rank
// says so at init, naming the variable, and the job ends.
TEST_CASE(
    "LAPIS_TRANSPORTS across hosts: tcp alone carries every pair, shm alone is an init error") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("LAPIS_TRANSPORTS across hosts")) return;
  const Outcome tcp =
      run_across(hosts, "tests/core/amsend_ranks", {"LAPIS_TRANSPORTS=tcp", "UCX_LOG_LEVEL=info"});
  INFO(describe(tcp));
  CHECK(tcp.status == 0);
  check_paths(hosts, tcp.err, Pairs::all_tcp);
  CHECK(contains(tcp.out, "tcp/lapis0"));
  CHECK_FALSE(contains(tcp.out, "tcp/lo"));
  const Outcome shm = run_across(hosts, "tests/core/amsend_ranks", {"LAPIS_TRANSPORTS=shm"});
  INFO(describe(shm));
  CHECK(shm.status != 0);
  CHECK(shm.status != 124);
  CHECK(contains(shm.out + shm.err, "LAPIS_TRANSPORTS=shm reaches no other host"));
  CHECK(hosts.left_after(10).empty());
}

// LAPIS_PATHS, per pair of hosts. By default UCX joins these hosts through its shared memory (one
// kernel); a rule for the pair makes it TCP on lapis0. A rule for the first host's own pair sends
// its two ranks over TCP while the second host's keep the rings. Rules that cannot hold are init
// errors naming them.
TEST_CASE("LAPIS_PATHS: TCP between the hosts, TCP within one host, and rules that cannot hold") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("LAPIS_PATHS across hosts")) return;
  const std::string h0 = hosts.name(0), h1 = hosts.name(1);
  const Outcome between =
      run_across(hosts, "tests/core/amsend_ranks",
                 {"LAPIS_PATHS=" + h0 + "-" + h1 + "=tcp", "UCX_LOG_LEVEL=info"});
  INFO(describe(between));
  CHECK(between.status == 0);
  check_paths(hosts, between.err, Pairs::between_tcp);
  CHECK(contains(between.out, "tcp/lapis0"));
  const Outcome within =
      run_across(hosts, "tests/mpi/progs/p2p", {"LAPIS_PATHS=" + h0 + "-" + h0 + "=tcp"});
  INFO(describe(within));
  CHECK(within.status == 0);
  CHECK(count_oks(within.out) == 4);
  check_paths(hosts, within.err, Pairs::first_within_tcp);
  for (const std::string& rule : {h0 + "-" + h1 + "=shm", h0 + "-nosuchhost=tcp"}) {
    CAPTURE(rule);
    const Outcome bad = run_across(hosts, "tests/core/amsend_ranks", {"LAPIS_PATHS=" + rule});
    INFO(describe(bad));
    CHECK(bad.status != 0);
    CHECK(bad.status != 124);
    CHECK(contains(bad.out + bad.err, "LAPIS_PATHS"));
    CHECK(contains(bad.out + bad.err, rule));
  }
  CHECK(hosts.left_after(10).empty());
}

// Under a sanitizer 3 hosts add minutes and no path 2 hosts and the core's 3-host case below
// do not take (TSan ran this file for 167 s of a CI run).
std::vector<int> host_counts() { return lapis::testing::kSanitized ? std::vector<int>{2} : std::vector<int>{2, 3}; }

TEST_CASE("MPI point-to-point across 2 and 3 hosts x 2 ranks") {
  for (int nhosts : host_counts()) {
    CAPTURE(nhosts);
    TestHosts hosts(nhosts);
    if (hosts.skip_if_unavailable("MPI p2p across hosts")) return;
    const Outcome outcome = run_across(hosts, "tests/mpi/progs/p2p");
    INFO(describe(outcome));
    CHECK(outcome.status == 0);
    CHECK(!contains(outcome.out, "FAILED"));
    std::size_t oks = 0;  // p2p prints OK once per rank
    for (auto at = outcome.out.find("OK\n"); at != std::string::npos; at = outcome.out.find("OK\n", at + 1)) ++oks;
    CHECK(oks == static_cast<std::size_t>(2 * nhosts));
    check_paths(hosts, outcome.err);
  }
}

// The collectives' node-aware algorithms (a shared-memory segment per host, leaders between
// hosts: mpi/internal/coll/node.cc) with more than one node, blocking and nonblocking.
TEST_CASE("MPI collectives across 2 and 3 hosts x 2 ranks") {
  for (int nhosts : host_counts()) {
    for (const char* program : {"tests/mpi/progs/coll", "tests/mpi/progs/coll_nb"}) {
      CAPTURE(nhosts);
      CAPTURE(program);
      TestHosts hosts(nhosts);
      if (hosts.skip_if_unavailable("MPI collectives across hosts")) return;
      const Outcome outcome = run_across(hosts, program);
      INFO(describe(outcome));
      CHECK(outcome.status == 0);
      CHECK(!contains(outcome.out + outcome.err, "FAILED"));
      CHECK(count_oks(outcome.out) == static_cast<std::size_t>(2 * nhosts));
      check_paths(hosts, outcome.err);
    }
  }
}

TEST_CASE("core amsend across 3 hosts x 2 ranks") {
  TestHosts hosts(3);
  if (hosts.skip_if_unavailable("core across 3 hosts")) return;
  const Outcome outcome = run_across(hosts, "tests/core/amsend_ranks");
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  check_paths(hosts, outcome.err);
}

// lapirun --continue-on-failure across hosts: rank 2, alone on the second host, is killed; the
// launcher hears of it through its agent and tells the two ranks on the first host, whose calls
// that needed it fail with MPIX_ERR_PROC_FAILED while they go on (tests/mpi/progs/proc_failed.c).
TEST_CASE("a rank killed on another host ends alone under --continue-on-failure") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("--continue-on-failure across hosts")) return;
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {lapirun_path(), "--timeout", "120", "--continue-on-failure", "-H",
                           hosts.name(0) + ":2," + hosts.name(1) + ":1", runfile("tests/mpi/progs/proc_failed")});
  const Outcome outcome = run(Command(argv,
                                      lapirun_env(hosts),
                                      180));
  INFO(describe(outcome));
  CHECK(outcome.status != 0);
  CHECK(outcome.status != 124);
  CHECK(!contains(outcome.out + outcome.err, "FAILED"));
  CHECK(count_oks(outcome.out) == 2);
  CHECK(contains(outcome.err, "the others go on (--continue-on-failure)"));
  CHECK(hosts.left_after(10).empty());
}

// A lost link rather than a dead rank: rank 2, alone on the second host, deletes that host's
// interface (proc_failed --cut) and waits. No FIN comes; keepalive on the rendezvous connection
// (LAPIS_LINK_TIMEOUT) lets the launcher notice, name the rank and its host, and either tell the
// others (--continue-on-failure: their calls fail with MPIX_ERR_PROC_FAILED, they go on) or end
// the job. Each surviving rank prints how long the failure took to reach it.
Outcome cut_second_host(const TestHosts& hosts, bool continue_on_failure) {
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {lapirun_path(), "--timeout", "120"});
  if (continue_on_failure) argv.push_back("--continue-on-failure");
  argv.insert(argv.end(), {"-H", hosts.name(0) + ":2," + hosts.name(1) + ":1", runfile("tests/mpi/progs/proc_failed"),
                           "--cut", "lapis0"});
  return run(Command(argv,
                     lapirun_env(hosts),
                     180));
}

TEST_CASE("a host whose link goes down is reported, and the others go on under --continue-on-failure") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("a lost link under --continue-on-failure")) return;
  const Outcome outcome = cut_second_host(hosts, true);
  INFO(describe(outcome));
  CHECK(outcome.status == 1);
  CHECK(!contains(outcome.out + outcome.err, "FAILED"));
  CHECK(count_oks(outcome.out) == 2);
  CHECK(contains(outcome.err, "lost the connection to rank 2 on " + hosts.name(1)));
  CHECK(contains(outcome.err, "the others go on (--continue-on-failure)"));
  for (const char* rank : {"rank 0: ", "rank 1: "}) {
    const auto at = outcome.err.find(rank + std::string("rank 2's failure reported"));
    REQUIRE(at != std::string::npos);
    MESSAGE(outcome.err.substr(at, outcome.err.find('\n', at) - at));
  }
  CHECK(hosts.left_after(10).empty());
}

TEST_CASE("a host whose link goes down ends the job, naming the rank and its host") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("a lost link ends the job")) return;
  const Outcome outcome = cut_second_host(hosts, false);
  INFO(describe(outcome));
  CHECK(outcome.status == 1);
  CHECK(!outcome.timed_out);
  CHECK(contains(outcome.err, "lost the connection to rank 2 on " + hosts.name(1)));
  MESSAGE("the job ended " << outcome.seconds << " s after it started");
  CHECK(hosts.left_after(10).empty());
}

// Open MPI's mpirun starts its daemons through the agent (as rsh) and the ranks find each other
// through PMIx; Lapis picks the same paths. Under PMIx the core keeps UCX's device choice, so
// the test names the hosts' link.
TEST_CASE("MPI p2p across 2 hosts x 2 ranks under Open MPI's mpirun (PMIx) with an rsh agent") {
  if (openmpi_missing()) return;
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("mpirun.openmpi across hosts")) return;
  const Outcome outcome = run_openmpi(hosts, {"-n", "4"}, two_each(hosts),
                                      {"-x", "LAPIS_VERBOSE=1", runfile("tests/mpi/progs/p2p")});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  check_paths(hosts, outcome.err + outcome.out);
  CHECK(hosts.left_after(10).empty());
}

// Under a launcher that tells nobody (Open MPI's mpirun with --enable-recovery keeps the job
// going when a rank dies), the ranks left hear of the failure from UCX itself: endpoints to
// other hosts are created with peer error handling. Rank 2, alone on the second host, is killed;
// ranks 0 and 1 get MPIX_ERR_PROC_FAILED and go on (tests/mpi/progs/proc_failed.c).
// A lost link under PMIx: no launcher of ours watches the hosts, so the core does
// (lapi/internal/link_watch.hpp). Rank 2, alone on the second host, deletes its interface; the
// others hear of it within LAPIS_LINK_TIMEOUT (2 s) and finish, and rank 2 hears of them the same
// way and ends. Open MPI's mpirun itself never ends (its daemon on the second host is cut off
// too): the test stops it and what is left.
TEST_CASE("a host whose link goes down under Open MPI's mpirun: the link watch tells the others") {
  if (openmpi_missing()) return;
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("a lost link under mpirun.openmpi")) return;
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {"mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--enable-recovery", "-n", "3",
                           "-H", hosts.name(0) + ":2," + hosts.name(1) + ":1", "--mca", "plm_rsh_agent",
                           TestHosts::agent_path(), "--mca", "oob_tcp_if_include", "lapis0", "-x",
                           "UCX_NET_DEVICES=lapis0", runfile("tests/mpi/progs/proc_failed"), "--cut", "lapis0"});
  const Outcome outcome = run(Command(argv, {{"TEST_HOSTS_MAP", hosts.hosts_variable()}, {"TEST_HOSTS_SHELL", "1"}}, 30));
  INFO(describe(outcome));
  CHECK(!contains(outcome.out + outcome.err, "FAILED"));
  CHECK(count_oks(outcome.out) == 2);
  for (const char* rank : {"rank 0: ", "rank 1: "}) {
    const auto at = outcome.err.find(rank + std::string("rank 2's failure reported "));
    REQUIRE(at != std::string::npos);
    const double seconds = std::stod(outcome.err.substr(at + std::strlen(rank) + 26));
    MESSAGE(std::string(rank) << "heard of it " << seconds << " s after the cut");
    CHECK(seconds < 5.0);
  }
  // The cut-off rank heard of the others through its own link watch and ended itself; what is
  // left inside is Open MPI's (its daemon and the agent's shell).
  for (pid_t pid : hosts.processes_inside()) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    CHECK_MESSAGE(name != "proc_failed", "the cut-off rank 2 is still running");
  }
  for (pid_t pid : hosts.processes_inside()) ::kill(pid, SIGKILL);
  CHECK(hosts.left_after(10).empty());
}

TEST_CASE("a rank killed on another host under Open MPI's mpirun --enable-recovery: the others hear of it") {
  if (openmpi_missing()) return;
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("UCX peer failure under mpirun.openmpi")) return;
  const Outcome outcome =
      run_openmpi(hosts, {"--enable-recovery", "-n", "3"}, hosts.name(0) + ":2," + hosts.name(1) + ":1",
                  {"-x", "LAPIS_DEBUG=1", runfile("tests/mpi/progs/proc_failed")});
  INFO(describe(outcome));
  CHECK(!outcome.timed_out);
  CHECK(!contains(outcome.out + outcome.err, "FAILED"));
  CHECK(count_oks(outcome.out) == 2);
  // Whichever speaks first: UCX's endpoint error, or the link watch seeing the connection end.
  const auto at = outcome.err.find("task 2 failed: ");
  REQUIRE(at != std::string::npos);
  MESSAGE(outcome.err.substr(at, outcome.err.find('\n', at) - at));
  CHECK(hosts.left_after(10).empty());
}
