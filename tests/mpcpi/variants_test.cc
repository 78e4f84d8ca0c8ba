// Runs one rank program (RANK_PROGRAM, set per target in BUILD) under
// lapirun at 2, 3, 4 and 8 ranks (more ranks than cores) in each MPCPI
// variant, plus eager limits 0 and "infinite" and interrupt-mode progress.
// Under a sanitizer the 8-rank jobs are left to the default build. Under
// ThreadSanitizer, in polling mode, only the base variant, and not the eager
// limits: the other jobs start no thread (worth_running; 100 s of TSan's CI
// stage for p2p_test).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/support/launch.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::testing::launch;

namespace {

void run(int ranks, std::vector<std::string> env) {
  CAPTURE(ranks);
  std::string shown;
  for (const auto& e : env) shown += e + " ";
  CAPTURE(shown);
  const auto r = launch({.ranks = ranks, .timeout_s = 240, .env = env, .flags = {}}, RANK_PROGRAM);
  INFO(r.output);
  CHECK(r.status == 0);
}

}  // namespace

TEST_CASE("every variant and rank count") {
  for (const char* variant : {"enhanced", "base", "counters"}) {
    for (int ranks : {2, 3, 4, 8}) {
      if (ranks == 8 && lapis::testing::kSanitized) continue;
      // ThreadSanitizer: 87 s of a CI run at 2, 3 and 4 ranks; 3 (a rank without a
      // ping-pong partner) tests matching, not threads, which 2 and 4 meet as well.
      if (ranks == 3 && lapis::testing::kThreadSanitizer) continue;
      const std::vector<std::string> env = {std::string("LAPIS_MPI_VARIANT=") + variant};
      if (!lapis::testing::worth_running(env)) continue;
      run(ranks, env);
    }
  }
}

TEST_CASE("eager limit 0 and effectively infinite" *
          doctest::skip(lapis::testing::kThreadSanitizer)) {
  for (const char* limit : {"0", "1g"}) {
    run(3, {std::string("LAPIS_EAGER_LIMIT=") + limit});
  }
}

TEST_CASE("interrupt-mode progress") {
  for (const char* variant : {"enhanced", "base", "counters"}) {
    run(4, {"LAPIS_MODE=interrupt", std::string("LAPIS_MPI_VARIANT=") + variant});
  }
}
