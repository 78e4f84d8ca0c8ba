// MPI-IO (tests/mpi/progs/io_*.c) at 1, 2, 3, 4 and 8 ranks: opening and
// its errors, sizes, hints, handlers (io_basic); views, pointers and
// end-of-file reads (io_views); nonblocking, split collective, ordered,
// atomic, sequential and large-count access (io_modes). The programs put
// their files under TEST_TMPDIR and remove them.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"

namespace {

void run_all(const std::string& program) {
  for (int ranks : lapis::mpi_tests::kRankCounts) {
    SUBCASE(("ranks=" + std::to_string(ranks)).c_str()) {
      lapis::mpi_tests::expect_ok(program, ranks);
    }
  }
}

}  // namespace

TEST_CASE("opening, closing, deleting, sizes, hints, handles and error handlers") {
  run_all("io_basic");
}

TEST_CASE("views with vector and subarray filetypes, the three pointers, end of file") {
  run_all("io_views");
}

TEST_CASE("nonblocking, split collective, ordered, atomic, sequential and _c access") {
  run_all("io_modes");
}
