// MPI point-to-point: every mode, sizes across the eager limit, wildcards, probes, completion families, persistent requests, cancel.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("p2p at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("p2p", ranks); }
  }
}

// The same program over each engine variant and protocol extreme.
TEST_CASE("p2p over every variant, protocol extreme and progress mode") {
  const char* settings[] = {
      "LAPIS_MPI_VARIANT=base",  "LAPIS_MPI_VARIANT=counters", "LAPIS_MPI_VARIANT=enhanced",
      "LAPIS_EAGER_LIMIT=0",     "LAPIS_EAGER_LIMIT=1g",       "LAPIS_MODE=interrupt",
  };
  for (const char* setting : settings) {
    SUBCASE(setting) { expect_ok("p2p", 4, {setting}); }
  }
}
