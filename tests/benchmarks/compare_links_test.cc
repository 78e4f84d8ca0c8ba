// benchmarks/compare_links from this test's runfiles: one repetition at one size across two
// test hosts with two rate-limited links (needs root, else skips loudly) gives a row for each
// of its three configurations and the ratio row; bad arguments are refused by name. Timings and
// the ratio are never asserted (a benchmark's business).

#include <filesystem>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "tests/benchmarks/json_rows.hpp"
#include "tests/support/launch.hpp"
#include "tests/support/test_hosts.hpp"

using namespace lapis::testing;  // json_rows.hpp and launch.hpp

namespace {

std::string compare_links_command(const std::string& args) {
  // Runfiles hold benchmarks/, runtime/ and tests/support/ side by side, as bazel-bin does.
  const std::string root =
      std::filesystem::path(runfile("runtime/lapirun")).parent_path().parent_path().string();
  return "python3 " + runfile("benchmarks/compare_links") + " --bin-dir " + root + " " + args;
}

}  // namespace

TEST_CASE("compare_links measures two links, one link and UCX alone across two test hosts") {
  TestHosts probe(1);
  if (probe.skip_if_unavailable("compare_links")) return;
  const LaunchResult r = run_shell(compare_links_command("--reps 1 --sizes 256K --rate 1gbit 2>/dev/null"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::set<std::string> configs;
  bool ratio = false;
  for (const auto& row : json_rows(r.output, OtherLines::kSkipped)) {
    if (field(row, "bench") == "links_bandwidth") {
      configs.insert(field(row, "config"));
      check_positive(row, "MBps");
    }
    ratio = ratio || field(row, "bench") == "links_bandwidth_ratio";
  }
  CHECK(configs == std::set<std::string>{"two links", "one link", "ucx"});
  CHECK(ratio);
}

TEST_CASE("compare_links names a bad argument") {
  for (const char* args : {"--reps 0", "--sizes 1x", "--sizes 256K,", "--rate fast"}) {
    CAPTURE(args);
    const LaunchResult r = run_shell(compare_links_command(std::string(args) + " 2>&1"));
    CHECK(r.status == 2);
    const std::string name = std::string(args).substr(0, std::string(args).find(' '));
    CHECK(r.output.find(name) != std::string::npos);
  }
}
