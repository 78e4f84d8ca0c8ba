// The MPI-4.0 large-count ("_c") forms (tests/mpi/progs/large_count.c):
// every form with small counts against the int forms at 1-8 ranks, counts
// beyond INT_MAX point to point (contiguous and strided) and in a
// reduction, and bad arguments.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("large-count forms with small counts match the int forms") {
  for (int ranks : lapis::mpi_tests::kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("large_count", ranks, {}, {"small"}); }
  }
}

TEST_CASE("counts beyond INT_MAX move and reduce every element") {
  expect_ok("large_count", 2, {}, {"large"});
}

TEST_CASE("large-count forms refuse bad arguments with the right class") {
  for (int ranks : {1, 2}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("large_count", ranks, {}, {"errors"}); }
  }
}
