// Runs lapi_latency and lapi_bandwidth under lapirun with tiny sizes and
// iteration counts and checks their --json output: every expected row is
// there, parses, and carries positive numbers. Timings are never asserted.

#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/benchmarks/json_rows.hpp"
#include "tests/support/launch.hpp"

namespace {

using namespace lapis::testing;  // json_rows.hpp and launch.hpp

// A benchmark on 2 tasks, reading stdout alone: in --json mode every line
// of it must be a row.
std::vector<JsonObject> rows_of(const std::string& bench, const std::string& args) {
  const LaunchResult result = run_shell(runfile("runtime/lapirun") + " -n 2 --timeout 120 " +
                                        runfile("benchmarks/" + bench) + " " + args);
  REQUIRE_MESSAGE(result.status == 0, result.output);
  return json_rows(result.output, OtherLines::kRejected);
}

// A benchmark started directly (one task), stdout and stderr.
LaunchResult run_alone(const std::string& bench, const std::string& args) {
  return run_shell(runfile("benchmarks/" + bench) + " " + args + " 2>&1");
}

std::size_t count_rows(const std::vector<JsonObject>& rows, const std::string& bench) {
  std::size_t n = 0;
  for (const auto& row : rows) n += field(row, "bench") == bench ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("lapi_latency --json: every row parses and carries positive numbers") {
  // 16K is above the default eager limit (8K), so rendezvous runs too.
  const auto rows = rows_of("lapi_latency", "--sizes 8,16K --iters 5 --reps 2 --json");
  // 2 modes x (Amsend under 3 policies + Put) x 2 sizes.
  CHECK(count_rows(rows, "latency") == 16);
  // thread/inline and fiber/inline per mode and size.
  CHECK(count_rows(rows, "latency_policy") == 4);
  for (const auto& row : rows) {
    if (field(row, "bench") == "latency") {
      CHECK((field(row, "op") == "amsend" || field(row, "op") == "put"));
      CHECK((field(row, "mode") == "polling" || field(row, "mode") == "interrupt"));
      CHECK(!field(row, "policy").empty());
      for (const char* key : {"size", "iters", "lapis_us", "lapis_min_us", "ucx_us",
                              "ucx_min_us", "ratio"}) {
        check_positive(row, key);
      }
      if (field(row, "op") == "put" && field(row, "mode") == "polling") {
        check_positive(row, "ucx_mempoll_us");
      }
    } else {
      REQUIRE(field(row, "bench") == "latency_policy");
      for (const char* key : {"inline_us", "thread_us", "thread_over_inline", "fiber_us",
                              "fiber_over_inline"}) {
        check_positive(row, key);
      }
    }
  }
}

TEST_CASE("lapi_bandwidth --json: every row parses and carries positive numbers") {
  const auto rows = rows_of(
      "lapi_bandwidth", "--sizes 8,64K --iters 3 --reps 2 --window 4 --policy inline --json");
  // 2 modes x (Amsend + Put) x 2 sizes.
  CHECK(rows.size() == 8);
  for (const auto& row : rows) {
    CHECK(field(row, "bench") == "bandwidth");
    CHECK(field(row, "policy") == "inline");
    for (const char* key : {"size", "window", "lapis_MBps", "ucx_MBps", "ratio"}) {
      check_positive(row, key);
    }
  }
}

TEST_CASE("lapi_bandwidth --checksum none,crc32c: two contexts alternated, every row and ratio") {
  // Above the split-copy threshold: a target done with one context while its
  // origin still waited there once hung the job (the harness now meets on the
  // context after each measurement).
  const auto rows = rows_of("lapi_bandwidth",
                            "--sizes 8,64K --iters 10 --reps 2 --op amsend --policy inline "
                            "--checksum none,crc32c --json");
  // 2 modes x 2 sizes x 2 checksums, then a checksum_cost row per mode and size.
  CHECK(count_rows(rows, "bandwidth") == 8);
  CHECK(count_rows(rows, "checksum_cost") == 4);
  for (const auto& row : rows) {
    if (field(row, "bench") == "bandwidth") {
      CHECK((field(row, "checksum") == "none" || field(row, "checksum") == "crc32c"));
      check_positive(row, "lapis_MBps");
    } else {
      check_positive(row, "crc32c_over_none");
    }
  }
}

TEST_CASE("bad arguments are reported with the argument's name") {
  const LaunchResult bad_size = run_alone("lapi_latency", "--sizes 0");
  CHECK(bad_size.status == 2);
  CHECK(bad_size.output.find("--sizes") != std::string::npos);

  const LaunchResult bad_policy = run_alone("lapi_latency", "--policy eager");
  CHECK(bad_policy.status == 2);
  CHECK(bad_policy.output.find("--policy") != std::string::npos);

  const LaunchResult window_on_latency = run_alone("lapi_latency", "--window 8");
  CHECK(window_on_latency.status == 2);
  CHECK(window_on_latency.output.find("--window") != std::string::npos);
}

TEST_CASE("a task count other than 2 is refused with a clear error, not a hang") {
  SUBCASE("one task (no launcher: singleton bootstrap)") {
    const LaunchResult result = run_alone("lapi_latency", "--sizes 8 --iters 1 --reps 1");
    CHECK(result.status == 1);
    CHECK(result.output.find("exactly 2 tasks") != std::string::npos);
  }
  SUBCASE("four tasks on two cores") {
    LaunchOptions options;
    options.ranks = 4;
    options.timeout_s = 60;
    const LaunchResult result =
        launch(options, "benchmarks/lapi_bandwidth", {"--sizes", "8", "--iters", "1"});
    CHECK(result.status != 0);
    CHECK(result.status != 124);  // lapirun's timeout status: it hung
    CHECK(result.output.find("exactly 2 tasks") != std::string::npos);
  }
}
