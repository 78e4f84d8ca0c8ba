// MPI 4.1's buffered-send buffers (tests/mpi/progs/bsend_buffers.c): flush
// and iflush, communicator and session buffers, MPI_BUFFER_AUTOMATIC.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/launch.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("buffered-send buffers at 2 and 3 ranks") {
  for (int ranks : {2, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("bsend_buffers", ranks); }
  }
}

TEST_CASE("buffered-send buffers over each engine variant and in interrupt mode") {
  for (const char* setting : {"LAPIS_MPI_VARIANT=counters", "LAPIS_MPI_VARIANT=base",
                              "LAPIS_MODE=interrupt", "LAPIS_EAGER_LIMIT=0"}) {
    SUBCASE(setting) { expect_ok("bsend_buffers", 2, {setting}); }
  }
}

TEST_CASE("a second buffer for one communicator is fatal, and the message says so") {
  lapis::testing::LaunchOptions options;
  options.ranks = 2;
  options.timeout_s = 60;
  auto r = lapis::testing::launch(options, "tests/mpi/progs/bsend_buffers", {"fatal"});
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.output.find("MPI_Comm_attach_buffer: MPI_ERR_BUFFER") != std::string::npos);
  CHECK(r.output.find("the communicator has a buffer attached already") != std::string::npos);
  CHECK(r.output.find("FAILED") == std::string::npos);
}
