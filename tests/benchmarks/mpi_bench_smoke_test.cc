// Runs the Lapis builds of the MPI benchmark programs (benchmarks/mpi/*.c)
// and mpi_paper_latency under lapirun with tiny sizes and iteration counts,
// and checks their --json output: every expected row is there, parses, and
// carries positive numbers. The flood program runs small (nothing lost, all
// in order, at 4 and 8 ranks); the interrupt test must complete (Lapis
// progresses while the receiver makes no MPI call). Timings are never
// asserted. Nothing is built at run time.

#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/benchmarks/json_rows.hpp"
#include "tests/support/launch.hpp"

namespace {

using namespace lapis::testing;  // json_rows.hpp and launch.hpp

LaunchResult run_ranks(const std::string& bench, int ranks, const std::vector<std::string>& args) {
  LaunchOptions options;
  options.ranks = ranks;
  options.timeout_s = 240;
  return launch(options, "benchmarks/" + bench, args);
}

// Runs a benchmark binary directly (no launcher: a singleton MPI job),
// stdout and stderr.
LaunchResult run_alone(const std::string& bench, const std::string& args) {
  return run_shell(runfile("benchmarks/" + bench) + " " + args + " 2>&1");
}

struct PairCase {
  const char* bench;
  std::vector<std::string> args;
  std::vector<std::size_t> sizes;
  std::vector<const char*> positive;  // keys that must hold numbers > 0
};

}  // namespace

TEST_CASE("the 2-rank MPI benchmarks print one JSON row per size with positive numbers") {
  // 256K is above the MPI eager limit (128K by default): rendezvous runs too.
  const std::vector<PairCase> cases = {
      {"mpi_latency", {"--sizes", "8,256K", "--iters", "5", "--warmup", "1"}, {8, 262144},
       {"size", "iters", "us"}},
      {"mpi_bw", {"--sizes", "8,256K", "--iters", "3", "--window", "4"}, {8, 262144},
       {"size", "window", "iters", "MBps"}},
      {"mpi_bibw", {"--sizes", "8,256K", "--iters", "3", "--window", "4", "--bind"}, {8, 262144},
       {"size", "window", "iters", "MBps"}},
      {"mpi_msgrate", {"--iters", "3", "--window", "8", "--alloc-mem"}, {8},
       {"size", "window", "messages", "msgs_per_s", "us"}},
  };
  for (const auto& c : cases) {
    SUBCASE(c.bench) {
      std::vector<std::string> args = c.args;
      args.push_back("--json");
      const auto result = run_ranks(c.bench, 2, args);
      INFO(std::string(c.bench), " output:\n", result.output);
      REQUIRE(result.status == 0);
      const auto rows = json_rows(result.output, OtherLines::kSkipped);
      REQUIRE(rows.size() == c.sizes.size());
      for (std::size_t i = 0; i < rows.size(); ++i) {
        CHECK(field(rows[i], "bench") == c.bench);
        CHECK(field(rows[i], "impl") == "lapis");
        CHECK(number(rows[i], "size") == static_cast<double>(c.sizes[i]));
        for (const char* key : c.positive) check_positive(rows[i], key);
      }
    }
  }
}

