// Put, Get and Rmw between registered regions, under contention.

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

namespace {

unsigned char pattern(std::uint32_t src, std::size_t i) { return static_cast<unsigned char>(src * 13 + i * 3 + 5); }

// Whether [base, base + len) holds task src's pattern.
bool holds_pattern(const void* base, std::size_t len, std::uint32_t src) {
  const auto* got = static_cast<const unsigned char*>(base);
  for (std::size_t i = 0; i < len; ++i) {
    if (got[i] != pattern(src, i)) return false;
  }
  return true;
}

struct Window {
  void* base = nullptr;
  std::vector<std::uint64_t> bases;  // every task's window
};

Window make_window(lapi::Context& ctx, std::size_t len, bool transport_allocated,
                   std::vector<unsigned char>& user_memory) {
  Window w;
  if (transport_allocated) {
    LAPI_OK(ctx.alloc_registered(len, w.base));
  } else {
    user_memory.assign(len, 0);
    w.base = user_memory.data();
    LAPI_OK(ctx.register_memory(w.base, len));
  }
  std::memset(w.base, 0, len);
  w.bases = exchange(ctx, reinterpret_cast<std::uint64_t>(w.base));
  return w;
}

// Frees what make_window took, so that a later window may reuse the address.
void release_window(lapi::Context& ctx, const Window& w, bool transport_allocated) {
  if (transport_allocated) {
    LAPI_OK(ctx.free_registered(w.base));
  } else {
    LAPI_OK(ctx.deregister_memory(w.base));
  }
}

// Whether UCX can map a peer's memory depends on the transports it found
// (test hosts in network namespaces still share /dev/shm; UCX_TLS=tcp does
// not map at all). rma_test runs on one host with UCX's defaults and says
// the mapping must work there.
bool expects_mapping() {
  const char* expect = std::getenv("LAPIS_TEST_EXPECT_MAPPED");
  return expect != nullptr && std::string(expect) == "1";
}

}  // namespace

TEST_CASE("put and get move data between registered regions") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kLen = 1 << 20;
  // A Put and a Get of each size below but the 8 B Put, which names counters
  // at the target and so goes as a ring frame (rma.cc, kPutFrameMax).
  constexpr std::uint64_t kInPlace = 5;
  std::int64_t checksum = 0;
  LAPI_OK(ctx.qenv(lapi::Query::checksum, checksum));  // checked Puts keep their own way
  const bool must_map = expects_mapping() && checksum == 0 && n > 1;

  for (bool allocated : {true, false}) {
    CAPTURE(allocated);
    const lapi::ShmStats before = ctx.shm_stats();
    std::vector<unsigned char> user;
    Window w = make_window(ctx, kLen, allocated, user);
    lapi::Counter target;
    lapi::RemoteCounter mine;
    LAPI_OK(ctx.register_counter(target, mine));
    const auto counters = exchange(ctx, mine.handle);

    for (std::size_t size : {std::size_t{8}, std::size_t{4096}, kLen}) {
      CAPTURE(size);
      std::vector<unsigned char> src(size);
      for (std::size_t i = 0; i < size; ++i) src[i] = pattern(me, i + size);
      lapi::Counter origin, completion;
      LAPI_OK(ctx.put(right, size, w.bases[right], src.data(),
                      {lapi::RemoteCounter{counters[right]}, &origin, &completion}));
      LAPI_OK(ctx.waitcntr(completion, 1));
      CHECK(origin.get() == 1);
      // Our target counter moved only once the data was visible here.
      LAPI_OK(ctx.waitcntr(target, 1));
      const auto* got = static_cast<const unsigned char*>(w.base);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < size; ++i) wrong += got[i] != pattern(left, i + size);
      CHECK(wrong == 0);

      // Read back what we wrote at the right neighbour; its target counter
      // tells it the Get happened.
      std::vector<unsigned char> back(size);
      lapi::Counter got_back;
      LAPI_OK(ctx.get(right, size, w.bases[right], back.data(), lapi::RemoteCounter{counters[right]}, &got_back));
      LAPI_OK(ctx.waitcntr(got_back, 1));
      CHECK(back == src);
      LAPI_OK(ctx.waitcntr(target, 1));
      LAPI_OK(ctx.barrier());
    }
    // Where UCX maps the neighbour's allocated region, this task's CPU
    // copies into and out of the mapping, with no call into UCX.
    const lapi::ShmStats after = ctx.shm_stats();
    if (must_map && allocated) CHECK(after.rma_mapped - before.rma_mapped == kInPlace);
    if (!allocated) CHECK(after.rma_mapped == before.rma_mapped);
    LAPI_OK(ctx.unregister_counter(target));
    LAPI_OK(ctx.gfence());
    release_window(ctx, w, allocated);
  }
}

