// The shared-memory rings on their own, two channels in one process:
// ordering and contents across slot counts and wrap-around, a full ring,
// the sleep hand-shake, forged lengths, a peer whose inbox cannot be
// mapped, a reader that ends its batch early, and the staging areas. (shm_test covers the channel inside lapi, across processes.)

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "lapi/internal/shm_channel.hpp"

using lapi::internal::ShmAddress;
using lapi::internal::ShmChannel;
using lapi::internal::ShmSend;

namespace {

struct Frame {
  std::uint32_t src;
  std::vector<unsigned char> bytes;
  std::size_t room;
};

// Task 0 and task 1 of a two-task job, each with its inbox.
struct Pair {
  ShmChannel ch[2];
  ShmAddress addr[2];

  explicit Pair(bool map_back = true, bool membarrier = true, bool stages = false) {
    std::string why;
    for (std::uint32_t t = 0; t < 2; ++t) {
      if (!membarrier) ch[t].forgo_membarrier();
      if (stages) ch[t].enable_stages();
      REQUIRE_MESSAGE(ch[t].create(t, 2, addr[t], why), why);
    }
    REQUIRE(ch[0].attach(1, addr[1]));
    if (map_back) {
      REQUIRE(ch[1].attach(0, addr[0]));
    } else {
      ShmAddress wrong = addr[0];
      std::memcpy(wrong.name, "/lapis-no-such-inbox", 21);
      CHECK_FALSE(ch[1].attach(0, wrong));
    }
    for (auto& c : ch) c.unlink();
  }

  std::vector<Frame> take(std::uint32_t t) {
    std::vector<Frame> got;
    while (ch[t].poll([&](std::uint32_t src, const std::byte* f, std::size_t len, std::size_t room) {
      const std::size_t n = len <= room ? len : 0;
      const auto* p = reinterpret_cast<const unsigned char*>(f);
      got.push_back({src, std::vector<unsigned char>(p, p + n), room});
      if (len > room) got.back().room = 0;  // marks a refused length
      return true;
    })) {
    }
    return got;
  }
};

std::vector<unsigned char> payload(std::size_t len, unsigned seed) {
  std::vector<unsigned char> v(len);
  for (std::size_t i = 0; i < len; ++i) v[i] = static_cast<unsigned char>(seed * 31 + i * 7);
  return v;
}

}  // namespace

// Tickets are the position + 1 in 32 bits, never 0: at the position where that wraps, a
// fresh (zeroed) slot must not pass for a frame, and frames from there on arrive as sent.
TEST_CASE("frames arrive in order and intact across the 32-bit ticket wrap") {
  Pair p;
  const std::uint64_t wrap = (std::uint64_t{1} << 32) - 1;  // ticket (wrap + 1) mod 2^32 = 0
  for (auto& c : p.ch) c.start_rings_at(wrap);
  CHECK(p.take(1).empty());  // nothing sent yet
  unsigned seed = 0;
  // Several laps of the 128-slot ring past the wrap, at odd offsets.
  for (int round = 0; round < 120; ++round) {
    std::vector<std::vector<unsigned char>> sent;
    for (std::size_t len : {std::size_t{8}, std::size_t{700}, std::size_t{8}}) {
      sent.push_back(payload(len, ++seed));
      REQUIRE(p.ch[0].send(1, sent.back().data(), len, nullptr, 0) == ShmSend::done);
    }
    const auto got = p.take(1);
    REQUIRE(got.size() == sent.size());
    for (std::size_t i = 0; i < sent.size(); ++i) CHECK(got[i].bytes == sent[i]);
    CHECK(p.take(1).empty());
  }
}

