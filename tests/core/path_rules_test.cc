// LAPIS_PATHS' rules (lapi/internal/path_rules.hpp): the syntax, splitting a
// pair at the right '-' when host names hold '-', and which rule wins.
#include "lapi/internal/path_rules.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using lapi::internal::PairMethod;
using lapi::internal::PathRule;
using lapi::internal::PathRules;

namespace {

PathRules resolved(const std::string& text, const std::vector<std::string>& hosts) {
  std::vector<PathRule> rules;
  REQUIRE(lapi::internal::parse_path_rules(text, rules).ok());
  PathRules out;
  const lapi::Status s = PathRules::resolve(rules, hosts, out);
  INFO(s.message());
  REQUIRE(s.ok());
  return out;
}

}  // namespace

TEST_CASE("bad rules are refused, naming the rule") {
  for (const char* text : {"", "a", "a=tcp", "a-b", "a-b=udp", "a-b=TCP", "-b=tcp", "a-=tcp",
                           "a-b=tcp;", ";a-b=tcp", "a b-c=tcp", "a-b=shm;c=tcp"}) {
    CAPTURE(text);
    std::vector<PathRule> rules;
    const lapi::Status s = lapi::internal::parse_path_rules(text, rules);
    CHECK(s.code() == lapi::Errc::set_val);
    CHECK(s.message().find("LAPIS_PATHS: rule '") != std::string::npos);
  }
  std::vector<PathRule> rules;
  REQUIRE(lapi::internal::parse_path_rules("a-b=tcp;*-*=shm", rules).ok());
  CHECK(rules.size() == 2);
}

TEST_CASE("a pair splits at the '-' that leaves two hosts of the job") {
  const std::vector<std::string> hosts = {"node-1", "node-2", "login"};
  const PathRules rules = resolved("node-1-node-2=tcp", hosts);
  CHECK(rules.lookup("node-1", "node-2") == PairMethod::tcp);
  CHECK(rules.lookup("node-2", "node-1") == PairMethod::tcp);  // either order
  CHECK_FALSE(rules.lookup("node-1", "node-1").has_value());
  CHECK_FALSE(rules.lookup("node-1", "login").has_value());

  std::vector<PathRule> written;
  REQUIRE(lapi::internal::parse_path_rules("node-1-nowhere=tcp", written).ok());
  PathRules out;
  const lapi::Status unknown = PathRules::resolve(written, hosts, out);
  CHECK(unknown.code() == lapi::Errc::set_val);
  CHECK(
      unknown.message().find(
          "'node-1-nowhere=tcp' names a host not in this job (its hosts: login, node-1, node-2)") !=
      std::string::npos);
  // "a-b-c" is a-(b-c) and (a-b)-c when all four are hosts: ambiguous.
  REQUIRE(lapi::internal::parse_path_rules("a-b-c=tcp", written).ok());
  const lapi::Status two_ways = PathRules::resolve(written, {"a", "b-c", "a-b", "c"}, out);
  CHECK(two_ways.code() == lapi::Errc::set_val);
  CHECK(two_ways.message().find("pairs a with b-c, or a-b with c") != std::string::npos);
}

TEST_CASE("'*' is any host, the last matching rule wins, unnamed pairs keep the automatic choice") {
  const PathRules rules = resolved("*-*=tcp;h0-h0=shm", {"h0", "h1"});
  std::string which;
  CHECK(rules.lookup("h0", "h0", &which) == PairMethod::shm);
  CHECK(which == "h0-h0=shm");
  CHECK(rules.lookup("h1", "h1", &which) == PairMethod::tcp);
  CHECK(which == "*-*=tcp");
  CHECK(rules.lookup("h0", "h1") == PairMethod::tcp);
  CHECK(resolved("h0-*=tcp", {"h0", "h1"}).lookup("h1", "h0") == PairMethod::tcp);
  CHECK_FALSE(resolved("h0-h0=tcp", {"h0", "h1"}).lookup("h1", "h1").has_value());
  CHECK(PathRules{}.empty());
}