TEST_CASE("fetch-and-add from every task sums exactly") {
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  constexpr int kAdds = 500;
  for (bool allocated : {true, false}) {
    CAPTURE(allocated);
    std::vector<unsigned char> user;
    Window w = make_window(ctx, 64, allocated, user);
    LAPI_OK(ctx.barrier());
    lapi::Counter done;
    std::vector<std::int64_t> prev64(kAdds);
    std::vector<std::int32_t> prev32(kAdds);
    for (int i = 0; i < kAdds; ++i) {
      LAPI_OK(ctx.rmw64(lapi::RmwOp::fetch_and_add, 0, w.bases[0], 1, 0, &prev64[i], &done));
      LAPI_OK(ctx.rmw32(lapi::RmwOp::fetch_and_add, 0, w.bases[0] + 8, 2, 0, &prev32[i], &done));
    }
    LAPI_OK(ctx.waitcntr(done, 2 * kAdds));
    LAPI_OK(ctx.gfence());
    if (ctx.task_id() == 0) {
      std::int64_t total64;
      std::int32_t total32;
      std::memcpy(&total64, w.base, 8);
      std::memcpy(&total32, static_cast<char*>(w.base) + 8, 4);
      CHECK(total64 == std::int64_t{n} * kAdds);
      CHECK(total32 == 2 * static_cast<std::int32_t>(n) * kAdds);
    }
    // Every fetched value is distinct across all tasks: here, strictly increasing.
    for (int i = 1; i < kAdds; ++i) CHECK(prev64[i] > prev64[i - 1]);
    LAPI_OK(ctx.barrier());
    release_window(ctx, w, allocated);
  }
}

TEST_CASE("fetch-and-or from every task sets every bit, high bits too") {
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId me = ctx.task_id();
  for (bool allocated : {true, false}) {
    CAPTURE(allocated);
    std::vector<unsigned char> user;
    Window w = make_window(ctx, 64, allocated, user);
    LAPI_OK(ctx.barrier());
    // Task t ORs bit t and bit 61 - t (the MPI window lock's flags sit at 61 and 62) into task
    // 0's 64-bit word, and bit t into its 32-bit word; task 0 included (its own memory).
    const std::int64_t bits64 = (std::int64_t{1} << me) | (std::int64_t{1} << (61 - me));
    std::int64_t prev64 = -1;
    std::int32_t prev32 = -1;
    lapi::Counter done;
    LAPI_OK(ctx.rmw64(lapi::RmwOp::fetch_and_or, 0, w.bases[0], bits64, 0, &prev64, &done));
    LAPI_OK(ctx.rmw32(lapi::RmwOp::fetch_and_or, 0, w.bases[0] + 8, std::int32_t{1} << me, 0, &prev32, &done));
    LAPI_OK(ctx.waitcntr(done, 2));
    CHECK((prev64 & bits64) == 0);  // nobody else sets our bits
    CHECK((prev32 & (std::int32_t{1} << me)) == 0);
    LAPI_OK(ctx.gfence());
    if (me == 0) {
      std::int64_t all64 = 0, got64;
      std::int32_t all32 = 0, got32;
      for (std::uint32_t t = 0; t < n; ++t) {
        all64 |= (std::int64_t{1} << t) | (std::int64_t{1} << (61 - t));
        all32 |= std::int32_t{1} << t;
      }
      std::memcpy(&got64, w.base, 8);
      std::memcpy(&got32, static_cast<char*>(w.base) + 8, 4);
      CHECK(got64 == all64);
      CHECK(got32 == all32);
    }
    LAPI_OK(ctx.barrier());
    release_window(ctx, w, allocated);
  }
}

TEST_CASE("compare-and-swap lock protects a remote read-modify-write") {
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId me = ctx.task_id();
  std::vector<unsigned char> user;
  Window w = make_window(ctx, 64, true, user);  // [0]: lock word, [8]: plain counter
  LAPI_OK(ctx.barrier());
  constexpr int kRounds = 50;
  for (int i = 0; i < kRounds; ++i) {
    // Acquire: CAS 0 -> me+1 until it succeeds.
    while (true) {
      std::int64_t old = -1;
      lapi::Counter c;
      LAPI_OK(ctx.rmw64(lapi::RmwOp::compare_and_swap, 0, w.bases[0], me + 1, 0, &old, &c));
      LAPI_OK(ctx.waitcntr(c, 1));
      if (old == 0) break;
      LAPI_OK(ctx.probe());
    }
    // Non-atomic increment of the plain counter through Get and Put.
    std::int64_t value = 0;
    lapi::Counter got, put_done;
    LAPI_OK(ctx.get(0, 8, w.bases[0] + 8, &value, {}, &got));
    LAPI_OK(ctx.waitcntr(got, 1));
    ++value;
    LAPI_OK(ctx.put(0, 8, w.bases[0] + 8, &value, {{}, nullptr, &put_done}));
    LAPI_OK(ctx.waitcntr(put_done, 1));
    // Release with swap; the previous value must have been ours.
    std::int64_t was = 0;
    lapi::Counter released;
    LAPI_OK(ctx.rmw64(lapi::RmwOp::swap, 0, w.bases[0], 0, 0, &was, &released));
    LAPI_OK(ctx.waitcntr(released, 1));
    CHECK(was == me + 1);
  }
  LAPI_OK(ctx.gfence());
  if (me == 0) {
    std::int64_t total;
    std::memcpy(&total, static_cast<char*>(w.base) + 8, 8);
    CHECK(total == std::int64_t{n} * kRounds);
  }
  LAPI_OK(ctx.barrier());
}

