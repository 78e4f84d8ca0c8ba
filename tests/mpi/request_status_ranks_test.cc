// MPI 4.1's non-destructive request queries, status field accessors and
// MPI_Type_get_value_index, with their bad arguments
// (tests/mpi/progs/request_status.c).
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("MPI_Request_get_status_any/all/some, status accessors, MPI_Type_get_value_index") {
  for (int ranks : {1, 2, 4}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      lapis::mpi_tests::expect_ok("request_status", ranks);
    }
  }
}
