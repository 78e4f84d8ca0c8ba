// MPIX_Grequest_start (poll_fn, wait_fn) through every Wait/Test form,
// request classes, a failing poll_fn, the GPU queries, and their bad
// arguments (tests/mpi/progs/grequest_mpix.c); also at MPI_THREAD_MULTIPLE,
// whose waits poll from the same idle hook that lets other threads in.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("self-progressing generalized requests and the GPU queries") {
  for (int ranks : {1, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      lapis::mpi_tests::expect_ok("grequest_mpix", ranks);
    }
  }
}

TEST_CASE("the same at MPI_THREAD_MULTIPLE") {
  lapis::mpi_tests::expect_ok("grequest_mpix", 2, {"GREQUEST_MULTIPLE=1"});
}
