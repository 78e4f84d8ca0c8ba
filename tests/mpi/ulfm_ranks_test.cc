// ULFM under lapirun --continue-on-failure, 4 ranks (tests/mpi/progs/ulfm.c):
// agree, shrink, revoke and the acknowledgements with every rank alive,
// then after rank 3 is killed; the three left finalize.

#include <string>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("MPIX_Comm_revoke/agree/shrink/failure_ack before and after a rank is killed") {
  // Polling mode runs collectives through the node segment, unless
  // LAPIS_COLL_SHM=off; interrupt mode through point-to-point.
  for (const char* setting : {"LAPIS_MODE=polling", "LAPIS_COLL_SHM=off", "LAPIS_MODE=interrupt"}) {
    CAPTURE(setting);
    lapis::testing::LaunchOptions options;
    options.ranks = 4;
    options.timeout_s = 90;
    options.env = {setting};
    options.flags = {"--continue-on-failure"};
    const auto r = lapis::testing::launch(options, "tests/mpi/progs/ulfm");
    INFO(r.output);
    CHECK(r.status == 128 + 9);
    CHECK(lapis::mpi_tests::count_lines(r.output, "OK\n") == 3);
    CHECK(r.output.find("FAILED") == std::string::npos);
  }
}

// A race, so several runs: before the fix (lapi's free_ucx_sends_to_locked,
// and fences that flush only the live tasks' endpoints) 4 runs in 20 hung in
// interrupt mode, where votes to a sleeping task go through UCX.
TEST_CASE("An agreement whose votes go to a rank that just died ends, and so does MPI_Finalize") {
  for (const char* setting : {"LAPIS_MODE=interrupt", "LAPIS_MODE=polling"}) {
    const int runs = std::string(setting) == "LAPIS_MODE=interrupt" ? 10 : 2;
    for (int run = 0; run < runs; ++run) {
      CAPTURE(setting);
      CAPTURE(run);
      lapis::testing::LaunchOptions options;
      options.ranks = 4;
      options.timeout_s = 60;
      options.env = {setting};
      options.flags = {"--continue-on-failure"};
      const auto r = lapis::testing::launch(options, "tests/mpi/progs/agree_after_death");
      INFO(r.output);
      CHECK(r.status == 1);
      CHECK(lapis::mpi_tests::count_lines(r.output, "OK\n") == 3);
      CHECK(r.output.find("FAILED") == std::string::npos);
    }
  }
}
