// LAPIS_CHECKSUM=crc32c: Amsends of every size (shared-memory ring, UCX
// eager, rendezvous, split copy), Puts, Gets and Rmw operands and results
// arrive intact byte for byte,
// and with LAPIS_FAULT_CORRUPT every injected fault is detected and
// repaired: injected == mismatches == repaired on every task, as many
// retransmissions as mismatches in the job, no failure. With
// INTEGRITY_EXPECT_FAILURE (and LAPIS_FAULT_CORRUPT=all:1, which damages
// retransmissions too) every operation fails with data_corrupt instead and
// nothing damaged is reported landed. Run by integrity_test under lapirun
// with the variables set.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lapi/testing.hpp"
#include "tests/core/amsend_inbox.hpp"
#include "tests/core/remote_errors.hpp"
#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

namespace {

constexpr int kRounds = 6;

unsigned char rma_pattern(lapi::TaskId owner, int round, std::size_t i) {
  return static_cast<unsigned char>(owner * 31 + round * 5 + i * 11 + 1);
}

std::size_t wrong_bytes(const unsigned char* p, std::size_t len, lapi::TaskId owner, int round) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < len; ++i) wrong += p[i] != rma_pattern(owner, round, i);
  return wrong;
}

bool expect_failure() { return std::getenv("INTEGRITY_EXPECT_FAILURE") != nullptr; }

std::uint64_t job_sum(lapi::Context& ctx, std::uint64_t mine) {
  std::uint64_t sum = 0;
  for (std::uint64_t v : exchange(ctx, mine)) sum += v;
  return sum;
}

}  // namespace

TEST_CASE("amsend of every size arrives intact with checksums") {
  lapi::Context& ctx = rank_context();
  if (expect_failure()) return;
  std::int64_t checksum = -1;
  LAPI_OK(ctx.qenv(lapi::Query::checksum, checksum));
  REQUIRE(checksum == static_cast<std::int64_t>(lapi::Checksum::crc32c));
  // Ring frames, UCX eager frames (ring full, or LAPIS_SHM=0), 12 KiB by
  // rendezvous, 64 KiB and 1 MiB by split copy (rendezvous with
  // LAPIS_SPLIT_COPY=0); zero bytes too.
  const std::vector<std::size_t> sizes = {0, 1, 8, 200, 3000, 7000, 12000, 65536 + 7, (1u << 20) + 3};
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    Setup& s = setup(sizes.size());
    const lapi::TaskId right = (s.ctx.task_id() + 1) % s.ctx.num_tasks();
    lapi::Counter completion;
    Sender sender;
    sender.completion = &completion;
    sender.send(s.ctx, right, sizes, {s.counters[right]});
    sender.wait(s.ctx);
    LAPI_OK(s.ctx.waitcntr(completion, static_cast<int>(sizes.size())));
    LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
    check_inbox(sizes);
    LAPI_OK(s.ctx.barrier());
  }
  // Polling mode, split copy on: the large ones went through the staging
  // areas (staged_copy.cc), unless LAPIS_STAGED_COPY=0 kept split copy's own
  // checks. (In interrupt mode a target asleep takes a frame through UCX,
  // and those go by split copy.)
  std::int64_t interrupt = 1, split = 0;
  LAPI_OK(ctx.qenv(lapi::Query::interrupt_mode, interrupt));
  LAPI_OK(ctx.qenv(lapi::Query::split_copy, split));
  const char* staged = std::getenv("LAPIS_STAGED_COPY");
  const lapi::ShmStats shm = ctx.shm_stats();
  if (staged != nullptr && std::string(staged) == "0") {
    CHECK(shm.staged_sent == 0);
  } else if (interrupt == 0 && split != 0 && shm.split_peers != 0) {
    CHECK(shm.staged_sent > 0);
    CHECK(shm.staged_received > 0);
    // A checked chunk goes by streaming stores, the CRC folded into the copy.
    CHECK(shm.staged_streamed > 0);
  }
}

