// Runs benchmarks/compare_mpi end to end on a tiny configuration (Lapis
// only, one size, one repetition, a 100-message flood) from this test's
// runfiles, so that a step whose program is not built, or whose output the
// script no longer reads, fails here instead of on a reader's machine.
// Timings are never asserted: only that every step produced its rows.

#include <filesystem>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "tests/benchmarks/json_rows.hpp"
#include "tests/support/launch.hpp"
#include "tests/support/test_hosts.hpp"

using namespace lapis::testing;  // json_rows.hpp and launch.hpp

namespace {

std::string compare_mpi_command(const std::string& args) {
  // Runfiles hold benchmarks/ and runtime/ side by side, as bazel-bin does.
  const std::string root =
      std::filesystem::path(runfile("runtime/lapirun")).parent_path().parent_path().string();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(tmp != nullptr ? tmp : "/tmp") + "/compare_mpi_out";
  return "python3 " + runfile("benchmarks/compare_mpi") + " --bin-dir " + root + " --out " + out +
         " " + args;
}

}  // namespace

TEST_CASE("compare_mpi --quick runs every step from the binaries it names") {
  const LaunchResult r = run_shell(compare_mpi_command(
      "--quick --json --impls lapis --reps 1 --sizes 8 --flood-count 100 --no-plot"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto rows = json_rows(r.output, OtherLines::kRejected);
  std::set<std::string> benches;
  for (const auto& row : rows) benches.insert(field(row, "bench"));
  for (const char* bench : {"latency_mode", "mpi_latency", "mpi_bw", "mpi_bibw", "mpi_msgrate",
                            "mpi_interrupt_latency", "paper", "mpi_flood", "mpi_rma_latency",
                            "mpi_rma_bw", "mpi_latency_mt", "mpi_msgrate_mt", "mpi_coll", "targets"}) {
    CHECK_MESSAGE(benches.count(bench) == 1, "no row for ", bench);
  }
  for (const auto& row : rows) {
    const std::string bench = field(row, "bench");
    if (bench == "latency_mode") {
      check_positive(row, "ucx_8b_us");
      CHECK((field(row, "mode") == "fast" || field(row, "mode") == "slow"));
    } else if (bench == "mpi_latency") {
      check_positive(row, "lapis_us");
      check_positive(row, "ucx_us");
    } else if (bench == "mpi_rma_latency" && field(row, "sync") == "flush" &&
               (field(row, "op") == "put" || field(row, "op") == "get")) {
      check_positive(row, "lapis_us");
      check_positive(row, "lapis-core_us");  // the core's own Put/Get beside MPI's
    } else if (bench == "mpi_rma_bw") {
      check_positive(row, "lapis_MBps");
    } else if (bench == "mpi_coll") {
      check_positive(row, "lapis_us");
      CHECK((field(row, "ranks") == "2" || field(row, "ranks") == "4"));
    } else if (bench == "mpi_latency_mt") {
      check_positive(row, "lapis_us");
      CHECK((field(row, "threads") == "1" || field(row, "threads") == "2"));
    } else if (bench == "mpi_msgrate_mt") {
      check_positive(row, "lapis_msgs_per_s_per_thread");
    } else if (bench == "targets") {
      CHECK(field(row, "reps") == "1");  // what the verdicts rest on
    } else if (bench == "mpi_flood") {
      CHECK(field(row, "lapis_ok") == "1");
      CHECK(field(row, "lapis_lost") == "0");
    }
  }
}

TEST_CASE("compare_mpi --only runs the steps named and no other") {
  const LaunchResult r = run_shell(compare_mpi_command(
      "--quick --json --impls lapis --reps 1 --sizes 8 --only rma,paper --no-plot"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::set<std::string> benches;
  for (const auto& row : json_rows(r.output, OtherLines::kRejected)) benches.insert(field(row, "bench"));
  for (const char* bench : {"paper", "mpi_rma_latency", "mpi_rma_bw"}) {
    CHECK_MESSAGE(benches.count(bench) == 1, "no row for ", bench);
  }
  for (const char* bench : {"mpi_latency", "mpi_bw", "mpi_interrupt_latency", "mpi_flood"}) {
    CHECK_MESSAGE(benches.count(bench) == 0, "a row for ", bench, ", a step not asked for");
  }
}

TEST_CASE("compare_mpi --hosts measures across two test hosts, and only that") {
  TestHosts probe(1);
  if (probe.skip_if_unavailable("compare_mpi --hosts")) return;
  const LaunchResult r = run_shell(compare_mpi_command("--hosts --json --impls lapis --reps 1 --no-plot"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::set<std::string> benches;
  for (const auto& row : json_rows(r.output, OtherLines::kRejected)) {
    const std::string bench = field(row, "bench");
    benches.insert(bench);
    if (bench == "mpi_latency_hosts") check_positive(row, "lapis_us");
    if (bench == "mpi_bw_hosts") check_positive(row, "lapis_MBps");
  }
  CHECK(benches == std::set<std::string>{"mpi_latency_hosts", "mpi_bw_hosts", "targets"});
}

TEST_CASE("compare_mpi names a bad argument") {
  for (const char* args :
       {"--sizes 0", "--sizes 8,x", "--reps 0", "--impls lapis,nosuch", "--only rma,nosuch"}) {
    CAPTURE(args);
    const LaunchResult r = run_shell(compare_mpi_command(std::string(args) + " 2>&1"));
    CHECK(r.status == 2);
    const std::string name = std::string(args).substr(0, std::string(args).find(' '));
    CHECK(r.output.find(name) != std::string::npos);
  }
}
