// Datatype decoding (envelope/contents round trips for every combiner,
// darray layouts, MPI_Type_match_size, the MPI-1 names) and external32
// byte images (tests/mpi/progs/typedecode.c); at 2 ranks external32 data
// also crosses between ranks.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("envelope/contents, darray, match_size, MPI-1 names and external32") {
  for (int ranks : {1, 2}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("typedecode", ranks); }
  }
}