namespace {

// Left half of `window`: this task's own pattern (others Get it); right
// half: what the left neighbour Puts.
void put_and_get_round_trip(lapi::Context& ctx, unsigned char* window, std::size_t half,
                            const std::vector<std::size_t>& lengths) {
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n;
  const lapi::TaskId left = (me + n - 1) % n;
  lapi::Counter put_landed;
  lapi::RemoteCounter mine;
  LAPI_OK(ctx.register_counter(put_landed, mine));
  const auto bases = exchange(ctx, reinterpret_cast<std::uint64_t>(window));
  const auto counters = exchange(ctx, mine.handle);
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    for (std::size_t i = 0; i < half; ++i) window[i] = rma_pattern(me, round, i);
    LAPI_OK(ctx.barrier());
    // Several sizes per round, so each crosses the injection count.
    for (std::size_t len : lengths) {
      CAPTURE(len);
      std::vector<unsigned char> got(len, 0);
      lapi::Counter got_done;
      LAPI_OK(ctx.get(right, len, bases[right], got.data(), {}, &got_done));
      LAPI_OK(ctx.waitcntr(got_done, 1));
      CHECK(wrong_bytes(got.data(), len, right, round) == 0);

      std::vector<unsigned char> out(len);
      for (std::size_t i = 0; i < len; ++i) out[i] = rma_pattern(me, round, i);
      lapi::Counter sent, done;
      LAPI_OK(ctx.put(right, len, bases[right] + half, out.data(),
                      {lapi::RemoteCounter{counters[right]}, &sent, &done}));
      LAPI_OK(ctx.waitcntr(sent, 1));
      LAPI_OK(ctx.waitcntr(done, 1));
      LAPI_OK(ctx.waitcntr(put_landed, 1));
      CHECK(wrong_bytes(window + half, len, left, round) == 0);
      LAPI_OK(ctx.barrier());
    }
  }
  LAPI_OK(ctx.unregister_counter(put_landed));
}

}  // namespace

TEST_CASE("put and get move intact data with checksums") {
  lapi::Context& ctx = rank_context();
  if (expect_failure()) return;
  // Registered user memory: UCX moves the Put, then the target checks.
  constexpr std::size_t kHalf = 96 * 1024 + 5;
  std::vector<unsigned char> window(2 * kHalf);
  LAPI_OK(ctx.register_memory(window.data(), window.size()));
  put_and_get_round_trip(ctx, window.data(), kHalf, {1, 8, 4000, kHalf});
  LAPI_OK(ctx.deregister_memory(window.data()));
}

TEST_CASE("puts into mapped memory are copied and checksummed in one pass") {
  lapi::Context& ctx = rank_context();
  if (expect_failure()) return;
  // Transport-allocated memory, mapped by the other tasks on this host: the
  // origin copies with the CRC (crc32c_copy_uncached), from 512 KiB with
  // streaming stores; the odd half puts the landing at an unaligned address.
  constexpr std::size_t kHalf = 600 * 1024 + 5;
  void* mem = nullptr;
  LAPI_OK(ctx.alloc_registered(2 * kHalf, mem));
  put_and_get_round_trip(ctx, static_cast<unsigned char*>(mem), kHalf, {8, 4000, 512 * 1024 + 1, kHalf});
  LAPI_OK(ctx.free_registered(mem));
}

TEST_CASE("rmw operands and results arrive intact with checksums") {
  lapi::Context& ctx = rank_context();
  if (expect_failure()) return;
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n;
  // One 64-bit and one 32-bit word per task; every task adds to, ors into
  // and swaps its right neighbour's, checking each old value it gets back.
  struct alignas(8) Words {
    std::int64_t wide = 0;
    std::int32_t narrow = 0;
    std::int32_t unused = 0;
  } words;
  LAPI_OK(ctx.register_memory(&words, sizeof words));
  const auto bases = exchange(ctx, reinterpret_cast<std::uint64_t>(&words));
  constexpr int kOps = 60;
  std::int64_t expect_wide = 0;
  std::int32_t expect_narrow = 0;
  for (int i = 0; i < kOps; ++i) {
    CAPTURE(i);
    const std::int64_t add = (std::int64_t{me + 1} << 33) + i * 7 + 1;
    std::int64_t old64 = -1;
    std::int32_t old32 = -1;
    lapi::Counter done;
    LAPI_OK(ctx.rmw64(lapi::RmwOp::fetch_and_add, right, bases[right], add, 0, &old64, &done));
    LAPI_OK(ctx.rmw32(lapi::RmwOp::compare_and_swap, right, bases[right] + 8, i + 1, expect_narrow,
                      &old32, &done));
    LAPI_OK(ctx.waitcntr(done, 2));
    CHECK(old64 == expect_wide);
    CHECK(old32 == expect_narrow);
    expect_wide += add;
    expect_narrow = i + 1;
  }
  LAPI_OK(ctx.barrier());
  const std::int64_t left_add_sum = [&] {
    const lapi::TaskId left = (me + n - 1) % n;
    std::int64_t sum = 0;
    for (int i = 0; i < kOps; ++i) sum += (std::int64_t{left + 1} << 33) + i * 7 + 1;
    return sum;
  }();
  CHECK(words.wide == left_add_sum);
  CHECK(words.narrow == kOps);
  LAPI_OK(ctx.barrier());
  LAPI_OK(ctx.deregister_memory(&words));
}

