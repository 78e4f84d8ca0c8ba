// Bad input, remote faults and two contexts, under lapirun.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("faults are refused and reported") {
  for (const char* mode : {"polling", "interrupt"}) {
    for (int ranks : {2, 4}) {
      CAPTURE(mode);
      CAPTURE(ranks);
      const auto r = launch({.ranks = ranks,
                             .timeout_s = 120,
                             .env = {std::string("LAPIS_MODE=") + mode},
                             .flags = {}},
                            "tests/core/faults_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}
