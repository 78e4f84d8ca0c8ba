// MPI collectives against serial references, at 1, 2, 3, 4, 5 and 8 ranks and
// with each LAPIS_COLL_* algorithm forced.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/launch.hpp"

using lapis::mpi_tests::expect_ok;

TEST_CASE("collectives at 1, 2, 3, 4, 5 and 8 ranks") {
  for (int ranks : {1, 2, 3, 4, 5, 8}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("coll", ranks); }
  }
}

// Every algorithm must give the reference results (the program checks
// exact integer results). 5 ranks make the reductions fold the extra rank
// in first; recursive-doubling allgather needs a power of two (4).
TEST_CASE("collectives with each algorithm forced") {
  struct Forced {
    const char* setting;
    int ranks;
    const char* family;  // the program runs only these tests
  };
  const Forced settings[] = {
      {"LAPIS_COLL_BCAST=binomial", 5, "bcast"},
      {"LAPIS_COLL_BCAST=scatter_allgather", 5, "bcast"},
      {"LAPIS_COLL_REDUCE=binomial", 5, "reduce"},
      {"LAPIS_COLL_REDUCE=linear", 5, "reduce"},
      {"LAPIS_COLL_ALLREDUCE=recursive_doubling", 5, "allreduce"},
      {"LAPIS_COLL_ALLREDUCE=rabenseifner", 5, "allreduce"},
      {"LAPIS_COLL_ALLREDUCE=rabenseifner", 4, "allreduce"},
      {"LAPIS_COLL_ALLREDUCE=reduce_bcast", 5, "allreduce"},
      {"LAPIS_COLL_ALLGATHER=recursive_doubling", 4, "allgather"},
      {"LAPIS_COLL_ALLGATHER=ring", 4, "allgather"},
      {"LAPIS_COLL_ALLTOALL=linear", 5, "alltoall"},
      {"LAPIS_COLL_ALLTOALL=pairwise", 5, "alltoall"},
  };
  for (const Forced& f : settings) {
    SUBCASE((std::string(f.setting) + " ranks=" + std::to_string(f.ranks)).c_str()) {
      expect_ok("coll", f.ranks, {f.setting}, {f.family});
    }
  }
}

// The default runs above take the node segment (coll/node.hpp) for
// blocking Barrier/Bcast/Reduce/Allreduce up to 16 KiB; these take
// point-to-point for every size, against the same references.
TEST_CASE("collectives without the shared-memory segment") {
  for (int ranks : {2, 3, 8}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      expect_ok("coll", ranks, {"LAPIS_COLL_SHM=off"});
    }
  }
}

TEST_CASE("collectives over the engine's protocol extremes and interrupt mode") {
  for (const char* setting : {"LAPIS_EAGER_LIMIT=0", "LAPIS_MODE=interrupt"}) {
    SUBCASE(setting) { expect_ok("coll", 3, {setting}); }
  }
}

// (The shared-memory collectives are polling mode's: these go through the engine.)
TEST_CASE("interrupt mode: collectives leave the progress thread parked") {
  expect_ok("coll", 2, {"LAPIS_MODE=interrupt"}, {"parked"});
}

TEST_CASE("bad arguments to collectives at 1, 2, 3 and 4 ranks, with and without the node segment") {
  for (int ranks : {1, 2, 3, 4}) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) { expect_ok("coll_errors", ranks); }
  }
  SUBCASE("an unknown LAPIS_COLL_ALLTOALL value") {
    expect_ok("coll_errors", 2, {"LAPIS_COLL_ALLTOALL=bogus"});
  }
  SUBCASE("point-to-point algorithms only") { expect_ok("coll_errors", 4, {"LAPIS_COLL_SHM=off"}); }
}

// Under MPI_ERRORS_ARE_FATAL the message names the function, the error
// class and the argument (op and type; root; buffer; variable).
TEST_CASE("fatal collective errors name the function and the argument") {
  struct Case {
    const char* what;
    std::vector<std::string> env;
    std::vector<std::string> expected;
  };
  const Case cases[] = {
      {"op", {}, {"MPI_Allreduce: MPI_ERR_OP", "MPI_SUM", "MPI_BYTE"}},
      {"root", {}, {"MPI_Bcast: MPI_ERR_ROOT", "root=3"}},
      {"buffer", {}, {"MPI_Reduce: MPI_ERR_BUFFER", "sendbuf"}},
      {"env", {"LAPIS_COLL_ALLTOALL=bogus"}, {"MPI_Alltoall: MPI_ERR_ARG", "LAPIS_COLL_ALLTOALL=bogus"}},
      // Checked by MPI_Init: it is read where no error can be returned.
      {"env", {"LAPIS_COLL_SHM=of"}, {"MPI_Init", "MPI_ERR_ARG", "LAPIS_COLL_SHM=of"}},
  };
  for (const Case& c : cases) {
    const std::string label = std::string(c.what) + (c.env.empty() ? "" : " " + c.env[0]);
    SUBCASE(label.c_str()) {
      lapis::testing::LaunchOptions options;
      options.ranks = 3;
      options.timeout_s = 60;
      options.env = c.env;
      auto r = lapis::testing::launch(options, "tests/mpi/progs/coll_errors", {c.what});
      INFO(r.output);
      CHECK(r.status != 0);
      CHECK(r.status != 124);
      for (const std::string& part : c.expected) CHECK(r.output.find(part) != std::string::npos);
      CHECK(r.output.find("NOT REACHED") == std::string::npos);
    }
  }
}