// Flood frames: the user header is the frame's number and a pattern from it.
struct FloodFrame {
  std::uint32_t number;
  unsigned char pattern[196];
};

struct FloodInbox {
  std::vector<std::uint32_t> seen;  // per frame number, how many arrived
  std::atomic<int> bad{0};
};

lapi::Landing on_flood_frame(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto* inbox = static_cast<FloodInbox*>(info.handler_arg);
  FloodFrame f;
  if (info.uhdr_len != sizeof f || info.data_len != 0) {
    inbox->bad.fetch_add(1);
    return {};
  }
  std::memcpy(&f, info.uhdr, sizeof f);
  bool intact = f.number < inbox->seen.size();
  for (std::size_t i = 0; intact && i < sizeof f.pattern; ++i) {
    intact = f.pattern[i] == static_cast<unsigned char>(f.number * 7 + i);
  }
  if (!intact) {
    inbox->bad.fetch_add(1);
    return {};
  }
  ++inbox->seen[f.number];
  return {};
}

// Blocks until the other side opens the FIFO too (open(2) on a FIFO waits
// for the other end): the synchronisation that keeps task 1 out of Lapis.
void meet_at_fifo(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  REQUIRE(fd >= 0);
  ::close(fd);
}

TEST_CASE("a flood past the replay ring: damaged frames are still sent again") {
  // Task 0 sends more frames than the replay ring holds (in bytes and in
  // entries) while task 1 makes no Lapis call; then task 1 takes them all.
  // Frames damaged early are NACKed long after the ring wrapped over them.
  const char* fifo_dir = std::getenv("INTEGRITY_FLOOD_DIR");
  if (fifo_dir == nullptr || expect_failure()) return;
  lapi::Context& ctx = rank_context();
  REQUIRE(ctx.num_tasks() == 2);
  constexpr std::uint32_t kFrames = 3 * 8192;  // 3x the ring's entries, ~5 MiB of frames
  static FloodInbox inbox;
  inbox.seen.assign(kFrames, 0);
  LAPI_OK(ctx.register_handler(9, on_flood_frame, &inbox));
  const std::string fifo = std::string(fifo_dir) + "/integrity_flood_fifo";
  if (ctx.task_id() == 1) REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  LAPI_OK(ctx.barrier());
  if (ctx.task_id() == 0) {
    lapi::Counter origin;
    FloodFrame f;
    for (std::uint32_t k = 0; k < kFrames; ++k) {
      f.number = k;
      for (std::size_t i = 0; i < sizeof f.pattern; ++i) {
        f.pattern[i] = static_cast<unsigned char>(k * 7 + i);
      }
      LAPI_OK(ctx.amsend(1, 9, &f, sizeof f, nullptr, 0, {{}, &origin, nullptr}));
    }
    meet_at_fifo(fifo, O_WRONLY);  // task 1 starts taking frames only now
    // Only now: sends UCX queued behind the full rings need task 1 to drain them.
    LAPI_OK(ctx.waitcntr(origin, static_cast<int>(kFrames)));
  } else {
    meet_at_fifo(fifo, O_RDONLY);
    ::unlink(fifo.c_str());
  }
  LAPI_OK(ctx.gfence());
  if (ctx.task_id() == 1) {
    CHECK(inbox.bad.load() == 0);
    std::uint32_t missing = 0, twice = 0;
    for (std::uint32_t n : inbox.seen) {
      missing += n == 0;
      twice += n > 1;
    }
    CHECK(missing == 0);
    CHECK(twice == 0);
  }
  LAPI_OK(ctx.barrier());
  LAPI_OK(ctx.unregister_handler(9));
}

