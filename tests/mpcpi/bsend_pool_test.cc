// The attached-buffer allocator for buffered sends: exact MPI_BSEND_OVERHEAD
// accounting, first fit, and merging on release.
#include <doctest/doctest.h>

#include <vector>

#include "mpcpi/internal/bsend_pool.hpp"

using mpcpi::detail::BsendPool;

TEST_CASE("bsend pool: detached pool refuses everything") {
  BsendPool pool;
  CHECK_FALSE(pool.attached());
  CHECK_FALSE(pool.allocate(1).has_value());
  std::byte b{};
  CHECK_FALSE(pool.release(&b));
}

TEST_CASE("bsend pool: messages of bytes + overhead fill the buffer exactly") {
  std::vector<std::byte> buf(3 * (100 + 64));
  BsendPool pool(buf.data(), buf.size(), 64);
  auto a = pool.allocate(100);
  auto b = pool.allocate(100);
  auto c = pool.allocate(100);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK_FALSE(pool.allocate(0).has_value());
  CHECK(pool.in_use() == 3);
  CHECK(pool.release(*b));
  CHECK_FALSE(pool.release(*b));
  CHECK_FALSE(pool.allocate(101).has_value());
  auto d = pool.allocate(100);
  REQUIRE(d);
  CHECK(*d == *b);
}

TEST_CASE("bsend pool: released neighbours merge into one range") {
  std::vector<std::byte> buf(1000);
  BsendPool pool(buf.data(), buf.size(), 0);
  auto a = pool.allocate(300);
  auto b = pool.allocate(300);
  auto c = pool.allocate(400);
  REQUIRE((a && b && c));
  CHECK_FALSE(pool.allocate(1).has_value());
  CHECK(pool.release(*a));
  CHECK(pool.release(*c));
  CHECK_FALSE(pool.allocate(500).has_value());
  CHECK(pool.release(*b));  // joins both sides
  auto all = pool.allocate(1000);
  REQUIRE(all);
  CHECK(*all == buf.data());
  CHECK_FALSE(pool.release(buf.data() + 1));
}

TEST_CASE("bsend pool: oversize and foreign pointers are refused") {
  std::vector<std::byte> buf(64);
  BsendPool pool(buf.data(), buf.size(), 64);
  CHECK_FALSE(pool.allocate(1).has_value());
  CHECK(pool.allocate(0).has_value());
  std::byte outside{};
  CHECK_FALSE(pool.release(&outside));
}
