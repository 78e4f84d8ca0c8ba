// MPI 4.0 partitioned point-to-point (tests/mpi/progs/partitioned.c): equal
// and different partition counts, MPI_Pready orders and forms, epochs,
// MPI_Parrived polling, derived datatypes, bad arguments; waits under
// MPI_THREAD_MULTIPLE while another thread marks partitions
// (progs/partitioned_threads.c).
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("partitioned at 1, 2, 3 and 4 ranks") {
  for (int ranks : {1, 2, 3, 4}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("partitioned", ranks); }
  }
}

// Both protocols and interrupt mode.
TEST_CASE("partitioned under protocol extremes and interrupt mode") {
  for (const char* setting : {"LAPIS_EAGER_LIMIT=0", "LAPIS_EAGER_LIMIT=1g", "LAPIS_MODE=interrupt"}) {
    SUBCASE(setting) { expect_ok("partitioned", 3, {setting}); }
  }
}

// MPI_Wait on a partitioned send while another thread still marks its
// partitions (MPI_THREAD_MULTIPLE), with more ranks than cores too.
TEST_CASE("partitioned sends waited for while another thread marks them ready") {
  for (int ranks : {1, 2, 4}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("partitioned_threads", ranks); }
  }
  SUBCASE("interrupt mode") { expect_ok("partitioned_threads", 3, {"LAPIS_MODE=interrupt"}); }
}
