// Runs split_ranks under lapirun: split copy on at 2, 4 and 8 ranks (more
// than cores) and in interrupt mode, off (LAPIS_SPLIT_COPY=0), and as the
// default decides (auto: off with more tasks than cores). Under
// ThreadSanitizer only the interrupt-mode run (worth_running).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/launch.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::testing::launch;

TEST_CASE("split copy on and off, polling and interrupt mode") {
  struct Run {
    int ranks;
    std::vector<std::string> env;
  };
  const std::vector<Run> runs = {
      {2, {"LAPIS_SPLIT_COPY=1"}},
      {4, {"LAPIS_SPLIT_COPY=1"}},
      {8, {"LAPIS_SPLIT_COPY=1"}},
      {2, {"LAPIS_SPLIT_COPY=1", "LAPIS_MODE=interrupt"}},
      {3, {"LAPIS_SPLIT_COPY=0"}},
      // Left off where the host has more tasks than cores (split_ranks checks which applies).
      {2, {"LAPIS_SPLIT_COPY=auto"}},
      {4, {"LAPIS_SPLIT_COPY=auto"}},
  };
  for (const Run& run : runs) {
    if (!lapis::testing::worth_running(run.env)) continue;
    CAPTURE(run.ranks);
    CAPTURE(run.env.back());
    const auto r = launch({.ranks = run.ranks, .timeout_s = 180, .env = run.env, .flags = {}},
                          "tests/core/split_ranks");
    INFO(r.output);
    CHECK(r.status == 0);
  }
}
