// Runs amsend_ranks under lapirun in both progress modes and all three
// completion policies, with more ranks than cores.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("amsend in every mode and policy") {
  for (const char* mode : {"polling", "interrupt"}) {
    for (const char* policy : {"inline", "thread", "fiber"}) {
      for (int ranks : {2, 4}) {
        CAPTURE(mode);
        CAPTURE(policy);
        CAPTURE(ranks);
        const auto r = launch({ranks, 120, {std::string("LAPIS_MODE=") + mode,
                                            std::string("LAPIS_POLICY=") + policy}},
                              "tests/core/amsend_ranks");
        INFO(r.output);
        CHECK(r.status == 0);
      }
    }
  }
}