TEST_CASE("frames arrive in order and intact across slot counts and wrap-around") {
  Pair p;
  constexpr std::size_t one_slot = ShmChannel::kSlotBytes - ShmChannel::kSlotHeader;
  const std::size_t sizes[] = {1,    8,    one_slot, one_slot + 1,
                               1200, 3000, 8000,     ShmChannel::kFrameLimit};
  unsigned seed = 0;
  // Enough rounds to wrap the 128-slot ring many times at odd offsets.
  for (int round = 0; round < 200; ++round) {
    std::vector<std::vector<unsigned char>> sent;
    for (std::size_t len : sizes) {
      auto data = payload(len, seed++);
      const std::size_t head = len < 4 ? len : 4;  // a header part, then a data part
      const auto r = p.ch[0].send(1, data.data(), head, data.data() + head, len - head);
      if (r == ShmSend::full) break;
      REQUIRE(r == ShmSend::done);
      sent.push_back(std::move(data));
    }
    REQUIRE_FALSE(sent.empty());
    CHECK(p.ch[1].pending());
    const auto got = p.take(1);
    REQUIRE(got.size() == sent.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].src == 0);
      CHECK(got[i].bytes == sent[i]);
    }
    CHECK_FALSE(p.ch[1].pending());
  }
  CHECK(p.ch[0].stats().sent == p.ch[1].stats().received);
}

TEST_CASE("a full ring refuses until the target has taken frames") {
  Pair p;
  const auto data = payload(100, 1);
  int accepted = 0;
  while (p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::done) ++accepted;
  CHECK(accepted == static_cast<int>(ShmChannel::kSlots));  // one slot each
  CHECK(p.ch[0].stats().ring_full == 1);
  CHECK(p.take(1).size() == ShmChannel::kSlots);
  CHECK(p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::done);
}

static void sleeping_target(bool membarrier) {
  CAPTURE(membarrier);
  Pair p(true, membarrier);
  // Where the kernel offers membarrier, senders publish without a barrier.
  CHECK(p.ch[0].light_publish_to(1) == p.ch[1].sleeps_with_membarrier());
  if (!membarrier) CHECK_FALSE(p.ch[0].light_publish_to(1));
  const auto data = payload(16, 2);
  p.ch[1].sleep_begin(false);
  CHECK(p.ch[0].peer_sleeping(1));
  CHECK(p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::asleep);
  p.ch[1].sleep_end(false);
  // The target falls asleep between the sender's look and its publish.
  ShmSend why;
  std::byte* slot = p.ch[0].begin_send(1, data.size(), why);
  REQUIRE(slot != nullptr);
  std::memcpy(slot, data.data(), data.size());
  p.ch[1].sleep_begin(false);
  CHECK(p.ch[1].pending() == false);  // not published yet
  CHECK(p.ch[0].end_send(1, data.size()) == ShmSend::done_wake);
  CHECK(p.ch[1].pending());
  p.ch[1].sleep_end(false);
  CHECK(p.take(1).size() == 1);
  CHECK(p.ch[0].stats().wakes == 1);
  CHECK(p.ch[0].stats().peer_asleep == 1);
}

// Quiet frames (Context::amsend_quiet): into the ring while the target's
// progress thread sleeps, without a wake-up; a wake-up only for an
// application thread asleep in a wait, told before or after the write.
static void quiet_frames(bool membarrier) {
  CAPTURE(membarrier);
  Pair p(true, membarrier);
  const auto data = payload(16, 3);
  auto quiet_send = [&] {
    ShmSend why;
    std::byte* slot = p.ch[0].begin_send(1, data.size(), why, true);
    REQUIRE(slot != nullptr);
    std::memcpy(slot, data.data(), data.size());
    return p.ch[0].end_send(1, data.size(), true);
  };
  p.ch[1].sleep_begin(false);  // the progress thread
  CHECK(quiet_send() == ShmSend::done);
  CHECK(p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::asleep);  // not quiet: UCX
  p.ch[1].sleep_begin(true);  // and an application thread, waiting
  CHECK(quiet_send() == ShmSend::done_wake);
  p.ch[1].sleep_end(true);
  CHECK(quiet_send() == ShmSend::done);
  p.ch[1].sleep_end(false);
  CHECK(p.take(1).size() == 3);
  // The waiter falls asleep between the sender's write and its publish.
  ShmSend why;
  std::byte* slot = p.ch[0].begin_send(1, data.size(), why, true);
  REQUIRE(slot != nullptr);
  std::memcpy(slot, data.data(), data.size());
  p.ch[1].sleep_begin(true);
  CHECK(p.ch[1].pending() == false);
  CHECK(p.ch[0].end_send(1, data.size(), true) == ShmSend::done_wake);
  CHECK(p.ch[1].pending());
  p.ch[1].sleep_end(true);
  CHECK(p.take(1).size() == 1);
  CHECK(p.ch[0].stats().wakes == 2);
}

