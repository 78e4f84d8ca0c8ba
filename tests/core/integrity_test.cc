// Runs integrity_ranks under lapirun with LAPIS_CHECKSUM=crc32c: without
// faults, and with LAPIS_FAULT_CORRUPT on each path (shared-memory ring,
// UCX eager, rendezvous, staged and split copy, put, get, rmw) in polling and interrupt
// mode, at 2 ranks and at 8 (more than cores). Under ThreadSanitizer only the
// interrupt-mode runs (worth_running; half of its 54 s there).

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/support/launch.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::testing::launch;

namespace {

std::string tmp_dir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

}  // namespace

TEST_CASE("checksums: intact data, and every injected corruption repaired on every path") {
  struct Run {
    int ranks;
    std::vector<std::string> env;
  };
  const std::string on = "LAPIS_CHECKSUM=crc32c";
  const std::vector<Run> runs = {
      {2, {on}},
      // A frame for a target that sleeps goes through UCX instead of the ring, so how many
      // take the ring depends on the load: 32 injected when quiet, 10 once in a loaded
      // sanitizer CI run. 6 still shows the ring path hit again and again.
      {2, {on, "LAPIS_FAULT_CORRUPT=shm:3", "INTEGRITY_MIN_INJECTED=6"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=eager:3", "LAPIS_SHM=0", "INTEGRITY_MIN_INJECTED=20"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=rndv:2", "LAPIS_SPLIT_COPY=0", "INTEGRITY_MIN_INJECTED=10"}},
      // Staged (a CRC per 64 KiB chunk), then split copy's own checks.
      {2, {on, "LAPIS_FAULT_CORRUPT=split:2", "INTEGRITY_MIN_INJECTED=10"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=split:2", "LAPIS_STAGED_COPY=0", "INTEGRITY_MIN_INJECTED=10"}},
      // Polling mode holds a split copy's check until the next split_go; interrupt mode
      // checks at once, and only a split-only run shows that it checks at all (6 when quiet).
      {2, {on, "LAPIS_FAULT_CORRUPT=split:2", "LAPIS_MODE=interrupt", "INTEGRITY_MIN_INJECTED=3"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=put,get:3", "INTEGRITY_MIN_INJECTED=20"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=rmw:3", "INTEGRITY_MIN_INJECTED=60"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=all:3", "LAPIS_MODE=interrupt", "INTEGRITY_MIN_INJECTED=40"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=all:3", "LAPIS_MODE=interrupt", "LAPIS_SHM=0",
           "INTEGRITY_MIN_INJECTED=40"}},
      {8, {on, "LAPIS_FAULT_CORRUPT=all:5", "INTEGRITY_MIN_INJECTED=80"}},
      // A flood past the replay ring while the target makes no call: frames
      // damaged early are NACKed after the ring wrapped over them.
      {2, {on, "LAPIS_FAULT_CORRUPT=shm,eager:64", "INTEGRITY_FLOOD_DIR=" + tmp_dir(),
           "INTEGRITY_MIN_INJECTED=300"}},
      // Every transmission damaged: operations fail after their retries.
      {2, {on, "LAPIS_FAULT_CORRUPT=all:1", "INTEGRITY_EXPECT_FAILURE=1"}},
      {2, {on, "LAPIS_FAULT_CORRUPT=all:1", "INTEGRITY_EXPECT_FAILURE=1", "LAPIS_MODE=interrupt"}},
  };
  for (const Run& run : runs) {
    if (!lapis::testing::worth_running(run.env)) continue;
    CAPTURE(run.ranks);
    std::string env;
    for (const std::string& e : run.env) env += e + " ";
    CAPTURE(env);
    const auto r = launch({.ranks = run.ranks, .timeout_s = 180, .env = run.env, .flags = {}},
                          "tests/core/integrity_ranks");
    INFO(r.output);
    CHECK(r.status == 0);
  }
}
