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

TEST_CASE("bsend buffer: a flush mark waits for the messages before it, in any order of leaving") {
  std::vector<std::byte> buf(1000);
  mpcpi::detail::BsendBuffer attached(buf.data(), buf.size(), 0, false);
  auto a = attached.take(100, 7);
  auto b = attached.take(100, 8);
  REQUIRE((a && b));
  CHECK(attached.held() == 2);
  CHECK(attached.flushed(7));   // nothing before 7
  CHECK_FALSE(attached.flushed(8));
  auto c = attached.take(100, 9);  // after the mark 9: not waited for
  REQUIRE(c);
  attached.give_back(*b, 8);
  CHECK_FALSE(attached.flushed(9));  // 7 is still in it
  attached.give_back(*a, 7);
  CHECK(attached.flushed(9));
  CHECK_FALSE(attached.flushed(10));
  attached.give_back(*c, 9);
  CHECK(attached.flushed(100));
  CHECK(attached.held() == 0);
  CHECK(attached.take(1000, 10).has_value());  // all the room is back
}

TEST_CASE("bsend buffer: an automatic one takes any size, zero bytes too, and gives back what was asked") {
  int tag = 0;
  mpcpi::detail::BsendBuffer automatic(&tag, 0, 64, true);
  CHECK(automatic.automatic());
  CHECK(automatic.base() == &tag);
  CHECK(automatic.size() == 0);
  auto big = automatic.take(std::size_t{1} << 20, 1);
  auto none = automatic.take(0, 2);
  REQUIRE((big && none));
  CHECK(*big != *none);
  (*big)[(std::size_t{1} << 20) - 1] = std::byte{1};  // writable to the end (ASan checks)
  automatic.give_back(*big, 1);
  automatic.give_back(*none, 2);
  CHECK(automatic.held() == 0);
}
