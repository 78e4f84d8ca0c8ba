// MPI 4.0 sessions (tests/mpi/progs/sessions.c): without MPI_Init, with
// MPI_Init before, after and between sessions, the library stopped and
// started again, at every rank count; a bad session without the world
// model is fatal with its message.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/launch.hpp"

using lapis::mpi_tests::expect_ok;
using lapis::mpi_tests::kRankCounts;

TEST_CASE("sessions without the world model") {
  for (int ranks : kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("sessions", ranks, {}, {"no-init"}); }
  }
}

TEST_CASE("sessions beside the world model") {
  for (const char* mode : {"init-before", "init-after", "init-between"}) {
    for (int ranks : {1, 2, 3, 4}) {
      SUBCASE((std::string(mode) + " ranks=" + std::to_string(ranks)).c_str()) {
        expect_ok("sessions", ranks, {}, {mode});
      }
    }
  }
}

TEST_CASE("a session after the library stopped starts it again") {
  for (int ranks : {1, 2, 3, 4}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("sessions", ranks, {}, {"re-init"}); }
  }
}

TEST_CASE("reductions on groups, then every session ends at once (shared memory released after all)") {
  for (int ranks : {4, 8, 16}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("sessions", ranks, {}, {"node-reduce"}); }
  }
}

TEST_CASE("two threads make and finalise sessions and communicators at once") {
  for (int ranks : {1, 2, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("sessions", ranks, {}, {"threads"}); }
  }
}

TEST_CASE("a bad session without the world model is fatal, with its message") {
  lapis::testing::LaunchOptions options;
  options.ranks = 2;
  options.timeout_s = 60;
  auto r = lapis::testing::launch(options, "tests/mpi/progs/sessions", {"fatal-null"});
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.output.find("MPI_Session_get_num_psets: MPI_ERR_SESSION") != std::string::npos);
  CHECK(r.output.find("session is MPI_SESSION_NULL") != std::string::npos);
  CHECK(r.output.find("NOT REACHED") == std::string::npos);
}
