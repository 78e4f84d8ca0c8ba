// Put/Get/Rmw/Fence/Address_init under lapirun, more ranks than cores.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("rma in both modes") {
  for (const char* mode : {"polling", "interrupt"}) {
    for (int ranks : {2, 4, 8}) {
      CAPTURE(mode);
      CAPTURE(ranks);
      // One host, UCX's defaults: transport memory must map (rma_ranks' map_remote case).
      const auto r =
          launch({.ranks = ranks,
                  .timeout_s = 180,
                  .env = {std::string("LAPIS_MODE=") + mode, "LAPIS_TEST_EXPECT_MAPPED=1"},
                  .flags = {}},
                 "tests/core/rma_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}