namespace {

// Handler 10 lands message k as amsend_inbox.hpp's handler does (in
// slots[k]); its completion records when it completed.
struct OrderedInbox : Inbox {
  std::vector<int> completed_as;  // per message, its place in completion order
  std::atomic<int> completions{0};
};

void on_ordered_complete(lapi::Context&, void* inbox_ptr, void* message) {
  auto* inbox = static_cast<OrderedInbox*>(inbox_ptr);
  inbox->completed_as[reinterpret_cast<std::uintptr_t>(message)] = inbox->completions.fetch_add(1);
}

// handler_arg: the OrderedInbox as its Inbox, which on_header takes.
lapi::Landing on_ordered(lapi::Context& ctx, const lapi::AmHeaderInfo& info) {
  lapi::Landing landing = on_header(ctx, info);
  if (landing.buffer == nullptr) return landing;  // refused (counted in bad)
  std::uint32_t k = 0;
  std::memcpy(&k, info.uhdr, sizeof k);
  landing.on_complete = on_ordered_complete;
  landing.user_info = static_cast<OrderedInbox*>(static_cast<Inbox*>(info.handler_arg));
  landing.completion_arg = reinterpret_cast<void*>(std::uintptr_t{k});
  return landing;
}

}  // namespace

TEST_CASE("a split amsend whose check is held completes with nothing behind it, before what follows") {
  // Polling mode holds a split message's check until the next split frame or
  // an idle poll (split_copy.cc). Task 0 sends 1 MiB (split-copied) and waits
  // until its buffer is free, which the target reports only once the message
  // is checked: were the hold to wait for another frame, this would never
  // return (lapirun's timeout ends it). Then it sends 8 bytes, which must
  // complete after the 1 MiB one. A retransmission may reorder, so this runs
  // without injected faults.
  if (std::getenv("LAPIS_FAULT_CORRUPT") != nullptr || expect_failure()) return;
  lapi::Context& ctx = rank_context();
  constexpr std::uint32_t kPairs = 16;
  static OrderedInbox inbox;
  inbox.slots.assign(2 * kPairs, {});
  inbox.completed_as.assign(2 * kPairs, -1);
  inbox.completions = 0;
  LAPI_OK(ctx.register_handler(10, on_ordered, static_cast<Inbox*>(&inbox)));
  lapi::Counter landed;
  lapi::RemoteCounter mine;
  LAPI_OK(ctx.register_counter(landed, mine));
  const std::vector<std::uint64_t> counters = exchange(ctx, mine.handle);
  const std::vector<std::size_t> sizes = {(1u << 20) + 3, 8};
  if (ctx.task_id() == 0 && ctx.num_tasks() > 1) {
    std::vector<std::vector<unsigned char>> buffers(2 * kPairs);
    lapi::Counter origin;
    for (std::uint32_t k = 0; k < 2 * kPairs; ++k) {
      buffers[k].assign(sizes[k % 2], static_cast<unsigned char>(k));
      LAPI_OK(ctx.amsend(1, 10, &k, sizeof k, buffers[k].data(), buffers[k].size(),
                         {{counters[1]}, &origin, nullptr}));
      LAPI_OK(ctx.waitcntr(origin, 1));
    }
  }
  if (ctx.task_id() == 1) {
    LAPI_OK(ctx.waitcntr(landed, static_cast<int>(2 * kPairs)));
    CHECK(inbox.bad.load() == 0);
    for (std::uint32_t k = 0; k < 2 * kPairs; k += 2) {
      CAPTURE(k);
      CHECK(inbox.slots[k].size() == sizes[0]);
      CHECK(inbox.slots[k + 1].size() == sizes[1]);
      CHECK(inbox.completed_as[k] >= 0);
      CHECK(inbox.completed_as[k] < inbox.completed_as[k + 1]);
    }
  }
  LAPI_OK(ctx.barrier());
  LAPI_OK(ctx.unregister_handler(10));
  LAPI_OK(ctx.unregister_counter(landed));
}

