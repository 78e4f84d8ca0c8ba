// Nonblocking and persistent collectives (tests/mpi/progs/coll_nb.c)
// against serial references at 1, 2, 3, 4 and 8 ranks (8 oversubscribe the
// machine: waiting for a collective must yield), in interrupt mode and with
// the rendezvous protocol for every message, and their bad arguments.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("nonblocking collectives outstanding together, with point-to-point") {
  for (int ranks : lapis::mpi_tests::kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      expect_ok("coll_nb", ranks, {}, {"nonblocking"});
    }
  }
}

// 1,000 restarts take ~3 minutes of the TSan run at 8 ranks, and 100 at 1 to
// 8 ranks still took 54-80 s of a CI run: 30 there.
const std::string kRestarts = lapis::testing::kThreadSanitizer ? "30" : "1000";

TEST_CASE("persistent collectives restarted") {
  for (int ranks : lapis::mpi_tests::kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      expect_ok("coll_nb", ranks, {}, {"persistent", kRestarts});
    }
  }
}

TEST_CASE("nonblocking collectives in interrupt mode and over rendezvous") {
  for (const char* setting : {"LAPIS_MODE=interrupt", "LAPIS_EAGER_LIMIT=0"}) {
    SUBCASE(setting) { expect_ok("coll_nb", 3, {setting}, {"all", kRestarts}); }
  }
}

TEST_CASE("bad arguments to nonblocking and persistent collectives") {
  for (int ranks : {1, 3}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      expect_ok("coll_nb", ranks, {}, {"errors"});
    }
  }
}
