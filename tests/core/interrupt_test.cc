// The paper's interrupt-mode situation at the core level.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("interrupt mode progresses a task that does not call lapi") {
  for (const char* policy : {"inline", "thread", "fiber"}) {
    for (int ranks : {2, 4}) {
      CAPTURE(policy);
      CAPTURE(ranks);
      const auto r =
          launch({.ranks = ranks,
                  .timeout_s = 120,
                  .env = {"LAPIS_MODE=interrupt", std::string("LAPIS_POLICY=") + policy},
                  .flags = {}},
                 "tests/core/interrupt_ranks", {"--test-case-exclude=hand_over_progress*"});
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}

TEST_CASE("hand_over_progress: the progress thread takes over without waiting out its grace") {
  // A grace (10 s) beyond the ranks' 5 s spin deadline: the test can
  // pass only through the hand-over.
  const auto r = launch({.ranks = 2,
                         .timeout_s = 120,
                         .env = {"LAPIS_MODE=interrupt", "LAPIS_TAKEOVER_GRACE_US=10000000"},
                         .flags = {}},
                        "tests/core/interrupt_ranks", {"--test-case=hand_over_progress*"});
  INFO(r.output);
  CHECK(r.status == 0);
}

TEST_CASE("LAPIS_PROGRESS_NICE sets the progress thread's nice value") {
  const auto r = launch({.ranks = 2,
                         .timeout_s = 120,
                         .env = {"LAPIS_MODE=interrupt", "LAPIS_PROGRESS_NICE=5"},
                         .flags = {}},
                        "tests/core/interrupt_ranks", {"--test-case=the progress thread is named*"});
  INFO(r.output);
  CHECK(r.status == 0);
}
