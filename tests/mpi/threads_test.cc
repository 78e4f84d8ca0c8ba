// Overlapping MPI calls from two threads under MPI_THREAD_SERIALIZED are
// refused with MPI_ERR_OTHER, and the call already inside completes normally.
#include <doctest/doctest.h>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("a call overlapping another thread's blocking receive is refused") {
  lapis::mpi_tests::expect_ok("threads", 2);
  lapis::mpi_tests::expect_ok("threads", 2, {"LAPIS_MODE=interrupt"});
}
