// Jobs that connect (tests/mpi/progs/connect.c): two lapirun jobs started side by side, on this
// host and on two test hosts, meet through MPI_Open_port/MPI_Comm_accept/MPI_Comm_connect or
// MPI_Comm_join, talk across the inter-communicator and disconnect; a job that ends without
// disconnecting fails the other's receive instead of hanging it; bad port names and
// arguments are errors naming the problem. A FIFO hands the port name from one job to the
// other (opening it blocks until both sides have).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/launch.hpp"
#include "tests/support/test_hosts.hpp"

namespace {

using lapis::mpi_tests::count_lines;
using lapis::testing::run_shell;
using lapis::testing::runfile;
using lapis::testing::TestHosts;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += "'" + a + "' ";
  return out;
}

struct Job {
  std::vector<std::string> prefix;  // e.g. entering a test host
  int ranks = 2;
  std::string mode;
  std::vector<std::string> env;  // -x settings
};

struct Outcome {
  int status = -1;
  std::string output;
};

// Runs both jobs at once (each under lapirun --timeout), the FIFO between them; with
// `name_server`, beside a lapis_names daemon whose LAPIS_NAME_SERVER both jobs get.
std::pair<Outcome, Outcome> run_pair(const Job& a, const Job& b, bool name_server = false) {
  char dir_template[] = "/tmp/lapis-connect-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string fifo = dir + "/port";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto command = [&](const Job& j) {
    std::vector<std::string> argv = j.prefix;
    argv.insert(argv.end(), {runfile("runtime/lapirun"), "-n", std::to_string(j.ranks), "--timeout", "60"});
    for (const std::string& x : j.env) argv.insert(argv.end(), {"-x", x});
    argv.insert(argv.end(), {runfile("tests/mpi/progs/connect"), j.mode, fifo});
    return quote(argv);
  };
  std::string script = "(" + command(a) + " > " + dir + "/a.log 2>&1; echo $? > " + dir + "/a.rc) & A=$!; " +
                       command(b) + " > " + dir + "/b.log 2>&1; echo $? > " + dir + "/b.rc; wait $A";
  if (name_server) {  // its one line, read through a FIFO (blocks until it is written)
    script = "mkfifo " + dir + "/ns && { '" + runfile("tools/lapis_names") + "' > " + dir + "/ns & N=$!; read line < " +
             dir + "/ns; export \"$line\"; " + script + "; kill $N; wait $N; }";
  }
  (void)run_shell(script);
  Outcome ra{std::atoi(slurp(dir + "/a.rc").c_str()), slurp(dir + "/a.log")};
  Outcome rb{std::atoi(slurp(dir + "/b.rc").c_str()), slurp(dir + "/b.log")};
  (void)run_shell("rm -rf '" + dir + "'");
  return {ra, rb};
}

// The accepting job's outcome (it says where its port listens).
Outcome expect_both_ok(const Job& a, const Job& b) {
  const auto [ra, rb] = run_pair(a, b);
  INFO("accepting job:\n", ra.output, "\nconnecting job:\n", rb.output);
  CHECK(ra.status == 0);
  CHECK(rb.status == 0);
  CHECK(count_lines(ra.output, "OK\n") == a.ranks);
  CHECK(count_lines(rb.output, "OK\n") == b.ranks);
  return ra;
}

}  // namespace

TEST_CASE("two jobs on this host connect, talk across and disconnect") {
  SUBCASE("2 of 3 ranks accept, 3 connect; the port listens on loopback only") {
    const Outcome a = expect_both_ok({{}, 3, "accept", {}}, {{}, 3, "connect", {}});
    CHECK(a.output.find("port on 127.0.0.1\n") != std::string::npos);
  }
  SUBCASE("one rank each") { expect_both_ok({{}, 1, "accept", {}}, {{}, 1, "connect", {}}); }
  SUBCASE("interrupt mode, 3 and 2 ranks") {
    expect_both_ok({{}, 3, "accept", {"LAPIS_MODE=interrupt"}}, {{}, 2, "connect", {"LAPIS_MODE=interrupt"}});
  }
}

TEST_CASE("the port found through the name service (lapis_names)") {
  const auto [ra, rb] = run_pair({{}, 2, "publish-accept", {}}, {{}, 2, "lookup-connect", {}}, true);
  INFO("publishing job:\n", ra.output, "\nlooking-up job:\n", rb.output);
  CHECK(ra.status == 0);
  CHECK(rb.status == 0);
  CHECK(count_lines(ra.output, "OK\n") == 2);
  CHECK(count_lines(rb.output, "OK\n") == 2);
}

TEST_CASE("MPI_Comm_join over a socket the two processes made") {
  expect_both_ok({{}, 1, "join-listen", {}}, {{}, 1, "join-connect", {}});
}

TEST_CASE("a job that ends without disconnecting fails the other's receive, which does not hang") {
  const auto [ra, rb] = run_pair({{}, 2, "vanish-accept", {}}, {{}, 2, "vanish-connect", {}});
  INFO("accepting job:\n", ra.output, "\nconnecting job:\n", rb.output);
  CHECK(ra.status == 0);
  CHECK(count_lines(ra.output, "OK\n") == 2);
  CHECK(rb.status != 0);  // its ranks left without MPI_Finalize: lapirun says so
  CHECK(rb.output.find("without calling MPI_Finalize") != std::string::npos);
}

// lapirun serves names to its job (MPICH's namepub tests expect it of mpiexec).
TEST_CASE("the ranks of one job share names through lapirun's name service") {
  const lapis::testing::LaunchResult r =
      lapis::testing::launch({.ranks = 3, .timeout_s = 60, .env = {}, .flags = {}}, "tests/mpi/progs/connect", {"names"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count_lines(r.output, "OK\n") == 3);
}

// LAPIS_NAME_SERVER empty: lapirun serves no names, and the name service's calls say so.
TEST_CASE("bad port names and arguments are errors, and a failing root fails its whole group") {
  const lapis::testing::LaunchResult r = lapis::testing::launch(
      {.ranks = 3, .timeout_s = 60, .env = {"LAPIS_NAME_SERVER="}, .flags = {}}, "tests/mpi/progs/connect", {"bad"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count_lines(r.output, "OK\n") == 3);
}

TEST_CASE("two jobs on two test hosts connect over the hosts' link") {
  TestHosts hosts(2);
  if (hosts.skip_if_unavailable("jobs that connect across hosts")) return;
  // The port and UCX on the hosts' link (a job on one host otherwise keeps to loopback).
  const std::vector<std::string> on_link = {"LAPIS_NET_IF=lapis0"};
  const Outcome a = expect_both_ok({hosts.enter(0), 2, "accept", on_link}, {hosts.enter(1), 2, "connect", on_link});
  CHECK(a.output.find("port on " + hosts.address(0) + "\n") != std::string::npos);
  CHECK(hosts.left_after(10).empty());
}