TEST_CASE("quiet frames wake an application thread asleep in a wait, not a progress thread") {
  SUBCASE("membarrier where offered") { quiet_frames(true); }
  SUBCASE("sequentially consistent") { quiet_frames(false); }
}

TEST_CASE("a sleeping target: senders are told before or after they write") {
  SUBCASE("membarrier where offered") { sleeping_target(true); }
  SUBCASE("sequentially consistent") { sleeping_target(false); }
}

TEST_CASE("a forged length is handed over as refused and the ring goes on") {
  Pair p;
  const auto data = payload(40, 3);
  REQUIRE(p.ch[0].send(1, data.data(), data.size(), nullptr, 0, 1u << 30) == ShmSend::done);
  REQUIRE(p.ch[0].send(1, data.data(), data.size(), nullptr, 0,
                       static_cast<std::uint32_t>(ShmChannel::kFrameLimit + 1)) == ShmSend::done);
  REQUIRE(p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::done);
  const auto got = p.take(1);
  REQUIRE(got.size() == 3);
  CHECK(got[0].room == 0);  // refused: longer than what is readable
  CHECK(got[1].room == 0);
  CHECK(got[2].bytes == data);
}

TEST_CASE("a peer whose inbox cannot be mapped is still read from") {
  // Task 1 cannot map task 0's inbox (another IPC namespace, say), task 0
  // maps task 1's: task 0 writes into its ring in task 1's inbox, and task
  // 1 must watch that ring although it sends to task 0 through UCX.
  Pair p(/*map_back=*/false);
  CHECK_FALSE(p.ch[1].reaches(0));
  REQUIRE(p.ch[0].reaches(1));
  const auto data = payload(64, 4);
  REQUIRE(p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::done);
  const auto got = p.take(1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].bytes == data);
}

TEST_CASE("a deliver that returns false ends the batch; the next poll goes on in order") {
  Pair p;
  std::vector<unsigned char> data(40);
  for (unsigned i = 0; i < 5; ++i) {
    data[0] = static_cast<unsigned char>(i);
    REQUIRE(p.ch[0].send(1, data.data(), data.size(), nullptr, 0) == ShmSend::done);
  }
  std::vector<unsigned> seen;
  const auto one_at_a_time = [&](std::uint32_t, const std::byte* f, std::size_t, std::size_t) {
    seen.push_back(static_cast<unsigned>(f[0]));
    return false;
  };
  for (unsigned poll = 1; poll <= 5; ++poll) {
    CHECK(p.ch[1].poll(one_at_a_time));
    CHECK(seen.size() == poll);
  }
  CHECK_FALSE(p.ch[1].poll(one_at_a_time));
  CHECK(seen == std::vector<unsigned>{0, 1, 2, 3, 4});
}

