// Matching rules of the posted-receive and early-arrival queues, without any
// transport: exact and wildcard matching, earliest-first choice across lists,
// cancel, and that empty hash lists are recycled.
#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "mpcpi/internal/match_queues.hpp"

using mpcpi::detail::ArrivedEntry;
using mpcpi::detail::ArrivedQueue;
using mpcpi::detail::kWildcard;
using mpcpi::detail::PostedEntry;
using mpcpi::detail::PostedQueue;

namespace {

PostedEntry& posted(std::deque<PostedEntry>& store, std::uint32_t ctx, int src, int tag) {
  PostedEntry& e = store.emplace_back();
  e.context = ctx;
  e.source = src;
  e.tag = tag;
  return e;
}

ArrivedEntry& arrived(std::deque<ArrivedEntry>& store, std::uint32_t ctx, int src, int tag) {
  ArrivedEntry& e = store.emplace_back();
  e.context = ctx;
  e.source = src;
  e.tag = tag;
  return e;
}

}  // namespace

TEST_CASE("posted queue: exact match is FIFO and context-separated") {
  std::deque<PostedEntry> store;
  PostedQueue q;
  PostedEntry& a = posted(store, 1, 2, 7);
  PostedEntry& b = posted(store, 1, 2, 7);
  PostedEntry& other_ctx = posted(store, 2, 2, 7);
  q.post(a);
  q.post(b);
  q.post(other_ctx);
  CHECK(q.size() == 3);
  CHECK(q.match(1, 2, 8) == nullptr);
  CHECK(q.match(1, 3, 7) == nullptr);
  CHECK(q.match(1, 2, 7) == &a);
  CHECK(q.match(1, 2, 7) == &b);
  CHECK(q.match(1, 2, 7) == nullptr);
  CHECK(q.match(2, 2, 7) == &other_ctx);
  CHECK(q.empty());
}

TEST_CASE("posted queue: wildcards compete by posting order") {
  std::deque<PostedEntry> store;
  PostedQueue q;
  PostedEntry& any_both = posted(store, 0, kWildcard, kWildcard);
  PostedEntry& exact = posted(store, 0, 1, 5);
  PostedEntry& any_src = posted(store, 0, kWildcard, 5);
  PostedEntry& any_tag = posted(store, 0, 1, kWildcard);
  for (PostedEntry* e : {&any_both, &exact, &any_src, &any_tag}) q.post(*e);
  // Every one of them matches (0,1,5): they must come out in posting order.
  CHECK(q.match(0, 1, 5) == &any_both);
  CHECK(q.match(0, 1, 5) == &exact);
  CHECK(q.match(0, 1, 5) == &any_src);
  CHECK(q.match(0, 1, 5) == &any_tag);
  CHECK(q.match(0, 1, 5) == nullptr);
}

TEST_CASE("posted queue: a wildcard receive does not take a non-matching message") {
  std::deque<PostedEntry> store;
  PostedQueue q;
  PostedEntry& any_src = posted(store, 0, kWildcard, 5);
  PostedEntry& any_tag = posted(store, 0, 3, kWildcard);
  q.post(any_src);
  q.post(any_tag);
  CHECK(q.match(0, 1, 6) == nullptr);
  CHECK(q.match(1, 3, 5) == nullptr);  // other context
  CHECK(q.match(0, 3, 6) == &any_tag);
  CHECK(q.match(0, 9, 5) == &any_src);
}

TEST_CASE("posted queue: remove (cancel) only what is queued") {
  std::deque<PostedEntry> store;
  PostedQueue q;
  PostedEntry& a = posted(store, 0, kWildcard, kWildcard);
  PostedEntry& b = posted(store, 0, 1, 1);
  q.post(a);
  q.post(b);
  CHECK(q.remove(a));
  CHECK_FALSE(q.remove(a));
  CHECK(q.match(0, 1, 1) == &b);
  CHECK_FALSE(q.remove(b));
  CHECK(q.empty());
}

TEST_CASE("posted queue: contexts interested in a source") {
  std::deque<PostedEntry> store;
  PostedQueue q;
  q.post(posted(store, 10, 1, 3));
  q.post(posted(store, 11, 2, kWildcard));
  q.post(posted(store, 12, kWildcard, 4));
  std::vector<std::uint32_t> ctxs;
  q.for_each_context_for(1, [&](std::uint32_t c) { ctxs.push_back(c); });
  std::sort(ctxs.begin(), ctxs.end());
  CHECK(ctxs == std::vector<std::uint32_t>{10, 12});
}

TEST_CASE("posted queue: many distinct tags do not grow the index without bound") {
  std::deque<PostedEntry> store;
  PostedQueue q;
  for (int i = 0; i < 100000; ++i) {
    PostedEntry& e = posted(store, 0, 1, i);
    q.post(e);
    REQUIRE(q.match(0, 1, i) == &e);
    store.pop_back();
  }
  CHECK(q.empty());
}

TEST_CASE("arrived queue: each receive shape finds the earliest match") {
  std::deque<ArrivedEntry> store;
  ArrivedQueue q;
  ArrivedEntry& m1 = arrived(store, 0, 1, 5);
  ArrivedEntry& m2 = arrived(store, 0, 2, 5);
  ArrivedEntry& m3 = arrived(store, 0, 1, 6);
  ArrivedEntry& m4 = arrived(store, 1, 1, 5);
  for (ArrivedEntry* e : {&m1, &m2, &m3, &m4}) q.push(*e);
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

TEST_CASE("arrived queue: same-sender messages keep send order for every receive shape") {
  std::deque<ArrivedEntry> store;
  ArrivedQueue q;
  std::vector<ArrivedEntry*> sent;
  for (int i = 0; i < 50; ++i) {
    ArrivedEntry& e = arrived(store, 3, 4, i % 3);
    q.push(e);
    sent.push_back(&e);
  }
  // Receive by any tag from the sender: exactly send order.
  for (ArrivedEntry* expected : sent) {
    ArrivedEntry* got = q.find(3, 4, kWildcard);
    REQUIRE(got == expected);
    q.remove(*got);
  }
  CHECK(q.empty());
}

TEST_CASE("arrived queue: find_from_if walks one sender oldest first") {
  std::deque<ArrivedEntry> store;
  ArrivedQueue q;
  ArrivedEntry& a = arrived(store, 0, 1, 1);
  ArrivedEntry& b = arrived(store, 0, 1, 2);
  ArrivedEntry& c = arrived(store, 0, 2, 2);
  q.push(a);
  q.push(b);
  q.push(c);
  CHECK(q.find_from_if(0, 1, [](const ArrivedEntry& e) { return e.tag == 2; }) == &b);
  CHECK(q.find_from_if(0, 1, [](const ArrivedEntry& e) { return e.tag == 9; }) == nullptr);
  CHECK(q.find_from_if(5, 1, [](const ArrivedEntry&) { return true; }) == nullptr);
  int n = 0;
  q.for_each([&](const ArrivedEntry&) { ++n; });
  CHECK(n == 3);
}
