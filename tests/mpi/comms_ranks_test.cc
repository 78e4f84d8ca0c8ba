// MPI communicators and groups: dup/split/create isolation, group algebra, attributes, error handlers.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("comms at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("comms", ranks); }
  }
}

TEST_CASE("comms with every message by rendezvous and with the base variant") {
  expect_ok("comms", 4, {"LAPIS_EAGER_LIMIT=0"});
  expect_ok("comms", 4, {"LAPIS_MPI_VARIANT=base"});
}
