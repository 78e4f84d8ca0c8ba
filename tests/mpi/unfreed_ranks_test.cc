// MPI_Finalize with communicators, a window, a datatype, a group, an op, an
// info, an error handler, a keyval and a persistent request left unfreed
// (tests/mpi/progs/unfreed.c): the job ends cleanly at every rank count.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("MPI_Finalize releases what the program left, at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("unfreed", ranks); }
  }
}

TEST_CASE("the same in interrupt mode") { expect_ok("unfreed", 4, {"LAPIS_MODE=interrupt"}); }
