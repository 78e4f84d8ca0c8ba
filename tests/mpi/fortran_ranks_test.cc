// Fortran programs (tests/mpi/progs/fortran_*) as 1, 2, 3, 4 and 8 ranks:
// mpif.h in fixed form (point-to-point, statuses, collectives on Fortran
// types, a derived type, MPI_IN_PLACE, MPI_WTIME) and the `mpi` module
// (strings, Fortran error handler and user op, invalid handles, LOGICALs,
// MAXLOC pairs, 1-based indices, attributes, MPI_BOTTOM) and the mpi_f08
// module (handle types, TYPE(MPI_Status), optional ierror, f08 user op),
// array sections as mpi_f08 buffers, and the profiling interface (mpif.h, mpi_f08).
// MPI-IO from mpif.h and mpi_f08 (fortran_io*).
// And an invalid handle from Fortran under MPI_ERRORS_ARE_FATAL.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("mpif.h program at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_fixed", ranks); }
  }
}

TEST_CASE("use mpi program at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_module", ranks); }
  }
}

TEST_CASE("use mpi_f08 program at 1, 2, 3, 4 and 8 ranks") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_f08", ranks); }
  }
}

TEST_CASE("sessions from mpi_f08 (TYPE(MPI_Session), a communicator from mpi://WORLD)") {
  for (int ranks : {1, 2, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_sessions", ranks); }
  }
}

TEST_CASE("the profiling interface from mpif.h: the program's MPI_SEND reaches PMPI_SEND") {
  for (int ranks : {1, 2, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_profile", ranks); }
  }
}

TEST_CASE("the profiling interface from mpi_f08: the program's MPI_Send_f08ts reaches PMPI_Send") {
  for (int ranks : {1, 2, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_f08_profile", ranks); }
  }
}

TEST_CASE("array sections as mpi_f08 buffers, nonblocking and persistent too") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_f08_sections", ranks); }
  }
}

TEST_CASE("MPI-IO from mpif.h (a Fortran file error handler too) and from mpi_f08") {
  for (int ranks : {1, 2, 3, 4}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      expect_ok("fortran_io", ranks);
      expect_ok("fortran_io_f08", ranks);
    }
  }
}

TEST_CASE("Fortran and C in one program share statuses (MPI_Status_f2c, MPI_F_STATUS_IGNORE)") {
  for (int ranks : {1, 2}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("fortran_mixed", ranks); }
  }
}

TEST_CASE("an invalid handle from Fortran under MPI_ERRORS_ARE_FATAL ends the job with the error") {
  lapis::testing::LaunchOptions options;
  options.ranks = 2;
  options.timeout_s = 60;
  auto r = lapis::testing::launch(options, "tests/mpi/progs/fortran_fatal", {});
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);  // ended by itself, not by the timeout
  CHECK(r.output.find("MPI_Comm_size") != std::string::npos);
  CHECK(r.output.find("MPI_ERR_COMM") != std::string::npos);
  CHECK(r.output.find("NOT REACHED") == std::string::npos);
}
