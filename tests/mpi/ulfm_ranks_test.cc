// ULFM under lapirun --continue-on-failure, 4 ranks (tests/mpi/progs/ulfm.c):
// agree, shrink, revoke and the acknowledgements with every rank alive,
// then after rank 3 is killed; the three left finalize.

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
