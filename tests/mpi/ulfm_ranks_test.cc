// ULFM under lapirun --continue-on-failure, 4 ranks (tests/mpi/progs/ulfm.c):
// agree, shrink, revoke and the acknowledgements with every rank alive,
// then after rank 3 is killed; the three left finalize.

#include "tests/mpi/run_ranks.hpp"

using lapis::mpi_tests::expect_survivors_ok;

TEST_CASE("MPIX_Comm_revoke/agree/shrink/failure_ack before and after a rank is killed") {
  // Polling mode runs collectives through the node segment, unless
  // LAPIS_COLL_SHM=off; interrupt mode through point-to-point.
  for (const char* setting : {"LAPIS_MODE=polling", "LAPIS_COLL_SHM=off", "LAPIS_MODE=interrupt"}) {
    CAPTURE(setting);
    expect_survivors_ok("ulfm", 4, 3, 128 + 9, {setting});
  }
}

// Without the rule (receives from any source left posted) the first MPI_Recv
// waited forever: MPICH's test/mpi/ft/anysource hung so.
TEST_CASE("Receives from MPI_ANY_SOURCE fail or stay pending while a failure is unacknowledged") {
  for (const char* setting : {"LAPIS_MODE=polling", "LAPIS_MODE=interrupt"}) {
    CAPTURE(setting);
    expect_survivors_ok("any_source_failure", 3, 2, 1, {setting});
  }
}

// A race, so several runs: before the fix (lapi's free_ucx_sends_to_locked,
// and fences that flush only the live tasks' endpoints) 4 runs in 20 hung in
// interrupt mode, where votes to a sleeping task go through UCX.
TEST_CASE("An agreement whose votes go to a rank that just died ends, and so does MPI_Finalize") {
  for (const char* setting : {"LAPIS_MODE=interrupt", "LAPIS_MODE=polling"}) {
    const int runs = std::string(setting) == "LAPIS_MODE=interrupt" ? 10 : 2;  // where it hung
    for (int run = 0; run < runs; ++run) {
      CAPTURE(setting);
      CAPTURE(run);
      expect_survivors_ok("agree_after_death", 4, 3, 1, {setting});
    }
  }
}
