// Split copy: large Amsends between tasks of one node are copied by both
// tasks (and with LAPIS_SPLIT_COPY=0 pulled by UCX's rendezvous); the
// target completes them even while the origin stays out of the library; a
// discarded or refused one frees the origin's buffer; forged split-copy
// messages are refused. Run by split_test under lapirun.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lapi/testing.hpp"
#include "runtime/bootstrap.hpp"
#include "tests/core/amsend_inbox.hpp"
#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

namespace {

// LAPIS_SPLIT_COPY=1: always; 0: never; unset or auto: while the host has no more tasks than
// cores (every task of this test is on this host).
bool split_on(std::uint32_t ntasks) {
  const char* v = std::getenv("LAPIS_SPLIT_COPY");
  const std::string mode = v == nullptr ? "auto" : v;
  if (mode == "auto") return static_cast<long>(ntasks) <= sysconf(_SC_NPROCESSORS_ONLN);
  return mode != "0";
}

// Protocol ids and records of lapi/internal/wire.hpp, forged below.
constexpr unsigned kAmsendPacked = 13;
constexpr unsigned kSplitGo = 15;
constexpr unsigned kSplitLast = 16;
constexpr unsigned kSplitDone = 17;
constexpr std::uint16_t kSplitData = 1u << 2;

// Handler 2 discards every message (no landing buffer); handler 3 refuses it.
lapi::Landing discard(lapi::Context&, const lapi::AmHeaderInfo&) { return {}; }
lapi::Landing refuse(lapi::Context&, const lapi::AmHeaderInfo&) {
  lapi::Landing l;
  l.refuse = static_cast<int>(lapi::Errc::data_len);
  return l;
}

// Handler 4 names a landing buffer that is not mapped: the copy into it fails.
lapi::Landing unmapped(lapi::Context&, const lapi::AmHeaderInfo&) {
  lapi::Landing l;
  l.buffer = reinterpret_cast<void*>(std::uintptr_t{4096});
  return l;
}

// Keeps this thread out of the library for `us` microseconds, as a sender that
// computes after its Amsend does.
void compute_for(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

TEST_CASE("large amsends to tasks on this node are split-copied; LAPIS_SPLIT_COPY=0 keeps UCX") {
  // The core's eager limit is 8 KiB: 8 KiB goes by UCX rendezvous, 16 KiB
  // in one part, the rest in 2 to 8 parts, odd sizes included.
  const std::vector<std::size_t> sizes = {8192, 16384, 65537, 200003, (1u << 20) + 3, 4u << 20};
  // Counted before the barrier: a peer may send (and this task land)
  // while this task is still leaving it.
  const lapi::ShmStats before = rank_context().shm_stats();
  Setup& s = setup(sizes.size());
  const lapi::TaskId me = s.ctx.task_id();
  const std::uint32_t n = s.ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n;
  lapi::Counter completion;
  Sender sender;
  sender.completion = &completion;
  sender.send(s.ctx, right, sizes, {s.counters[right]});
  sender.wait(s.ctx);
  LAPI_OK(s.ctx.waitcntr(completion, static_cast<int>(sizes.size())));
  LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
  check_inbox(sizes);
  const lapi::ShmStats after = s.ctx.shm_stats();
  std::int64_t query = -1;
  LAPI_OK(s.ctx.qenv(lapi::Query::split_copy, query));
  CHECK(query == (split_on(n) ? 1 : 0));
  if (split_on(n) && n > 1) {
    CHECK(after.split_peers == n - 1);
    CHECK(after.split_sent - before.split_sent == sizes.size() - 1);  // all but 8 KiB
    CHECK(after.split_received - before.split_received == sizes.size() - 1);
  } else {
    CHECK(after.split_peers == 0);
    CHECK(after.split_sent == 0);
    CHECK(after.split_received == 0);
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("split_min: below a larger eager limit, data from split_min up is split-copied") {
  // As the MPI layer sets it up: a 128 KiB eager limit (UCX eager), split
  // copy from split_min. 16 KiB is not split-copied here (staged or eager);
  // 32 KiB and up are split (or staged: split_sent counts both).
  const std::vector<std::size_t> sizes = {16384, 32768, 65537, 100003};
  const lapi::ShmStats before = rank_context().shm_stats();
  Setup& s = setup(sizes.size());
  std::int64_t eager = 0;
  std::int64_t split_min = 0;
  LAPI_OK(s.ctx.qenv(lapi::Query::eager_limit, eager));
  LAPI_OK(s.ctx.qenv(lapi::Query::split_min, split_min));
  CHECK(split_min == std::max<std::int64_t>(16384, eager));  // 0: the eager limit, 16 KiB at least
  LAPI_OK(s.ctx.senv(lapi::Query::eager_limit, 128 * 1024));
  LAPI_OK(s.ctx.senv(lapi::Query::split_min, 32768));
  std::int64_t now = 0;
  LAPI_OK(s.ctx.qenv(lapi::Query::split_min, now));
  CHECK(now == 32768);
  LAPI_OK(s.ctx.senv(lapi::Query::split_min, 100));  // below 16 KiB: 16 KiB
  LAPI_OK(s.ctx.qenv(lapi::Query::split_min, now));
  CHECK(now == 16384);
  const lapi::Status bad = s.ctx.senv(lapi::Query::split_min, -1);
  CHECK(bad.code() == lapi::Errc::set_val);
  CHECK(bad.message().find("split_min") != std::string::npos);
  LAPI_OK(s.ctx.senv(lapi::Query::split_min, 32768));

  const lapi::TaskId me = s.ctx.task_id();
  const std::uint32_t n = s.ctx.num_tasks();
  send_all(s.ctx, (me + 1) % n, sizes, {s.counters[(me + 1) % n]});
  LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
  check_inbox(sizes);
  const lapi::ShmStats after = s.ctx.shm_stats();
  const std::uint64_t split = split_on(n) && n > 1 ? sizes.size() - 1 : 0;  // all but 16 KiB
  // 16 KiB counts too only if staged.
  const auto check_split_or_staged = [split](std::uint64_t counted, std::uint64_t staged) {
    CHECK(counted >= split);
    CHECK(counted <= split + 1);
    if (counted > split) CHECK(staged > 0);
  };
  check_split_or_staged(after.split_sent - before.split_sent,
                        after.staged_sent - before.staged_sent);
  check_split_or_staged(after.split_received - before.split_received,
                        after.staged_received - before.staged_received);
  LAPI_OK(s.ctx.barrier());  // nobody sends under the old settings before all are done
  LAPI_OK(s.ctx.senv(lapi::Query::eager_limit, eager));
  LAPI_OK(s.ctx.senv(lapi::Query::split_min, 0));
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("staging takes 16 KiB and up below a larger split_min") {
  // As where a cross-memory read is dear: split copy from the eager limit,
  // staging from 16 KiB (its chunks follow the frame: no round trip to lose
  // to UCX's eager copies). One way, so split copy never takes over. In
  // interrupt mode a frame may find the target asleep and go through UCX.
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  const char* staged_copy = std::getenv("LAPIS_STAGED_COPY");
  if (n < 2 || !split_on(n) || (staged_copy != nullptr && std::string(staged_copy) == "0")) return;
  std::int64_t eager = 0;
  LAPI_OK(ctx.qenv(lapi::Query::eager_limit, eager));
  LAPI_OK(ctx.senv(lapi::Query::eager_limit, 128 * 1024));
  LAPI_OK(ctx.senv(lapi::Query::split_min, 128 * 1024));
  const std::vector<std::size_t> sizes = {16384, 40000};
  const lapi::ShmStats before = ctx.shm_stats();
  Setup& s = setup(sizes.size());
  const char* mode = std::getenv("LAPIS_MODE");
  const bool polling = mode == nullptr || std::string(mode) != "interrupt";
  if (s.ctx.task_id() == 0) {
    const lapi::ShmStats mid = s.ctx.shm_stats();
    send_all(s.ctx, 1, sizes, {s.counters[1]});
    const lapi::ShmStats after = s.ctx.shm_stats();
    const std::uint64_t staged = after.staged_sent - mid.staged_sent;
    const std::uint64_t refused =
        after.peer_asleep - mid.peer_asleep + after.ring_full - mid.ring_full;
    CHECK(staged <= sizes.size());
    CHECK(staged + refused >= sizes.size());
    if (polling) CHECK(staged == sizes.size());
  } else if (s.ctx.task_id() == 1) {
    LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
    check_inbox(sizes);
    const std::uint64_t staged = s.ctx.shm_stats().staged_received - before.staged_received;
    CHECK(staged <= sizes.size());
    if (polling) CHECK(staged == sizes.size());
  }
  LAPI_OK(s.ctx.barrier());
  LAPI_OK(s.ctx.senv(lapi::Query::eager_limit, eager));
  LAPI_OK(s.ctx.senv(lapi::Query::split_min, 0));
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("split_min_auto: where a cross-memory read costs too many copies, split copy starts at "
          "the eager limit") {
  // The ratio measured is this machine's; the bound decides. 0: every
  // machine's read is too dear; 1e9: none is.
  const std::uint32_t n = rank_context().num_tasks();
  const bool split = split_on(n) && n > 1;
  for (const double bound : {0.0, 1e9}) {
    CAPTURE(bound);
    lapi::Config config;
    LAPI_OK(lapi::Config::from_env(config));
    config.eager_limit = 128 * 1024;  // as the MPI layer sets it up
    config.split_min = 16384;
    config.split_min_auto = true;
    config.split_cma_ratio_max = bound;
    std::unique_ptr<lapi::Context> ctx;
    LAPI_OK(lapi::Context::init(config, ctx));
    LAPI_OK(ctx->register_handler(2, discard));
    const bool raised = split && bound == 0;
    std::int64_t split_min = 0;
    LAPI_OK(ctx->qenv(lapi::Query::split_min, split_min));
    CHECK(split_min == (raised ? 128 * 1024 : 16384));
    LAPI_OK(ctx->barrier());
    const std::vector<char> data(32768, 'x');
    LAPI_OK(ctx->amsend((ctx->task_id() + 1) % n, 2, nullptr, 0, data.data(), data.size()));
    LAPI_OK(ctx->gfence());
    CHECK(ctx->shm_stats().split_sent == (split && !raised ? 1u : 0u));
    // With an origin counter, 128 KiB and up: where the read is cheap split
    // copy takes it, not the staging area (one copy shared, not two).
    if (split && !raised) {
      const std::vector<char> large(256 * 1024, 'y');
      lapi::Counter origin;
      const lapi::ShmStats before = ctx->shm_stats();
      LAPI_OK(ctx->amsend((ctx->task_id() + 1) % n, 2, nullptr, 0, large.data(), large.size(),
                          {{}, &origin, nullptr}));
      LAPI_OK(ctx->waitcntr(origin, 1));
      LAPI_OK(ctx->gfence());
      CHECK(ctx->shm_stats().staged_sent == before.staged_sent);
      CHECK(ctx->shm_stats().split_sent == before.split_sent + 1);
    }
    LAPI_OK(ctx->term());
  }
}

TEST_CASE("split_done comes back through the ring; a fence returns with the origin buffer free") {
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  const std::vector<std::size_t> sizes = {300000};
  const lapi::ShmStats before = ctx.shm_stats();  // setup() polls: the message may land there
  Setup& s = setup(sizes.size());
  const lapi::TaskId me = s.ctx.task_id();
  if (me == 0) {
    Sender sender;
    sender.send(s.ctx, 1, sizes, {s.counters[1]});
    // The fence reply travels through UCX, split_done through the ring:
    // the fence still waits for the buffer (no waitcntr on it here).
    LAPI_OK(s.ctx.fence());
    CHECK(sender.origin.get() == 1);
    sender.wait(s.ctx);
  } else if (me == 1) {
    LAPI_OK(s.ctx.waitcntr(s.landed, 1));
    check_inbox(sizes);
    const lapi::ShmStats after = s.ctx.shm_stats();
    // Task 1 sent nothing else: its ring frames (or the UCX sends that stood
    // in for them: task 0 asleep, ring full) are split_go (5 parts of 64 KiB,
    // task 0 may help) and split_done, or, staged (the chunks follow the
    // frame unasked), split_done alone.
    if (split_on(ctx.num_tasks())) {
      const bool staged = after.staged_received > before.staged_received;
      CHECK(after.sent - before.sent + after.peer_asleep - before.peer_asleep + after.ring_full -
                before.ring_full == (staged ? 1 : 2));
    }
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("one way only: the origin, waiting in the library, copies parts too") {
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  std::vector<std::size_t> sizes(8, 2u << 20);
  Setup& s = setup(sizes.size());
  const lapi::TaskId me = s.ctx.task_id();
  const lapi::ShmStats before = s.ctx.shm_stats();
  if (me == 0) {
    send_all(s.ctx, 1, sizes, {s.counters[1]});
    // Whether the origin got to help depends on scheduling (8 ranks on 2
    // cores may never run both at once); reported, not required.
    MESSAGE("parts task 0 copied for task 1: ",
            s.ctx.shm_stats().split_parts_helped - before.split_parts_helped);
  } else if (me == 1) {
    LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
    check_inbox(sizes);
    CHECK(s.ctx.shm_stats().split_parts_helped == before.split_parts_helped);  // it only received
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("the target completes a split amsend while the origin stays out of the library") {
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  const std::vector<std::size_t> sizes = {(1u << 20) + 5, 3u << 20};
  Setup& s = setup(sizes.size());
  const lapi::TaskId me = s.ctx.task_id();
  const lapi::ShmStats before = s.ctx.shm_stats();
  lapis::runtime::process_bootstrap().barrier();  // everyone has left lapi's barrier
  if (me == 0) {
    // Sent, then into the launcher's barrier until task 1 has the data:
    // task 1 must copy every part itself. (Staged, as with their origin
    // counters they are, it reads what task 0 did not push: no split_go
    // reaches task 0 before it has left, for its amsend does not poll.)
    Sender sender;
    sender.send(s.ctx, 1, sizes, {s.counters[1]});
    lapis::runtime::process_bootstrap().barrier();
    sender.wait(s.ctx);
  } else {
    if (me == 1) {
      LAPI_OK(s.ctx.waitcntr(s.landed, static_cast<int>(sizes.size())));
      check_inbox(sizes);
      const lapi::ShmStats after = s.ctx.shm_stats();
      std::int64_t interrupt = 1;
      LAPI_OK(s.ctx.qenv(lapi::Query::interrupt_mode, interrupt));
      // (Either may have been split-copied: a frame to a target asleep in
      // its wait goes through UCX, and those are not staged. The first may
      // also have been pushed whole while task 0 was still sending the
      // second; with both staged the second cannot be: task 0 left with
      // most of it unpushed, so task 1 pulled it.)
      const std::uint64_t staged = after.staged_received - before.staged_received;
      const std::uint64_t pulled = after.staged_pulled - before.staged_pulled;
      CHECK(pulled <= staged);
      if (interrupt == 0 && staged == sizes.size()) CHECK(pulled >= 1);
    }
    lapis::runtime::process_bootstrap().barrier();
  }
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("a target that pulls stops when the origin comes back, and the origin pushes the rest") {
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  const lapi::TaskId me = ctx.task_id();
  // Task 0 sends 16 MiB to task 1 and computes for a while before it waits,
  // coming back while task 1 reads the rest (a 16 MiB pull takes milliseconds)
  // or before it starts; rounds go on until one pull was cut short, or 40.
  const std::vector<std::size_t> sizes = {(16u << 20) + 64 * 1024 + 9};
  const int compute_us[] = {200, 400, 800, 1600, 3200};
  std::uint64_t cuts = 0;
  std::uint64_t staged = 0;
  int rounds = 0;
  while (cuts == 0 && rounds < 40) {
    Setup& s = setup(sizes.size());
    const lapi::ShmStats before = s.ctx.shm_stats();
    if (me == 0) {
      Sender sender;
      sender.send(s.ctx, 1, sizes, {s.counters[1]});
      compute_for(compute_us[rounds % 5]);
      sender.wait(s.ctx);
    } else if (me == 1) {
      LAPI_OK(s.ctx.waitcntr(s.landed, 1));
      check_inbox(sizes);
    }
    const lapi::ShmStats after = s.ctx.shm_stats();
    const std::uint64_t mine = me == 1 ? after.staged_pulls_cut - before.staged_pulls_cut : 0;
    const std::uint64_t was_staged = me == 1 ? after.staged_received - before.staged_received : 0;
    cuts += exchange(s.ctx, mine)[1];
    staged += exchange(s.ctx, was_staged)[1];
    ++rounds;
  }
  std::int64_t interrupt = 1;
  LAPI_OK(ctx.qenv(lapi::Query::interrupt_mode, interrupt));
  MESSAGE(rounds, " rounds, ", staged, " staged, ", cuts, " pulls cut short");
  // Polling, a core each, ten staged rounds (the others went by split copy or UCX, to a
  // target asleep): the origin came back mid-pull in one of them.
  const bool cores_each = static_cast<long>(ctx.num_tasks()) <= sysconf(_SC_NPROCESSORS_ONLN);
  if (interrupt == 0 && cores_each && staged >= 10) CHECK(cuts >= 1);
  LAPI_OK(ctx.barrier());
}

TEST_CASE("a discarded, refused or failed split amsend frees the origin's buffer") {
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  Setup& s = setup(0);
  static bool registered = false;
  if (!registered) {
    LAPI_OK(s.ctx.register_handler(2, discard));
    LAPI_OK(s.ctx.register_handler(3, refuse));
    LAPI_OK(s.ctx.register_handler(4, unmapped));
    registered = true;
  }
  LAPI_OK(s.ctx.barrier());
  const lapi::TaskId me = s.ctx.task_id();
  const lapi::TaskId right = (me + 1) % s.ctx.num_tasks();
  const auto reported_before = s.ctx.fault_stats().reported_to_me;
  std::vector<unsigned char> data(1u << 20, 7);
  lapi::Counter origin;
  lapi::Counter completion;
  LAPI_OK(s.ctx.amsend(right, 2, nullptr, 0, data.data(), data.size(),
                       {{s.counters[right]}, &origin, &completion}));
  LAPI_OK(s.ctx.amsend(right, 3, nullptr, 0, data.data(), data.size(), {{}, &origin, nullptr}));
  LAPI_OK(s.ctx.waitcntr(origin, 2));
  LAPI_OK(s.ctx.waitcntr(completion, 1));  // the discarded one completed
  LAPI_OK(s.ctx.waitcntr(s.landed, 1));    // ... and moved its target counter
  // The refused one is reported.
  poll_until(s.ctx, [&] { return s.ctx.fault_stats().reported_to_me != reported_before; });
  CHECK(s.ctx.fault_stats().reported_to_me - reported_before == 1);
  LAPI_OK(s.ctx.barrier());
  // A landing buffer the kernel cannot write: the copy fails at both ends
  // (one part: at the target alone), nothing crashes, and the origin's
  // completion counter reports it. (Not tried on UCX's rendezvous, whose
  // transports may simply fault on such a buffer, nor on staged copy, which
  // copies out with the CPU as the ring does: without an origin counter
  // these Amsends are split-copied.)
  if (!split_on(s.ctx.num_tasks())) return;
  for (std::size_t len : {std::size_t{20000}, data.size()}) {
    CAPTURE(len);
    lapi::Counter failed;
    const auto reported = s.ctx.fault_stats().reported_to_me;
    LAPI_OK(s.ctx.amsend(right, 4, nullptr, 0, data.data(), len, {{}, nullptr, &failed}));
    const lapi::Status st = s.ctx.waitcntr(failed, 1);
    CHECK(st.code() == lapi::Errc::transport);
    CHECK(s.ctx.fault_stats().reported_to_me - reported == 1);
    LAPI_OK(s.ctx.barrier());
  }
}

TEST_CASE("a refused staged amsend's chunks are dropped; the staged amsend behind it lands") {
  // Staged, the chunks follow the frame before the target has seen it: a
  // refused Amsend's chunks reach the staging area anyway. The target must
  // drop them (not refuse each as a stray, nor land them in the next one).
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  const std::vector<std::size_t> sizes = {(1u << 20) + 3};
  Setup& s = setup(sizes.size());
  static bool registered = false;
  if (!registered) {
    LAPI_OK(s.ctx.register_handler(5, refuse));
    registered = true;
  }
  const lapi::FaultStats before = s.ctx.fault_stats();  // a peer may send while we leave:
  LAPI_OK(s.ctx.barrier());
  const lapi::TaskId right = (s.ctx.task_id() + 1) % s.ctx.num_tasks();
  std::vector<unsigned char> data(1u << 20, 9);
  lapi::Counter refused;
  LAPI_OK(s.ctx.amsend(right, 5, nullptr, 0, data.data(), data.size(), {{}, &refused, nullptr}));
  Sender sender;
  sender.send(s.ctx, right, sizes, {s.counters[right]});
  sender.wait(s.ctx);
  LAPI_OK(s.ctx.waitcntr(refused, 1));
  LAPI_OK(s.ctx.waitcntr(s.landed, 1));
  check_inbox(sizes);
  // The left neighbour's refused Amsend, once: its chunks were not strays.
  CHECK(s.ctx.fault_stats().refused_here - before.refused_here == 1);
  LAPI_OK(s.ctx.barrier());
}

TEST_CASE("forged split-copy messages are refused, not followed") {
  lapi::Context& ctx = rank_context();
  if (ctx.num_tasks() < 2) return;
  const auto before = ctx.fault_stats().refused_here;
  Setup& s = setup(1);
  const lapi::TaskId me = s.ctx.task_id();
  const lapi::TaskId right = (me + 1) % s.ctx.num_tasks();
  // split_go{src, cell, id, token, buffer, part_bytes, parts, generation}
  // naming no split amsend of the target's, ever: a record of generation
  // 0x7fff0000 (a split_go naming one of the last completed records is a
  // late one, dropped unrefused).
  struct Go {
    std::uint32_t src, cell;
    std::uint64_t id, token, buffer, part_bytes;
    std::uint32_t parts, generation;
  } go{me, 0, 0x7fff000000000001ull, 1, 0x1000, 65536, 2, 1};
  LAPI_OK(lapi::testing::send_raw(s.ctx, right, kSplitGo, &go, sizeof go, nullptr, 0));
  // split_last / split_done{src, code, record} for records that do not exist.
  struct Done {
    std::uint32_t src;
    std::int32_t code;
    std::uint64_t record;
  } done{me, 0, 0x700000003ull};
  LAPI_OK(lapi::testing::send_raw(s.ctx, right, kSplitLast, &done, sizeof done, nullptr, 0));
  LAPI_OK(lapi::testing::send_raw(s.ctx, right, kSplitDone, &done, sizeof done, nullptr, 0));
  // A packed Amsend frame flagged as split copy whose descriptor is 4
  // bytes, not 24: AmsendWire{src, handler 1, flags}, uhdr (seq 0), data.
  std::vector<unsigned char> frame(16);
  const std::uint16_t handler = 1;
  const std::uint16_t flags = kSplitData | 4 << 8;
  const std::uint32_t seq = 0, junk = 0xdeadbeef;
  std::memcpy(frame.data(), &me, 4);
  std::memcpy(frame.data() + 4, &handler, 2);
  std::memcpy(frame.data() + 6, &flags, 2);
  std::memcpy(frame.data() + 8, &seq, 4);
  std::memcpy(frame.data() + 12, &junk, 4);
  LAPI_OK(lapi::testing::send_raw(s.ctx, right, kAmsendPacked, nullptr, 0, frame.data(), frame.size()));
  poll_until(s.ctx, [&] { return s.ctx.fault_stats().refused_here - before >= 4; });
  CHECK(g_inbox.bad.load() == 0);
  CHECK(g_inbox.slots[0].empty());  // the forged frame never reached the handler
  LAPI_OK(s.ctx.barrier());
  // Still healthy: a real split amsend after the forged messages.
  const std::vector<std::size_t> sizes = {300000};
  send_all(s.ctx, right, sizes, {s.counters[right]});
  LAPI_OK(s.ctx.waitcntr(s.landed, 1));
  check_inbox(sizes);
  LAPI_OK(s.ctx.barrier());
}

// write_near (the MPI layer's direct landing) rides on the same
// cross-memory attach: each task writes into the next task's buffer, whose
// address that task published; bad targets and addresses are errors that
// name the argument, never a crash.
TEST_CASE("write_near writes into a task on this node; bad targets and addresses are errors") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  std::vector<std::uint8_t> mine(4096, 0);
  std::vector<std::uint64_t> addrs(n);
  LAPI_OK(ctx.address_init(reinterpret_cast<std::uint64_t>(mine.data()), addrs));
  const lapi::TaskId right = (me + 1) % n;
  const lapi::TaskId left = (me + n - 1) % n;
  CHECK(!ctx.writes_near(me));  // oneself: never
  CHECK(!ctx.writes_near(n));
  CHECK(ctx.write_near(n, addrs[right], mine.data(), 1).code() == lapi::Errc::tgt);
  // The capability split copy probes for at init; unlike split copy itself it stays on a host
  // with more tasks than cores (the sender copies alone). LAPIS_SPLIT_COPY=0 probes nothing.
  const char* split = std::getenv("LAPIS_SPLIT_COPY");
  const bool attach = split == nullptr || std::string(split) != "0";
  if (n > 1 && attach) {
    REQUIRE(ctx.writes_near(right));
    std::vector<std::uint8_t> out(4000);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(me * 31 + i);
    LAPI_OK(ctx.write_near(right, addrs[right] + 8, out.data(), out.size()));
    LAPI_OK(ctx.write_near(right, addrs[right], nullptr, 0));  // nothing to write
    CHECK(ctx.write_near(right, 0, out.data(), 1).code() == lapi::Errc::tgt_addr_null);
    CHECK(ctx.write_near(right, addrs[right], nullptr, 1).code() == lapi::Errc::org_addr_null);
    const lapi::Status unmapped = ctx.write_near(right, 4096, out.data(), 16);  // page 1: never mapped
    CHECK(unmapped.code() == lapi::Errc::transport);
    CHECK(std::string(unmapped.message()).find("write_near") != std::string::npos);
    LAPI_OK(ctx.barrier());  // every task has written
    for (std::size_t i = 0; i < 4000; ++i) {
      if (mine[8 + i] != static_cast<std::uint8_t>(left * 31 + i)) {
        FAIL_CHECK("byte " << i << " from task " << left << " is wrong");
        break;
      }
    }
    CHECK(mine[0] == 0);
    CHECK(mine[4095] == 0);
  } else if (n > 1) {
    CHECK(!ctx.writes_near(right));
    CHECK(ctx.write_near(right, addrs[right], mine.data(), 1).code() == lapi::Errc::no_connectivity);
  }
  LAPI_OK(ctx.barrier());
}
