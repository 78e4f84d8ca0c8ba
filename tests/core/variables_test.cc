// The LAPIS_* registry (lapi/variables.hpp): the README's configuration
// table is generated from it, a misspelt variable is named with the closest
// known one, and a job warns about it once, from rank 0.

#include "lapi/variables.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/benchmarks/json_rows.hpp"
#include "tests/support/launch.hpp"

namespace {

std::string readme_table() {
  std::ifstream f(lapis::testing::runfile("README.md"));
  std::stringstream text;
  text << f.rdbuf();
  const std::string s = text.str();
  const std::string begin = "<!-- variables: generated from lapi/variables.cc; tests/core:variables_test keeps them equal -->\n";
  const std::string end = "<!-- end of variables -->";
  const auto a = s.find(begin);
  const auto b = s.find(end);
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  return s.substr(a + begin.size(), b - a - begin.size());
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the README's table is the registry's (regenerate: lapis_info --readme-table)") {
  CHECK(readme_table() == lapi::variables_table());
}

TEST_CASE("every variable is documented once, with a default and a layer") {
  std::vector<std::string_view> seen;
  for (const lapi::Variable& v : lapi::variables()) {
    CAPTURE(v.name);
    CHECK(v.name.starts_with("LAPIS_"));
    CHECK(!v.default_value.empty());
    CHECK(!v.layer.empty());
    CHECK(!v.doc.empty());
    CHECK(std::count(seen.begin(), seen.end(), v.name) == 0);
    CHECK(lapi::find_variable(v.name) == &v);
    seen.push_back(v.name);
  }
  CHECK(lapi::find_variable("LAPIS_NOT_A_THING") == nullptr);
}

TEST_CASE("unknown LAPIS_ variables, with the closest known name") {
  std::vector<std::string> entries = {"PATH=/bin", "LAPIS_MODE=interrupt", "LAPIS_SHMM=0",
                                      "LAPIS_CHEKSUM=crc32c", "LAPIS_ZZZZZZZZZZZZZZZZ=1", "LAPISX=1"};
  std::vector<char*> environment;
  for (auto& e : entries) environment.push_back(e.data());
  environment.push_back(nullptr);
  const auto unknown = lapi::unknown_variables(environment.data());
  REQUIRE(unknown.size() == 3);
  CHECK(unknown[0].name == "LAPIS_SHMM");
  CHECK(unknown[0].closest == "LAPIS_SHM");
  CHECK(unknown[1].name == "LAPIS_CHEKSUM");
  CHECK(unknown[1].closest == "LAPIS_CHECKSUM");
  CHECK(unknown[2].name == "LAPIS_ZZZZZZZZZZZZZZZZ");
  CHECK(unknown[2].closest.empty());
}

TEST_CASE("lapis_info lists every variable with its value, and names a bad argument") {
  using namespace lapis::testing;
  const std::string info = runfile("tools/lapis_info");
  const LaunchResult all = run_shell("LAPIS_MODE=interrupt LAPIS_SHMM=1 " + info + " --all --json");
  REQUIRE(all.status == 0);
  const auto rows = json_rows(all.output, OtherLines::kRejected);
  std::size_t variables = 0;
  for (const auto& row : rows) {
    if (field(row, "kind") != "variable") continue;
    ++variables;
    if (field(row, "name") == "LAPIS_MODE") CHECK(field(row, "value") == "interrupt");
    if (field(row, "name") == "LAPIS_POLICY") CHECK(field(row, "value") == "null");
  }
  CHECK(variables == lapi::variables().size());
  CHECK(count(all.output, "\"kind\":\"unknown_variable\",\"name\":\"LAPIS_SHMM\",\"closest\":\"LAPIS_SHM\"") == 1);
  CHECK(count(all.output, "\"kind\":\"lapis\"") == 1);
  const LaunchResult table = run_shell(info + " --readme-table");
  CHECK(table.output == lapi::variables_table());
  const LaunchResult bad = run_shell(info + " --frobnicate 2>&1");
  CHECK(bad.status == 2);
  CHECK(count(bad.output, "--frobnicate") == 1);
}

TEST_CASE("a job with a misspelt variable warns once, from rank 0") {
  const auto r =
      lapis::testing::launch({.ranks = 2, .timeout_s = 120, .env = {"LAPIS_SHMM=0"}, .flags = {}},
                             "tests/core/fence_ranks");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count(r.output, "lapis: warning: LAPIS_SHMM is not a Lapis variable; did you mean LAPIS_SHM?") == 1);
}
