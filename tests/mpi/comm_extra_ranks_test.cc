// MPI_Comm_create_group, split_type, dup_with_info, set/get_info, datatype
// attributes, window keyvals, MPI_Add_error_*, generalized requests,
// MPI_Pcontrol and MPI_Isendrecv(_replace) with their bad arguments
// (tests/mpi/progs/comm_extra.c).
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("communicator variants, attributes, error codes, generalized requests, isendrecv") {
  for (int ranks : {1, 2, 3, 5, 8}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      lapis::mpi_tests::expect_ok("comm_extra", ranks);
    }
  }
}

TEST_CASE("isendrecv over rendezvous") {
  lapis::mpi_tests::expect_ok("comm_extra", 3, {"LAPIS_EAGER_LIMIT=0"});
}
