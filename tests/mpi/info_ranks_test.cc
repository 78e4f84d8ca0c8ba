// MPI_Info objects and MPI_INFO_ENV (tests/mpi/progs/info.c) at 1 and 2 ranks.
#include <doctest/doctest.h>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("info objects, MPI_INFO_ENV and their bad arguments") {
  for (int ranks : {1, 2}) {
    SUBCASE(ranks == 1 ? "ranks=1" : "ranks=2") { lapis::mpi_tests::expect_ok("info", ranks); }
  }
}
