// Fence and Gfence over Amsend floods, both modes, 2..8 ranks.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("fence in both modes") {
  for (const char* mode : {"polling", "interrupt"}) {
    for (int ranks : {2, 4, 8}) {
      CAPTURE(mode);
      CAPTURE(ranks);
      const auto r = launch({.ranks = ranks,
                             .timeout_s = 180,
                             .env = {std::string("LAPIS_MODE=") + mode},
                             .flags = {}},
                            "tests/core/fence_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}
