// Striping over two links between 2 test hosts (LAPIS_LINKS, lapi/internal/links.hpp): large
// Amsends both ways land intact with each link carrying a share; a link deleted under a stream
// (each link rate-limited so that the stream is long) is reported once, its fragments go over
// the other, and nothing is lost. tests/core/stripe_ranks.cc is the ranks' side.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/runtime/on_hosts.hpp"
#include "tests/runtime/subprocess.hpp"
#include "tests/support/test_hosts.hpp"

namespace {

using namespace lapis::runtime::testing;
using lapis::testing::TestHosts;

// The ranks' "stats: ..." lines, for the log.
void show_stats(const Outcome& outcome) {
  for (auto at = outcome.out.find("stats: "); at != std::string::npos; at = outcome.out.find("stats: ", at + 1)) {
    MESSAGE(outcome.out.substr(at, outcome.out.find('\n', at) - at));
  }
  MESSAGE("the job took " << outcome.seconds << " s");
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// `program` with one rank on each host, striping over `links`.
Outcome run_pair(const TestHosts& hosts, const std::vector<std::string>& x, const std::string& links = "lapis0,lapis1",
                 const std::string& program = "tests/core/stripe_ranks") {
  std::vector<std::string> argv = hosts.enter(0);
  argv.insert(argv.end(), {lapirun_path(), "--timeout", "200", "-H", hosts.name(0) + ":1," + hosts.name(1) + ":1",
                           "-x", "LAPIS_LINKS=" + links, "-x", "LAPIS_VERBOSE=1"});
  for (const std::string& setting : x) argv.insert(argv.end(), {"-x", setting});
  argv.push_back(runfile(program));
  return run(Command(argv,
                     lapirun_env(hosts),
                     240));
}

}  // namespace

TEST_CASE("large amsends both ways, striped over two links, land intact (polling and interrupt mode)") {
  TestHosts hosts(2, 2);
  if (hosts.skip_if_unavailable("striping over two links")) return;
  for (const char* mode : {"polling", "interrupt"}) {
    CAPTURE(mode);
    const Outcome outcome = run_pair(hosts, {"STRIPE_MODE=both", std::string("LAPIS_MODE=") + mode});
    INFO(describe(outcome));
    show_stats(outcome);
    CHECK(outcome.status == 0);
    CHECK(count(outcome.err, "1=ucx+links:2") == 1);
    CHECK(count(outcome.err, "0=ucx+links:2") == 1);
    CHECK(count(outcome.out, "stats: task ") == 2);
    CHECK(count(outcome.err, "warning: link") == 0);
  }
  CHECK(hosts.left_after(10).empty());
}

// MPI's rendezvous sends its data as one Amsend into the posted buffer: striped too.
TEST_CASE("MPI point-to-point across two hosts with large messages striped over two links") {
  TestHosts hosts(2, 2);
  if (hosts.skip_if_unavailable("MPI over two links")) return;
  const Outcome outcome = run_pair(hosts, {}, "lapis0,lapis1", "tests/mpi/progs/p2p");
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(count(outcome.err, "1=ucx+links:2") == 1);
  CHECK(count(outcome.err, "warning: link") == 0);
  CHECK(hosts.left_after(10).empty());
}

TEST_CASE("a link deleted under a stream: one warning, the rest over the other link, nothing lost") {
  TestHosts hosts(2, 2);
  if (hosts.skip_if_unavailable("a link cut under striping")) return;
  for (int host = 0; host < 2; ++host) {
    for (int link = 0; link < 2; ++link) REQUIRE_MESSAGE(hosts.limit_rate(host, link, "200mbit"), hosts.why_not());
  }
  const Outcome outcome =
      run_pair(hosts, {"STRIPE_MODE=cut", "STRIPE_CUT=lapis1", "STRIPE_CUT_AFTER=6", "LAPIS_LINK_TIMEOUT=1"});
  INFO(describe(outcome));
  show_stats(outcome);
  CHECK(outcome.status == 0);
  CHECK(count(outcome.out, "task 1: cut lapis1") == 1);
  CHECK(count(outcome.err, "warning: link lapis1 to task 1 on " + hosts.name(1) + " failed") == 1);
  CHECK(count(outcome.err, "warning: link") == 1);
  CHECK(hosts.left_after(10).empty());
}

TEST_CASE("the only link deleted under a stream: one warning, the rest through UCX, nothing lost") {
  TestHosts hosts(2, 2);
  if (hosts.skip_if_unavailable("the only link cut under striping")) return;
  for (int host = 0; host < 2; ++host) REQUIRE_MESSAGE(hosts.limit_rate(host, 1, "200mbit"), hosts.why_not());
  const Outcome outcome =
      run_pair(hosts, {"STRIPE_MODE=cut", "STRIPE_CUT=lapis1", "STRIPE_CUT_AFTER=6", "LAPIS_LINK_TIMEOUT=1"}, "lapis1");
  INFO(describe(outcome));
  show_stats(outcome);
  CHECK(outcome.status == 0);
  CHECK(count(outcome.err, "1=ucx+links:1") == 1);
  CHECK(count(outcome.err, "warning: link lapis1 to task 1 on " + hosts.name(1) + " failed") == 1);
  CHECK(count(outcome.err, "its stripes go over UCX") == 1);
  CHECK(hosts.left_after(10).empty());
}