TEST_CASE("a stray chunk in a staging area is refused; the staged amsend behind it lands intact") {
  // Task 0 writes a chunk naming no record into task 1's staging area, then
  // sends a staged Amsend: task 1 takes the stray first, refuses it (task 0
  // hears why), and lands the Amsend's own chunks. Task 1 polls without
  // sleeping from before it says it is ready: a frame for a target asleep
  // takes UCX, and so split copy, not the staging area.
  lapi::Context& ctx = rank_context();
  std::int64_t interrupt = 1;
  LAPI_OK(ctx.qenv(lapi::Query::interrupt_mode, interrupt));
  const char* staged = std::getenv("LAPIS_STAGED_COPY");
  const bool stages = interrupt == 0 && ctx.num_tasks() > 1 && ctx.shm_stats().split_peers != 0 &&
                      (staged == nullptr || std::string(staged) != "0");
  if (std::getenv("LAPIS_FAULT_CORRUPT") != nullptr || expect_failure() || !stages) return;
  static Reported refusals;
  ctx.set_remote_error_handler(on_remote_error, &refusals);
  const lapi::FaultStats before = ctx.fault_stats();
  const std::vector<std::size_t> sizes = {(1u << 20) + 3};
  Setup& s = setup(sizes.size());
  if (ctx.task_id() == 0) {
    LAPI_OK(ctx.waitcntr(s.landed, 1));  // task 1 is ready
    // The hook's own bad arguments: a task with no staging area for us (this
    // one), a chunk longer than a slot (64 KiB).
    const std::vector<unsigned char> big(64 * 1024 + 1);
    CHECK(lapi::testing::stage_send_raw(ctx, 0, 1, 0, big.data(), 8, 0).code() == lapi::Errc::tgt);
    const lapi::Status too_long = lapi::testing::stage_send_raw(
        ctx, 1, 1, 0, big.data(), static_cast<std::uint32_t>(big.size()), 0);
    CHECK(too_long.code() == lapi::Errc::hdr_len);
    CHECK(too_long.message().find("len=65537") != std::string::npos);
    const std::vector<unsigned char> junk(100, 0xee);
    LAPI_OK(lapi::testing::stage_send_raw(ctx, 1, 0xdead0000beefull, 0, junk.data(),
                                          static_cast<std::uint32_t>(junk.size()), 0));
    const std::uint64_t staged_before = ctx.shm_stats().staged_sent;
    send_all(ctx, 1, sizes, {s.counters[1]});
    REQUIRE(ctx.shm_stats().staged_sent == staged_before + 1);
    while (refusals.calls.load() == 0) LAPI_OK(ctx.probe());
    CHECK(refusals.last_code.load() == static_cast<int>(lapi::Errc::hdr_len));
  }
  if (ctx.task_id() == 1) {
    const std::uint32_t ready = 0;
    LAPI_OK(ctx.amsend(0, 1, &ready, sizeof ready, nullptr, 0, {s.counters[0]}));
    while (s.landed.get() == 0) LAPI_OK(ctx.probe());
    LAPI_OK(ctx.waitcntr(s.landed, 1));
    check_inbox(sizes);
    CHECK(ctx.fault_stats().refused_here == before.refused_here + 1);
  }
  LAPI_OK(ctx.barrier());
  ctx.set_remote_error_handler(nullptr, nullptr);
}

TEST_CASE("every injected fault was detected and repaired") {
  lapi::Context& ctx = rank_context();
  if (expect_failure()) return;
  LAPI_OK(ctx.gfence());
  const lapi::FaultStats f = ctx.fault_stats();
  MESSAGE("task ", ctx.task_id(), ": injected ", f.corruptions_injected, ", mismatches ",
          f.checksum_mismatches, ", retransmissions ", f.retransmissions, ", repaired ",
          f.checksum_repaired, ", failed ", f.checksum_failures);
  CHECK(f.checksum_failures == 0);
  CHECK(f.checksum_mismatches == f.corruptions_injected);
  CHECK(f.checksum_repaired == f.checksum_mismatches);
  const std::uint64_t injected = job_sum(ctx, f.corruptions_injected);
  CHECK(job_sum(ctx, f.retransmissions) == job_sum(ctx, f.checksum_mismatches));
  if (std::getenv("LAPIS_FAULT_CORRUPT") != nullptr) {
    // Every path named was used often enough to be hit (the test lists
    // which it expects hit in INTEGRITY_MIN_INJECTED).
    const char* min = std::getenv("INTEGRITY_MIN_INJECTED");
    CHECK(injected >= std::strtoull(min ? min : "1", nullptr, 10));
  } else {
    CHECK(injected == 0);
  }
  LAPI_OK(ctx.barrier());
}

