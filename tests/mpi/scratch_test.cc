// The per-thread cache of large staging blocks (mpi/internal/scratch.hpp):
// large blocks come back for reuse, small ones and the excess go to malloc,
// exhaustion is reported as asked.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "mpi/internal/scratch.hpp"
#include "tests/support/sanitizers.hpp"

using namespace mpi;

TEST_CASE("a large block given back is taken again by a request it fits") {
  const std::size_t kBig = 1 << 20;
  char* a = scratch::take(kBig, false);
  REQUIRE(a != nullptr);
  std::memset(a, 1, kBig);  // all of it is usable
  CHECK(reinterpret_cast<std::uintptr_t>(a) % 16 == 0);
  const std::size_t before = scratch::kept_blocks();
  scratch::give(a);
  CHECK(scratch::kept_blocks() == before + 1);
  char* b = scratch::take(kBig / 2, false);  // smaller: the kept block serves
  CHECK(b == a);
  CHECK(scratch::kept_blocks() == before);
  char* c = scratch::take(2 * kBig, false);  // larger than anything kept: fresh
  CHECK(c != a);
  scratch::give(b);
  scratch::give(c);
  scratch::give(nullptr);  // ignored
}

TEST_CASE("small blocks are not kept, and the cache stays bounded") {
  const std::size_t kept = scratch::kept_blocks();
  scratch::give(scratch::take(100, false));
  scratch::give(scratch::take(scratch::kKeepMin - 1, false));
  CHECK(scratch::kept_blocks() == kept);
  std::vector<char*> blocks;
  for (int i = 0; i < 10; ++i) blocks.push_back(scratch::take(scratch::kKeepMin * (i + 1), false));
  for (char* p : blocks) scratch::give(p);
  CHECK(scratch::kept_blocks() <= 4);
  // The largest ones were kept: a request for the largest size reuses one.
  char* p = scratch::take(scratch::kKeepMin * 10, false);
  bool reused = false;
  for (char* q : blocks) reused = reused || q == p;
  CHECK(reused);
  scratch::give(p);
}

TEST_CASE("exhaustion: null when asked, std::bad_alloc otherwise") {
  // A size whose header would overflow: refused before malloc.
  CHECK(scratch::take(SIZE_MAX - 8, true) == nullptr);
  CHECK_THROWS_AS(scratch::take(SIZE_MAX - 8, false), std::bad_alloc);
  // One malloc cannot give (the sanitizers' allocators report it instead).
  if (!lapis::testing::kSanitized) CHECK(scratch::take(std::size_t{1} << 62, true) == nullptr);
}

TEST_CASE("a block freed on another thread goes to that thread's cache") {
  char* a = scratch::take(1 << 20, false);
  std::size_t kept_there = 0;
  std::thread([&] {
    scratch::give(a);
    kept_there = scratch::kept_blocks();
  }).join();  // the thread's cache frees it at exit
  CHECK(kept_there == 1);
}
