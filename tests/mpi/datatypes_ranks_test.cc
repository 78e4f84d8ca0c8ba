// MPI derived datatypes between ranks: non-contiguous to contiguous and back, struct, subarray, pack/unpack, MPI_BOTTOM, truncation.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("datatypes at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("datatypes", ranks); }
  }
}

TEST_CASE("datatypes with every message by rendezvous") {
  expect_ok("datatypes", 3, {"LAPIS_EAGER_LIMIT=0"});
}
