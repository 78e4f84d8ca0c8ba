// MPI_Info objects and MPI_INFO_ENV (tests/mpi/progs/info.c) at 1 and 2 ranks;
// MPI 4.1 memory allocation kinds (tests/mpi/progs/memory_kinds.c).
#include <doctest/doctest.h>

#include "tests/mpi/run_ranks.hpp"

TEST_CASE("info objects, MPI_INFO_ENV and their bad arguments") {
  for (int ranks : {1, 2}) {
    SUBCASE(ranks == 1 ? "ranks=1" : "ranks=2") { lapis::mpi_tests::expect_ok("info", ranks); }
  }
}

namespace {

// tests/mpi/progs/memory_kinds.c as 2 ranks with `flags` and `env`: the
// world model must answer `world`.
void expect_memory_kinds(std::vector<std::string> flags, std::vector<std::string> env,
                         const std::string& world) {
  lapis::testing::LaunchOptions options;
  options.ranks = 2;
  options.timeout_s = 120;
  options.flags = std::move(flags);
  options.env = std::move(env);
  auto result = lapis::testing::launch(options, "tests/mpi/progs/memory_kinds", {world});
  INFO(result.output);
  CHECK(result.status == 0);
  CHECK(lapis::mpi_tests::count_lines(result.output, "OK\n") == 2);
  CHECK(result.output.find("FAILED") == std::string::npos);
}

}  // namespace

TEST_CASE("MPI 4.1 memory allocation kinds: asked by the launcher, by a session, supported") {
  SUBCASE("none asked") { expect_memory_kinds({}, {}, "mpi,system"); }
  SUBCASE("lapirun --memory-alloc-kinds") {
    expect_memory_kinds({"--memory-alloc-kinds", "mpi:alloc_mem,cuda:device,system,mpi:bogus,mpi:alloc_mem"},
                        {}, "mpi,system,mpi:alloc_mem");
  }
  SUBCASE("MPICH's spelling, and the variable it sets") {
    expect_memory_kinds({"-memory-alloc-kinds=mpi:win_allocate_shared"}, {}, "mpi,system,mpi:win_allocate_shared");
    expect_memory_kinds({}, {"LAPIS_MEMORY_ALLOC_KINDS= system , mpi:alloc_mem:win_allocate"},
                        "mpi,system,mpi:alloc_mem:win_allocate");
  }
}
