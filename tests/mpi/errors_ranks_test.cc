// MPI argument checking with MPI_ERRORS_RETURN: each bad argument gets its error class.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("errors at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("errors", ranks); }
  }
}
