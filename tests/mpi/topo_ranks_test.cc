// Virtual topologies and neighbourhood collectives (tests/mpi/progs/topo.c)
// against references the program computes, at 1, 2, 3, 4, 5 and 8 ranks
// (1 and 2 ranks make a periodic neighbour appear twice), over rendezvous
// and in interrupt mode, and a fatal error's message.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/launch.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("topologies and neighbourhood collectives at 1, 2, 3, 4, 5 and 8 ranks") {
  for (int ranks : {1, 2, 3, 4, 5, 8}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("topo", ranks); }
  }
}

TEST_CASE("neighbourhood collectives over rendezvous and in interrupt mode") {
  for (const char* setting : {"LAPIS_EAGER_LIMIT=0", "LAPIS_MODE=interrupt"}) {
    SUBCASE(setting) { expect_ok("topo", 4, {setting}); }
  }
}

TEST_CASE("a topology call on a communicator without one names the function and the need") {
  lapis::testing::LaunchOptions options;
  options.ranks = 2;
  options.timeout_s = 60;
  auto r = lapis::testing::launch(options, "tests/mpi/progs/topo", {"fatal"});
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.output.find("MPI_Cart_shift: MPI_ERR_TOPOLOGY") != std::string::npos);
  CHECK(r.output.find("comm has no Cartesian topology") != std::string::npos);
  CHECK(r.output.find("FAILED") == std::string::npos);
}
