// Put/Get/Rmw/Fence/Address_init under lapirun, more ranks than cores.

#include <doctest/doctest.h>

#include "tests/support/launch.hpp"

using lapis::testing::launch;

TEST_CASE("rma in both modes") {
  for (const char* mode : {"polling", "interrupt"}) {
    for (int ranks : {2, 4, 8}) {
      CAPTURE(mode);
      CAPTURE(ranks);
      const auto r = launch({ranks, 180, {std::string("LAPIS_MODE=") + mode}}, "tests/core/rma_ranks");
      INFO(r.output);
      CHECK(r.status == 0);
    }
  }
}
