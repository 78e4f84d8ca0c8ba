// Matching rules of the posted-receive and early-arrival queues, without any
// transport: exact and wildcard matching, earliest-first choice across lists,
// cancel, and that empty hash lists are recycled.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <type_traits>
#include <vector>

#include "mpcpi/internal/match_queues.hpp"

using mpcpi::detail::ArrivedEntry;
using mpcpi::detail::ArrivedQueue;
using mpcpi::detail::kWildcard;
using mpcpi::detail::PostedEntry;
using mpcpi::detail::PostedQueue;

namespace {

// A queue under test and the entries it links. Entries live in a deque so
// their addresses stay put while the queue holds them; add() queues each one
// as it is made, in the order the test makes them.
template <typename Entry, typename Queue>
struct QueueFixture {
  std::deque<Entry> store;
  Queue q;

  Entry& add(std::uint32_t ctx, int src, int tag) {
    Entry& e = store.emplace_back();
    e.context = ctx;
    e.source = src;
    e.tag = tag;
    if constexpr (std::is_same_v<Queue, PostedQueue>) {
      q.post(e);
    } else {
      q.push(e);
    }
    return e;
  }
};

using PostedFixture = QueueFixture<PostedEntry, PostedQueue>;
using ArrivedFixture = QueueFixture<ArrivedEntry, ArrivedQueue>;

}  // namespace

TEST_CASE_FIXTURE(PostedFixture, "posted queue: exact match is FIFO and context-separated") {
  PostedEntry& a = add(1, 2, 7);
  PostedEntry& b = add(1, 2, 7);
  PostedEntry& other_ctx = add(2, 2, 7);
  CHECK(q.size() == 3);
  CHECK(q.match(1, 2, 8) == nullptr);
  CHECK(q.match(1, 3, 7) == nullptr);
  CHECK(q.match(1, 2, 7) == &a);
  CHECK(q.match(1, 2, 7) == &b);
  CHECK(q.match(1, 2, 7) == nullptr);
  CHECK(q.match(2, 2, 7) == &other_ctx);
  CHECK(q.empty());
}

TEST_CASE_FIXTURE(PostedFixture, "posted queue: wildcards compete by posting order") {
  PostedEntry& any_both = add(0, kWildcard, kWildcard);
  PostedEntry& exact = add(0, 1, 5);
  PostedEntry& any_src = add(0, kWildcard, 5);
  PostedEntry& any_tag = add(0, 1, kWildcard);
  // Every one of them matches (0,1,5): they must come out in posting order.
  CHECK(q.match(0, 1, 5) == &any_both);
  CHECK(q.match(0, 1, 5) == &exact);
  CHECK(q.match(0, 1, 5) == &any_src);
  CHECK(q.match(0, 1, 5) == &any_tag);
  CHECK(q.match(0, 1, 5) == nullptr);
}

TEST_CASE_FIXTURE(PostedFixture,
                  "posted queue: a wildcard receive does not take a non-matching message") {
  PostedEntry& any_src = add(0, kWildcard, 5);
  PostedEntry& any_tag = add(0, 3, kWildcard);
  CHECK(q.match(0, 1, 6) == nullptr);
  CHECK(q.match(1, 3, 5) == nullptr);  // other context
  CHECK(q.match(0, 3, 6) == &any_tag);
  CHECK(q.match(0, 9, 5) == &any_src);
}

TEST_CASE_FIXTURE(PostedFixture, "posted queue: remove (cancel) only what is queued") {
  PostedEntry& a = add(0, kWildcard, kWildcard);
  PostedEntry& b = add(0, 1, 1);
  CHECK(q.remove(a));
  CHECK_FALSE(q.remove(a));
  CHECK(q.match(0, 1, 1) == &b);
  CHECK_FALSE(q.remove(b));
  CHECK(q.empty());
}

TEST_CASE_FIXTURE(PostedFixture, "posted queue: contexts interested in a source") {
  add(10, 1, 3);
  add(11, 2, kWildcard);
  add(12, kWildcard, 4);
  std::vector<std::uint32_t> ctxs;
  q.for_each_context_for(1, [&](std::uint32_t c) { ctxs.push_back(c); });
  std::sort(ctxs.begin(), ctxs.end());
  CHECK(ctxs == std::vector<std::uint32_t>{10, 12});
}

TEST_CASE_FIXTURE(PostedFixture,
                  "posted queue: many distinct tags do not grow the index without bound") {
  for (int i = 0; i < 100000; ++i) {
    PostedEntry& e = add(0, 1, i);
    REQUIRE(q.match(0, 1, i) == &e);
    store.pop_back();
  }
  CHECK(q.empty());
}

TEST_CASE_FIXTURE(ArrivedFixture, "arrived queue: each receive shape finds the earliest match") {
  ArrivedEntry& m1 = add(0, 1, 5);
  ArrivedEntry& m2 = add(0, 2, 5);
  ArrivedEntry& m3 = add(0, 1, 6);
  ArrivedEntry& m4 = add(1, 1, 5);
  CHECK(q.find(0, 1, 5) == &m1);
  CHECK(q.find(0, 2, kWildcard) == &m2);
  CHECK(q.find(0, kWildcard, 6) == &m3);
  CHECK(q.find(0, kWildcard, kWildcard) == &m1);
  CHECK(q.find(1, kWildcard, kWildcard) == &m4);
  CHECK(q.find(0, 3, kWildcard) == nullptr);
  q.remove(m1);
  CHECK(q.find(0, kWildcard, kWildcard) == &m2);
  CHECK(q.find(0, 1, kWildcard) == &m3);
  CHECK(q.find(0, kWildcard, 5) == &m2);
  q.remove(m2);
  q.remove(m2);  // second remove is a no-op
  CHECK(q.size() == 2);
  CHECK(q.find(0, kWildcard, 5) == nullptr);
}

TEST_CASE_FIXTURE(ArrivedFixture,
                  "arrived queue: same-sender messages keep send order for every receive shape") {
  std::vector<ArrivedEntry*> sent;
  for (int i = 0; i < 50; ++i) sent.push_back(&add(3, 4, i % 3));
  // Receive by any tag from the sender: exactly send order.
  for (ArrivedEntry* expected : sent) {
    ArrivedEntry* got = q.find(3, 4, kWildcard);
    REQUIRE(got == expected);
    q.remove(*got);
  }
  CHECK(q.empty());
}

TEST_CASE_FIXTURE(ArrivedFixture, "arrived queue: find_from_if walks one sender oldest first") {
  add(0, 1, 1);
  ArrivedEntry& b = add(0, 1, 2);
  add(0, 2, 2);
  CHECK(q.find_from_if(0, 1, [](const ArrivedEntry& e) { return e.tag == 2; }) == &b);
  CHECK(q.find_from_if(0, 1, [](const ArrivedEntry& e) { return e.tag == 9; }) == nullptr);
  CHECK(q.find_from_if(5, 1, [](const ArrivedEntry&) { return true; }) == nullptr);
  int n = 0;
  q.for_each([&](const ArrivedEntry&) { ++n; });
  CHECK(n == 3);
}
