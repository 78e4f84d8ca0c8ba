// The MPI tool information interface (tests/mpi/progs/tool_info.c): the
// LAPIS_* control variables, the "lapis" category, MPI_T_init_thread /
// MPI_T_finalize before MPI_Init and after MPI_Finalize.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("MPI_T at 1 and 2 ranks") {
  for (int ranks : {1, 2}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      expect_ok("tool_info", ranks, {"LAPIS_EAGER_LIMIT=12345", "LAPIS_MODE=polling"});
    }
  }
}
