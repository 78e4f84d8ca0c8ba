// tests/support:with_test_hosts, the helper behind compare_mpi --hosts: usage errors, and a
// command run beside the hosts with their names, addresses and agent, whose status it returns.
#include <doctest/doctest.h>

#include <string>

#include "tests/runtime/subprocess.hpp"
#include "tests/support/test_hosts.hpp"

using lapis::runtime::testing::Command;
using lapis::runtime::testing::describe;
using lapis::runtime::testing::Outcome;
using lapis::runtime::testing::run;
using lapis::runtime::testing::runfile;

namespace {

Outcome helper(std::vector<std::string> args) {
  args.insert(args.begin(), runfile("tests/support/with_test_hosts"));
  return run(Command(args, {}, 60));
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("with_test_hosts refuses a bad command line") {
  for (const auto& args : {std::vector<std::string>{}, {"2", "true"}, {"0", "--", "true"}, {"17", "--", "true"},
                           {"two", "--", "true"}, {"2", "--links", "5", "--", "true"}, {"2", "--links", "x", "--", "true"},
                           {"2", "--rate", "fast;", "--", "true"}, {"2", "--speed", "1", "--", "true"},
                           {"2", "--links", "2"}}) {
    const Outcome o = helper(args);
    INFO(describe(o));
    CHECK(o.status == 2);
    CHECK(has(o.err, "usage: with_test_hosts N [--links L] [--rate RATE] -- COMMAND"));
  }
}

TEST_CASE("with_test_hosts runs a command beside the hosts and returns its status") {
  lapis::testing::TestHosts probe(1);
  if (probe.skip_if_unavailable("with_test_hosts")) return;
  // The second host's own view: its name and address, through the agent.
  const Outcome o = helper({"2", "--", "sh", "-c",
                            "second=${TEST_HOST_NAMES#*,}; echo \"names=$TEST_HOST_NAMES addrs=$TEST_HOST_ADDRS\"; "
                            "\"$TEST_HOST_AGENT\" \"$second\" hostname; \"$TEST_HOST_AGENT\" \"$second\" ip -4 -br addr show lapis0; "
                            "exit 7"});
  INFO(describe(o));
  CHECK(o.status == 7);
  CHECK(has(o.out, "addrs=198.18.0.1,198.18.0.2"));
  const auto names_at = o.out.find("names=");
  REQUIRE(names_at != std::string::npos);
  const std::string names = o.out.substr(names_at + 6, o.out.find(' ', names_at) - names_at - 6);
  const std::string second = names.substr(names.find(',') + 1);
  CHECK(has(second, "-h1"));
  CHECK(has(o.out, "\n" + second + "\n"));  // hostname, run on the second host
  CHECK(has(o.out, "198.18.0.2/24"));
}

TEST_CASE("with_test_hosts --links 2 --rate: a second link on each host, every link rate-limited") {
  lapis::testing::TestHosts probe(1);
  if (probe.skip_if_unavailable("with_test_hosts --links")) return;
  const Outcome o = helper({"2", "--links", "2", "--rate", "100mbit", "--", "sh", "-c",
                            "second=${TEST_HOST_NAMES#*,}; \"$TEST_HOST_AGENT\" \"$second\" ip -4 -br addr show lapis1; "
                            "\"$TEST_HOST_AGENT\" \"$second\" tc qdisc show dev lapis1"});
  INFO(describe(o));
  CHECK(o.status == 0);
  CHECK(has(o.out, "198.18.1.2/24"));
  CHECK(has(o.out, "rate 100Mbit"));
}
