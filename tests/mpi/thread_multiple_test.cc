// MPI_THREAD_MULTIPLE: 4 threads per rank x 2 ranks calling MPI at once
// (tests/mpi/progs/thread_multiple.c says what each phase checks), in
// polling and interrupt mode, with eager and with rendezvous-only messages.
// Under ThreadSanitizer (the main proof that the MPI lock covers the
// library's state) and AddressSanitizer with fewer messages.
#include <doctest/doctest.h>

#include <string>

#include "tests/mpi/run_ranks.hpp"
#include "tests/support/sanitizers.hpp"

using lapis::mpi_tests::expect_ok;

namespace {

constexpr bool kSanitized = lapis::testing::kAddressSanitizer || lapis::testing::kThreadSanitizer;
// Messages per thread and phase.
const std::string kMany = kSanitized ? "10000" : "100000";
const std::string kFew = kSanitized ? "1000" : "5000";

}  // namespace

TEST_CASE("4 threads per rank: distinct tags, shared tags with MPI_ANY_SOURCE (polling)") {
  expect_ok("thread_multiple", 2, {}, {kMany, "ts"});
}

TEST_CASE("4 threads per rank: Mprobe/Mrecv, communicators and collectives, blocked receives") {
  SUBCASE("polling") { expect_ok("thread_multiple", 2, {}, {kFew, "mcgbr"}); }
  SUBCASE("interrupt") {
    expect_ok("thread_multiple", 2, {"LAPIS_MODE=interrupt"}, {kFew, "tsmcgbr"});
  }
  SUBCASE("rendezvous only") {
    expect_ok("thread_multiple", 2, {"LAPIS_EAGER_LIMIT=0"}, {kFew, "tsmcgbr"});
  }
  SUBCASE("base variant (handler thread)") {
    expect_ok("thread_multiple", 2, {"LAPIS_MPI_VARIANT=base"}, {kFew, "tsmcgbr"});
  }
  SUBCASE("counters variant") {
    expect_ok("thread_multiple", 2, {"LAPIS_MPI_VARIANT=counters"}, {kFew, "tsmcgbr"});
  }
}
