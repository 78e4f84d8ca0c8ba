// Inter-communicators (tests/mpi/progs/intercomm.c): MPI_COMM_WORLD split
// into two groups of unequal size joined by MPI_Intercomm_create; queries,
// point-to-point, merge, dup/split/create, every collective across them
// against a serial reference, nonblocking and persistent forms, bad
// arguments, and the fatal messages.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/launch.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("inter-communicators at 2, 3, 4, 5 and 8 ranks") {
  for (int ranks : {2, 3, 4, 5, 8}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("intercomm", ranks); }
  }
}

TEST_CASE("inter-communicators over rendezvous and in interrupt mode") {
  for (const char* setting : {"LAPIS_EAGER_LIMIT=0", "LAPIS_MODE=interrupt"}) {
    SUBCASE(setting) { expect_ok("intercomm", 4, {setting}); }
  }
}

TEST_CASE("fatal inter-communicator errors name the function and the argument") {
  struct Case {
    const char* what;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"root", {"MPI_Bcast: MPI_ERR_ROOT", "root=", "MPI_ROOT"}},
      {"leader", {"MPI_Intercomm_create: MPI_ERR_RANK", "remote_leader="}},
      {"scan", {"MPI_Scan: MPI_ERR_COMM", "inter-communicators"}},
  };
  for (const Case& c : cases) {
    SUBCASE(c.what) {
      lapis::testing::LaunchOptions options;
      options.ranks = 3;
      options.timeout_s = 60;
      auto r = lapis::testing::launch(options, "tests/mpi/progs/intercomm", {c.what});
      INFO(r.output);
      CHECK(r.status != 0);
      CHECK(r.status != 124);
      for (const std::string& part : c.expected) CHECK(r.output.find(part) != std::string::npos);
      CHECK(r.output.find("NOT REACHED") == std::string::npos);
    }
  }
}