// The sleep hand-shake under a race, one frame at a time: a sender thread
// publishes frame i once the target took frame i - 1, while the target
// thread keeps announcing a sleep and looking at its ring once more. When
// that look finds nothing, the frame it waits for must come with a wake
// (done_wake): a send that returned `done` then is a lost wake-up, which a
// real waiter would sleep through.
static void no_lost_wakeups(bool membarrier) {
  CAPTURE(membarrier);
  Pair p(true, membarrier);
  constexpr int kFrames = 50000;
  enum : int { kPending = 0, kDone = 1, kWoke = 2 };
  std::vector<std::atomic<int>> result(kFrames);  // what each send returned
  std::atomic<int> received{0};  // frames the target took (or that went "through UCX")
  std::thread sender([&] {
    const auto data = payload(16, 3);
    for (int i = 0; i < kFrames; ++i) {
      while (received.load(std::memory_order_acquire) < i) std::this_thread::yield();
      ShmSend r;
      while ((r = p.ch[0].send(1, data.data(), data.size(), nullptr, 0)) == ShmSend::full) {
      }
      if (r == ShmSend::asleep) received.fetch_add(1, std::memory_order_acq_rel);
      result[static_cast<std::size_t>(i)].store(r == ShmSend::done ? kDone : kWoke,
                                                std::memory_order_release);
    }
  });
  int lost = 0, asleep = 0;
  while (received.load(std::memory_order_acquire) < kFrames) {
    const int next = received.load(std::memory_order_acquire);  // the frame to come
    p.ch[1].sleep_begin(false);
    if (next < kFrames && !p.ch[1].pending()) {
      ++asleep;
      int r;
      while ((r = result[static_cast<std::size_t>(next)].load(std::memory_order_acquire)) == kPending) {
      }
      if (r == kDone) ++lost;
    }
    p.ch[1].sleep_end(false);
    while (p.ch[1].poll([&](std::uint32_t, const std::byte*, std::size_t, std::size_t) {
      received.fetch_add(1, std::memory_order_acq_rel);
      return true;
    })) {
    }
  }
  sender.join();
  CHECK(lost == 0);
  CHECK(asleep > 0);  // the race was run
  CHECK(received.load() == kFrames);
}

TEST_CASE("the sleep hand-shake loses no wake-up under a race") {
  SUBCASE("membarrier where offered") { no_lost_wakeups(true); }
  SUBCASE("sequentially consistent") { no_lost_wakeups(false); }
}

TEST_CASE("staged chunks arrive in order and intact; a full area refuses until one is released") {
  Pair p(true, true, true);
  REQUIRE(p.ch[0].stages_to(1));
  REQUIRE(p.ch[1].stages_from(0));
  ShmChannel::StageChunk chunk{};
  CHECK_FALSE(p.ch[1].stage_peek(0, chunk));
  std::uint64_t next_token = 1;  // of the next chunk to publish, and to take
  std::uint64_t next_taken = 1;
  const auto publish = [&](std::size_t len) {
    std::byte* slot = p.ch[0].stage_begin(1);
    if (slot == nullptr) return false;
    const auto data = payload(len, static_cast<unsigned>(next_token));
    std::memcpy(slot, data.data(), len);
    CHECK(p.ch[0].stage_publish(1, next_token, next_token * 10, static_cast<std::uint32_t>(len),
                                static_cast<std::uint32_t>(len) ^ 0x5a5a,
                                next_token % 3 == 0) == ShmSend::done);
    ++next_token;
    return true;
  };
  const auto take = [&] {
    REQUIRE(p.ch[1].stage_peek(0, chunk));
    CHECK(chunk.token == next_taken);
    CHECK(chunk.offset == next_taken * 10);
    CHECK(chunk.crc == (chunk.len ^ 0x5a5a));
    CHECK(chunk.streamed == (next_taken % 3 == 0));
    const auto want = payload(chunk.len, static_cast<unsigned>(next_taken));
    CHECK(std::memcmp(chunk.data, want.data(), chunk.len) == 0);
    ++next_taken;
    return p.ch[1].stage_release(0);
  };
  // Several laps of the area, partial and whole chunks, wrapping at every offset.
  for (int round = 0; round < 7; ++round) {
    std::uint64_t published = 0;
    while (publish(round % 2 ? ShmChannel::kStageChunk : 1 + 977 * round)) ++published;
    CHECK(published == (round == 0 ? ShmChannel::kStageSlots : ShmChannel::kStageSlots - 1));
    CHECK_FALSE(p.ch[0].stage_begin(1));  // full
    // One back, one more in: the area refuses no longer than it must.
    CHECK(take() == ShmSend::done);
    CHECK(publish(64));
    CHECK_FALSE(p.ch[0].stage_begin(1));
    for (std::uint64_t i = 1; i < ShmChannel::kStageSlots; ++i) CHECK(take() == ShmSend::done);
  }
  CHECK(next_taken + 1 == next_token);  // one chunk still in
  take();
  CHECK_FALSE(p.ch[1].stage_peek(0, chunk));
  // The consumer's copy-out times reach the producer, by the way each chunk was written.
  std::uint64_t ns[2];
  p.ch[0].stage_copy_out_ns(1, ns);
  CHECK(ns[0] == 0);
  CHECK(ns[1] == 0);
  p.ch[1].stage_note_copy_out(0, true, 4000);
  p.ch[1].stage_note_copy_out(0, false, 1000);
  p.ch[1].stage_note_copy_out(0, false, 2000);
  p.ch[0].stage_copy_out_ns(1, ns);
  CHECK(ns[1] == 4001);
  CHECK(ns[0] == (3 * 1001 + 2000) / 4 + 1);
  // What the consumer pulled itself reaches the producer, for that Amsend only.
  CHECK(p.ch[0].stage_pulled(1, 7) == 0);
  p.ch[1].stage_note_pulled(0, 7, 256 * 1024);
  CHECK(p.ch[0].stage_pulled(1, 7) == 256 * 1024);
  CHECK(p.ch[0].stage_pulled(1, 8) == 0);
  p.ch[1].stage_note_pulled(0, 8, 512 * 1024);
  CHECK(p.ch[0].stage_pulled(1, 7) == 0);
  CHECK(p.ch[0].stage_pulled(1, 8) == 512 * 1024);
}