TEST_CASE("mpi_rma_latency and mpi_rma_bw: one row per operation, synchronisation and size") {
  SUBCASE("latency: five operations with flush (passive target) and with fence") {
    const auto result = run_ranks("mpi_rma_latency", 2,
                                  {"--sizes", "8,1K", "--iters", "5", "--warmup", "1", "--json"});
    INFO(result.output);
    REQUIRE(result.status == 0);
    std::multiset<std::string> seen;
    for (const auto& row : json_rows(result.output, OtherLines::kSkipped)) {
      CHECK(field(row, "bench") == "mpi_rma_latency");
      check_positive(row, "us");
      seen.insert(field(row, "sync") + " " + field(row, "op") + " " + field(row, "size"));
    }
    // Put, Get and Accumulate at both sizes, the atomics at 8 bytes, each twice.
    for (const char* sync : {"flush", "fence"}) {
      for (const char* op : {"put", "get", "accumulate"}) {
        for (const char* size : {"8", "1024"}) {
          CHECK_MESSAGE(seen.count(std::string(sync) + " " + op + " " + size) == 1, sync, " ", op,
                        " ", size);
        }
      }
      for (const char* op : {"fetch_and_op", "compare_and_swap"}) {
        CHECK(seen.count(std::string(sync) + " " + op + " 8") == 1);
      }
    }
    CHECK(seen.size() == 16);
  }
  SUBCASE("latency on an MPI_Win_create window: rows say so") {
    const auto result = run_ranks("mpi_rma_latency", 2,
                                  {"--sizes", "8", "--iters", "5", "--warmup", "1", "--win", "create",
                                   "--json"});
    INFO(result.output);
    REQUIRE(result.status == 0);
    const auto rows = json_rows(result.output, OtherLines::kSkipped);
    CHECK(rows.size() == 10);
    for (const auto& row : rows) {
      CHECK(field(row, "win") == "create");
      check_positive(row, "us");
    }
  }
  SUBCASE("bandwidth: Put and Get windows") {
    const auto result = run_ranks("mpi_rma_bw", 2,
                                  {"--sizes", "8,256K", "--iters", "3", "--window", "4", "--json"});
    INFO(result.output);
    REQUIRE(result.status == 0);
    const auto rows = json_rows(result.output, OtherLines::kSkipped);
    REQUIRE(rows.size() == 4);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(field(rows[i], "bench") == "mpi_rma_bw");
      CHECK(field(rows[i], "op") == (i < 2 ? "put" : "get"));
      CHECK(number(rows[i], "size") == (i % 2 == 0 ? 8.0 : 262144.0));
      check_positive(rows[i], "MBps");
    }
  }
}

TEST_CASE("mpi_mt: latency and per-thread rate rows for 1 and 2 threads per rank") {
  const auto result =
      run_ranks("mpi_mt", 2, {"--threads", "1,2", "--iters", "20", "--window", "4", "--json"});
  INFO("mpi_mt output:\n", result.output);
  REQUIRE(result.status == 0);
  const auto rows = json_rows(result.output, OtherLines::kSkipped);
  REQUIRE(rows.size() == 4);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(field(rows[i], "bench") == (i % 2 == 0 ? "mpi_latency_mt" : "mpi_msgrate_mt"));
    CHECK(number(rows[i], "threads") == (i < 2 ? 1.0 : 2.0));
    CHECK(number(rows[i], "size") == 8.0);
    check_positive(rows[i], i % 2 == 0 ? "us" : "msgs_per_s_per_thread");
  }
  const LaunchResult bad = run_alone("mpi_mt", "--threads 0");
  CHECK(bad.status == 2);
  CHECK(bad.output.find("--threads") != std::string::npos);
}

TEST_CASE("mpi_coll: one row per collective and size (barrier once), at 3 ranks") {
  const auto result = run_ranks("mpi_coll", 3,
                                {"--colls", "barrier,allreduce,alltoall", "--sizes", "8,32K",
                                 "--iters", "5", "--json"});
  INFO("mpi_coll output:\n", result.output);
  REQUIRE(result.status == 0);
  const auto rows = json_rows(result.output, OtherLines::kSkipped);
  REQUIRE(rows.size() == 5);
  const char* colls[] = {"barrier", "allreduce", "allreduce", "alltoall", "alltoall"};
  const double sizes[] = {0, 8, 32768, 8, 32768};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(field(rows[i], "coll") == colls[i]);
    CHECK(number(rows[i], "size") == sizes[i]);
    CHECK(number(rows[i], "ranks") == 3.0);
    check_positive(rows[i], "us");
    CHECK(number(rows[i], "max_us") >= number(rows[i], "us"));
  }
  const LaunchResult bad = run_alone("mpi_coll", "--colls barrier,scan");
  CHECK(bad.status == 2);
  CHECK(bad.output.find("--colls") != std::string::npos);
}