TEST_CASE("fence covers amsend and put; gfence quiesces everyone") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  std::vector<unsigned char> user;
  Window w = make_window(ctx, 4096, true, user);
  // Every task puts its id into slot `me` of every other task's window, then
  // gfence: afterwards all slots are filled everywhere, without counters.
  // Without an origin counter the source must stay valid until the fence: a
  // put may still be queued (over TCP, behind the endpoint's wireup) when
  // put() returns.
  const unsigned char id = static_cast<unsigned char>(me + 1);
  for (lapi::TaskId t = 0; t < n; ++t) LAPI_OK(ctx.put(t, 1, w.bases[t] + me, &id));
  LAPI_OK(ctx.gfence());
  const auto* slots = static_cast<const unsigned char*>(w.base);
  for (lapi::TaskId t = 0; t < n; ++t) CHECK(slots[t] == t + 1);
  LAPI_OK(ctx.barrier());
}

TEST_CASE("address_init gathers one value per task, repeatedly") {
  lapi::Context& ctx = rank_context();
  for (std::uint64_t round = 0; round < 20; ++round) {
    const auto all = exchange(ctx, ctx.task_id() * 1000 + round);
    for (std::uint32_t t = 0; t < ctx.num_tasks(); ++t) CHECK(all[t] == t * 1000 + round);
  }
}

TEST_CASE("flush_rma completes Puts at one target; prefetch_key learns a region's key") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kLen = 64 * 1024;
  for (bool allocated : {true, false}) {
    CAPTURE(allocated);
    std::vector<unsigned char> user;
    Window w = make_window(ctx, kLen, allocated, user);
    LAPI_OK(ctx.prefetch_key(right, w.bases[right], kLen));
    // An address no task registers (the bytes just past the window may
    // belong to the next registered allocation).
    CHECK(ctx.prefetch_key(right, 4096, 8).code() == lapi::Errc::not_registered);
    CHECK(ctx.flush_rma(n).code() == lapi::Errc::tgt);
    std::vector<unsigned char> src(kLen);
    for (std::size_t i = 0; i < kLen; ++i) src[i] = pattern(me, i);
    // No counters: flush_rma alone says the data is at the target.
    for (std::size_t off = 0; off < kLen; off += 4096) {
      LAPI_OK(ctx.put(right, 4096, w.bases[right] + off, src.data() + off));
    }
    LAPI_OK(ctx.flush_rma(right));
    LAPI_OK(ctx.barrier());
    CHECK(holds_pattern(w.base, kLen, left));
    LAPI_OK(ctx.barrier());
    release_window(ctx, w, allocated);
  }
}

TEST_CASE("map_remote: stores through the mapping reach the task; where it cannot map it says so") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kLen = 4096;
  std::vector<unsigned char> unused;
  Window w = make_window(ctx, kLen, true, unused);
  std::int64_t checksum = 0;
  LAPI_OK(ctx.qenv(lapi::Query::checksum, checksum));  // checked transfers only: no direct access
  const bool must_map = expects_mapping() && checksum == 0;
  void* p = nullptr;
  const lapi::Status s = ctx.map_remote(right, w.bases[right], kLen, p);
  if (must_map) CHECK_MESSAGE(s.ok(), s.message());
  if (checksum != 0) CHECK(s.code() == lapi::Errc::no_connectivity);
  if (s.ok()) {
    auto* out = static_cast<unsigned char*>(p);
    for (std::size_t i = 0; i < kLen; ++i) out[i] = pattern(me, i);
  } else {
    CHECK(s.code() == lapi::Errc::no_connectivity);
    CHECK(p == nullptr);
    std::vector<unsigned char> src(kLen);
    for (std::size_t i = 0; i < kLen; ++i) src[i] = pattern(me, i);
    LAPI_OK(ctx.put(right, kLen, w.bases[right], src.data()));
    LAPI_OK(ctx.flush_rma(right));
  }
  LAPI_OK(ctx.barrier());
  CHECK(holds_pattern(w.base, kLen, left));
  if (checksum == 0) {
    void* mine = nullptr;
    LAPI_OK(ctx.map_remote(me, w.bases[me], kLen, mine));  // this task's own: itself
    CHECK(mine == w.base);
  }
  // Past the region, another task, a null address: errors that say so.
  CHECK(ctx.map_remote(right, w.bases[right], 2 * kLen * 1024, p).code() == lapi::Errc::not_registered);
  CHECK(ctx.map_remote(n, w.bases[right], 8, p).code() == lapi::Errc::tgt);
  CHECK(ctx.map_remote(right, 0, 8, p).code() == lapi::Errc::tgt_addr_null);
  LAPI_OK(ctx.barrier());
  LAPI_OK(ctx.free_registered(w.base));
}