TEST_CASE("staging wake-ups: a chunk for a target asleep, a freed slot for a full source asleep") {
  for (const bool membarrier : {true, false}) {
    CAPTURE(membarrier);
    Pair p(true, membarrier, true);
    ShmChannel::StageChunk chunk{};
    p.ch[1].sleep_begin(false);
    REQUIRE(p.ch[0].stage_begin(1) != nullptr);
    CHECK(p.ch[0].stage_publish(1, 1, 0, 8, 0, false) == ShmSend::done_wake);
    p.ch[1].sleep_end(false);
    // A source asleep with room left waits for nothing: no wake-up.
    p.ch[0].sleep_begin(false);
    REQUIRE(p.ch[1].stage_peek(0, chunk));
    CHECK(p.ch[1].stage_release(0) == ShmSend::done);
    p.ch[0].sleep_end(false);
    // Every slot taken, then the source sleeps: the first slot freed wakes it.
    for (std::uint64_t i = 0; i < ShmChannel::kStageSlots; ++i) {
      REQUIRE(p.ch[0].stage_begin(1) != nullptr);
      CHECK(p.ch[0].stage_publish(1, 2 + i, 0, 8, 0, false) == ShmSend::done);
    }
    CHECK(p.ch[0].stage_begin(1) == nullptr);
    p.ch[0].sleep_begin(false);
    REQUIRE(p.ch[1].stage_peek(0, chunk));
    CHECK(p.ch[1].stage_release(0) == ShmSend::done_wake);
    REQUIRE(p.ch[1].stage_peek(0, chunk));
    CHECK(p.ch[1].stage_release(0) == ShmSend::done);  // no longer full
    p.ch[0].sleep_end(false);
  }
}

TEST_CASE("inboxes with and without staging areas do not attach to each other") {
  ShmChannel with, without;
  ShmAddress a_with, a_without;
  std::string why;
  with.enable_stages();
  REQUIRE_MESSAGE(with.create(0, 2, a_with, why), why);
  REQUIRE_MESSAGE(without.create(1, 2, a_without, why), why);
  CHECK_FALSE(with.attach(1, a_without));
  CHECK_FALSE(without.attach(0, a_with));
  CHECK_FALSE(with.stages_to(1));
  with.unlink();
  without.unlink();
}