TEST_CASE("mpi_interrupt_latency: Lapis delivers while the receiver makes no MPI call") {
  // The program sets LAPIS_MODE=interrupt itself; a generous per-message
  // timeout so a slow (sanitized, oversubscribed) run is not "no progress".
  const auto result = run_ranks("mpi_interrupt_latency", 2,
                                {"--sizes", "8,256K", "--iters", "5", "--timeout", "60", "--json"});
  INFO("output:\n", result.output);
  REQUIRE(result.status == 0);
  const auto rows = json_rows(result.output, OtherLines::kSkipped);
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    CHECK(field(row, "bench") == "mpi_interrupt_latency");
    CHECK(field(row, "progress") == "1");
    for (const char* key : {"size", "iters", "us", "p50_us", "max_us"}) check_positive(row, key);
    CHECK(row.count("seen_us") == 0);  // phases only when asked
  }
  // --phases: each step of a round took time, and none longer than the
  // longest round trip (a reading of the wrong round or rank would be).
  const auto phased = run_ranks("mpi_interrupt_latency", 2,
                                {"--sizes", "8", "--iters", "50", "--timeout", "60", "--phases", "--json"});
  INFO("output:\n", phased.output);
  REQUIRE(phased.status == 0);
  const auto phased_rows = json_rows(phased.output, OtherLines::kSkipped);
  REQUIRE(phased_rows.size() == 1);
  const double longest_trip = 2 * number(phased_rows[0], "max_us");
  for (const char* key : {"send_us", "seen_us", "wait_us", "irecv_us", "reply_send_us", "reply_us"}) {
    check_positive(phased_rows[0], key);
    CHECK(number(phased_rows[0], key) <= longest_trip);
  }
}

TEST_CASE("mpi_flood: nothing lost, nothing extra, every sender's messages in order") {
  struct FloodCase {
    int ranks;
    long count;
    bool nonblocking;  // drain with MPI_Irecv + MPI_Test
  };
  for (const FloodCase c :
       {FloodCase{4, 20000, false}, FloodCase{4, 20000, true}, FloodCase{8, 3000, false}}) {
    SUBCASE((std::to_string(c.ranks) + " ranks" + (c.nonblocking ? ", nonblocking" : "")).c_str()) {
      std::vector<std::string> args = {"--count", std::to_string(c.count), "--timeout", "180",
                                       "--json"};
      if (c.nonblocking) args.push_back("--nonblocking");
      const auto result = run_ranks("mpi_flood", c.ranks, args);
      INFO("output:\n", result.output);
      REQUIRE(result.status == 0);
      const auto rows = json_rows(result.output, OtherLines::kSkipped);
      REQUIRE(rows.size() == 1);
      const auto& row = rows[0];
      CHECK(field(row, "bench") == "mpi_flood");
      CHECK(number(row, "senders") == c.ranks - 1);
      const double total = static_cast<double>(c.count) * (c.ranks - 1);
      CHECK(number(row, "total") == total);
      CHECK(number(row, "received") == total);
      CHECK(number(row, "lost") == 0);
      CHECK(number(row, "out_of_order") == 0);
      CHECK(number(row, "extra") == 0);
      CHECK(number(row, "ok") == 1);
      CHECK(field(row, "drain") == (c.nonblocking ? "irecv_test" : "recv"));
      for (const char* key : {"send_s", "total_s", "rss_before_mib"}) check_positive(row, key);
      CHECK(number(row, "rss_growth_mib") >= 0);
    }
  }
}

TEST_CASE("mpi_paper_latency: raw Put, raw Amsend and all three variants in one invocation") {
  // The driver starts its own lapirun jobs (found in the runfiles).
  const LaunchResult result = run_alone(
      "mpi_paper_latency",
      "--sizes 8,32K --iters 5 --reps 1 --inner-reps 1 --mode polling --timeout 120 --json");
  INFO("output:\n", result.output);
  REQUIRE(result.status == 0);
  const auto rows = json_rows(result.output, OtherLines::kSkipped);
  REQUIRE(rows.size() == 10);  // 5 curves x 2 sizes
  std::set<std::string> variants;
  for (const auto& row : rows) {
    CHECK(field(row, "bench") == "paper");
    CHECK(field(row, "mode") == "polling");
    variants.insert(field(row, "variant"));
    for (const char* key : {"size", "us", "min_us"}) check_positive(row, key);
    if (field(row, "variant").rfind("raw_", 0) != 0) check_positive(row, "over_raw_amsend");
  }
  CHECK(variants ==
        std::set<std::string>{"raw_put", "raw_amsend", "base", "counters", "enhanced"});
}

