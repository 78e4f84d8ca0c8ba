// The paper's interrupt-mode situation at the core level.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("interrupt mode progresses a task that does not call lapi") {
  for (const char* policy : {"inline", "thread", "fiber"}) {
    for (int ranks : {2, 4}) {
      CAPTURE(policy);
      CAPTURE(ranks);
      const auto r = launch({ranks, 120, {"LAPIS_MODE=interrupt", std::string("LAPIS_POLICY=") + policy}},
                            "tests/core/interrupt_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}