TEST_CASE("damaged on every attempt: each operation fails with data_corrupt, none lands") {
  if (!expect_failure()) return;
  Setup& s = setup(3);
  lapi::Context& ctx = s.ctx;
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n;
  const auto expect_corrupt = [&](lapi::Counter& counter) {
    const lapi::Status st = ctx.waitcntr(counter, 1);
    CHECK(st.code() == lapi::Errc::data_corrupt);
  };
  // A ring (or eager) frame, a rendezvous, a split copy: the completion
  // counter fails (and the held rendezvous' origin counter too).
  const std::vector<std::size_t> sizes = {8, 12000, 65536 + 7};
  for (std::uint32_t seq = 0; seq < sizes.size(); ++seq) {
    CAPTURE(sizes[seq]);
    std::vector<unsigned char> data(sizes[seq], 0x5a);
    lapi::Counter origin, completion;
    LAPI_OK(ctx.amsend(right, 1, &seq, sizeof seq, data.data(), data.size(),
                       {lapi::RemoteCounter{s.counters[right]}, &origin, &completion}));
    expect_corrupt(completion);
    if (sizes[seq] == 8) {
      LAPI_OK(ctx.waitcntr(origin, 1));  // a replayed frame's buffer was free at once
    } else {
      expect_corrupt(origin);  // held until the target gave up
    }
  }
  constexpr std::size_t kLargePutAt = 4096;
  constexpr std::size_t kLargePut = 9000;  // a held Put, not a frame (integrity_rma.cc)
  std::vector<unsigned char> window(kLargePutAt + kLargePut);
  LAPI_OK(ctx.register_memory(window.data(), window.size()));
  const auto bases = exchange(ctx, reinterpret_cast<std::uint64_t>(window.data()));
  std::vector<unsigned char> out(kLargePut, 7), in(100, 0);
  lapi::Counter put_done, put_completion, get_done;
  // The target counter must not move (s.landed below), the completion
  // counter fails; a small Put's origin counter moved at once (its frame
  // was replayed from a copy), a large one's fails too.
  LAPI_OK(ctx.put(right, 100, bases[right], out.data(),
                  {lapi::RemoteCounter{s.counters[right]}, &put_done, &put_completion}));
  LAPI_OK(ctx.waitcntr(put_done, 1));
  expect_corrupt(put_completion);
  LAPI_OK(ctx.put(right, kLargePut, bases[right] + kLargePutAt, out.data(),
                  {lapi::RemoteCounter{s.counters[right]}, &put_done, &put_completion}));
  expect_corrupt(put_done);
  expect_corrupt(put_completion);
  LAPI_OK(ctx.get(right, in.size(), bases[right], in.data(), {}, &get_done));
  expect_corrupt(get_done);
  std::int64_t old = -1;
  lapi::Counter rmw_done;
  constexpr std::size_t kRmwWord = 1024;  // beside the failed Put's bytes
  LAPI_OK(ctx.rmw64(lapi::RmwOp::fetch_and_add, right, bases[right] + kRmwWord, 1, 0, &old, &rmw_done));
  expect_corrupt(rmw_done);
  CHECK(old == -1);  // no result reported
  LAPI_OK(ctx.gfence());
  // Nothing was reported landed here; every failure was counted where the
  // data landed: three Amsends, two Puts and an Rmw from the left, this
  // task's Get. The Rmw was never applied, the Puts' target counter never
  // moved and the small one's bytes never landed (the large one's did, damaged).
  CHECK(s.landed.get() == 0);
  std::int64_t word = -1;
  std::memcpy(&word, window.data() + kRmwWord, sizeof word);
  CHECK(word == 0);
  CHECK(std::count(window.begin(), window.begin() + 100, 7) == 0);
  const lapi::FaultStats f = ctx.fault_stats();
  CHECK(f.checksum_failures == 7);
  CHECK(f.checksum_repaired == 0);
  CHECK(f.checksum_mismatches == 7 * 4);
  CHECK(f.corruptions_injected == f.checksum_mismatches);
  LAPI_OK(ctx.deregister_memory(window.data()));
  LAPI_OK(ctx.barrier());
}