TEST_CASE("bad arguments and wrong rank counts end with a clear message, not a hang") {
  SUBCASE("bad --sizes is named, exit 2") {
    const LaunchResult r = run_alone("mpi_latency", "--sizes 0");
    CHECK(r.status == 2);
    CHECK(r.output.find("--sizes") != std::string::npos);
  }
  SUBCASE("an option the program does not take is named, exit 2") {
    const LaunchResult r = run_alone("mpi_bw", "--count 5");
    CHECK(r.status == 2);
    CHECK(r.output.find("--count") != std::string::npos);
  }
  SUBCASE("the one-sided programs name what they do not take, exit 2") {
    const LaunchResult bw = run_alone("mpi_rma_bw", "--window 0");
    CHECK(bw.status == 2);
    CHECK(bw.output.find("--window") != std::string::npos);
    const LaunchResult lat = run_alone("mpi_rma_latency", "--window 4");
    CHECK(lat.status == 2);
    CHECK(lat.output.find("--window") != std::string::npos);
    const LaunchResult win = run_alone("mpi_rma_latency", "--win shared");
    CHECK(win.status == 2);
    CHECK(win.output.find("--win: needs allocate or create") != std::string::npos);
    const LaunchResult bare = run_alone("mpi_rma_bw", "--win");
    CHECK(bare.status == 2);
    CHECK(bare.output.find("--win") != std::string::npos);
  }
  SUBCASE("a one-sided program alone (one rank)") {
    const LaunchResult r = run_alone("mpi_rma_bw", "--sizes 8 --iters 1");
    CHECK(r.status == 1);
    CHECK(r.output.find("exactly 2 ranks") != std::string::npos);
  }
  SUBCASE("--nonblocking belongs to mpi_flood only: named, exit 2") {
    const LaunchResult r = run_alone("mpi_latency", "--nonblocking");
    CHECK(r.status == 2);
    CHECK(r.output.find("--nonblocking") != std::string::npos);
  }
  SUBCASE("--phases belongs to mpi_interrupt_latency only: named, exit 2") {
    const LaunchResult r = run_alone("mpi_latency", "--phases");
    CHECK(r.status == 2);
    CHECK(r.output.find("--phases") != std::string::npos);
  }
  SUBCASE("bad --variants of mpi_paper_latency is named, exit 2") {
    const LaunchResult r = run_alone("mpi_paper_latency", "--variants fast");
    CHECK(r.status == 2);
    CHECK(r.output.find("--variants") != std::string::npos);
  }
  SUBCASE("a pair benchmark alone (one rank)") {
    const LaunchResult r = run_alone("mpi_bw", "--sizes 8 --iters 1");
    CHECK(r.status == 1);
    CHECK(r.output.find("exactly 2 ranks") != std::string::npos);
  }
  SUBCASE("the latency benchmark alone (one rank; it takes 2 or more)") {
    const LaunchResult r = run_alone("mpi_latency", "--sizes 8 --iters 1");
    CHECK(r.status == 1);
    CHECK(r.output.find("at least 2 ranks") != std::string::npos);
  }
  SUBCASE("the latency benchmark on three ranks: the third only joins the barriers") {
    const auto r = run_ranks("mpi_latency", 3, {"--sizes", "8", "--iters", "2", "--json"});
    CHECK(r.status == 0);
    CHECK(r.output.find("\"bench\":\"mpi_latency\"") != std::string::npos);
  }
  SUBCASE("a pair benchmark on four ranks") {
    const auto r = run_ranks("mpi_msgrate", 4, {"--iters", "1"});
    CHECK(r.status != 0);
    CHECK(r.status != 124);  // lapirun's timeout status: it hung
    CHECK(r.output.find("exactly 2 ranks") != std::string::npos);
  }
}
