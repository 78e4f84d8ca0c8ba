// MPI hello world: init, ranks, processor name, version, finalize.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("hello at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("hello", ranks); }
  }
}
