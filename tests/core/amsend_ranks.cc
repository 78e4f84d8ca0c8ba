// Amsend across sizes, with content and counter-order checks. Run by
// amsend_test under lapirun in every mode and completion policy.

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tests/core/rank_context.hpp"
#include "tests/support/sanitizers.hpp"

using namespace lapis::testing;

namespace {

struct Inbox {
  std::vector<unsigned char> buffer;
  std::atomic<int> completions{0};
  std::atomic<int> seen_before_counter{0};  // completion ran before the target counter moved
  lapi::Counter* target_counter = nullptr;
  std::uint64_t expect_len = 0;
  std::atomic<int> bad_header{0};
};

Inbox g_inbox;

unsigned char pattern(std::uint32_t src, std::size_t i) { return static_cast<unsigned char>(src * 31 + i * 7 + 1); }

void on_complete(lapi::Context&, void* user_info, void*) {
  auto* inbox = static_cast<Inbox*>(user_info);
  // The target counter must not have moved yet for this message.
  if (inbox->target_counter->get() == 0) inbox->seen_before_counter.fetch_add(1);
  inbox->completions.fetch_add(1);
}

lapi::Landing on_header(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto* inbox = static_cast<Inbox*>(info.handler_arg);
  std::uint64_t len = 0;
  if (info.uhdr_len != sizeof len) {
    inbox->bad_header.fetch_add(1);
  } else {
    std::memcpy(&len, info.uhdr, sizeof len);
    if (len != info.data_len) inbox->bad_header.fetch_add(1);
  }
  inbox->buffer.assign(info.data_len, 0);
  return {info.data_len ? inbox->buffer.data() : nullptr, on_complete, inbox, nullptr};
}

}  // namespace

TEST_CASE("amsend lands data directly with counters in order") {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (me + 1) % n;
  const lapi::TaskId left = (me + n - 1) % n;

  lapi::Counter target;
  g_inbox.target_counter = &target;
  LAPI_OK(ctx.register_handler(1, on_header, &g_inbox));
  lapi::RemoteCounter mine;
  LAPI_OK(ctx.register_counter(target, mine));
  const auto counters = exchange(ctx, mine.handle);
  LAPI_OK(ctx.barrier());

  std::int64_t eager = 0;
  LAPI_OK(ctx.qenv(lapi::Query::eager_limit, eager));
  const std::size_t e = static_cast<std::size_t>(eager);
  std::vector<std::size_t> sizes = {0, 1, 8, 64 * 1024, 1 << 20, 16 << 20};
  if (e > 0) sizes.push_back(e - 1);
  sizes.push_back(e);
  sizes.push_back(e + 1);

  int round = 0;
  for (std::size_t size : sizes) {
    CAPTURE(size);
    ++round;
    std::vector<unsigned char> out(size);
    for (std::size_t i = 0; i < size; ++i) out[i] = pattern(me, i);
    lapi::Counter origin, completion;
    const std::uint64_t len = size;
    LAPI_OK(ctx.amsend(right, 1, &len, sizeof len, size ? out.data() : nullptr, size,
                       {lapi::RemoteCounter{counters[right]}, &origin, &completion}));
    LAPI_OK(ctx.waitcntr(completion, 1));
    // The target finished, so our buffer was certainly reusable before.
    CHECK(origin.get() == 1);
    LAPI_OK(ctx.waitcntr(target, 1));
    CHECK(g_inbox.completions.load() == round);
    CHECK(g_inbox.seen_before_counter.load() == round);
    REQUIRE(g_inbox.buffer.size() == size);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < size; ++i) wrong += g_inbox.buffer[i] != pattern(left, i);
    CHECK(wrong == 0);
    LAPI_OK(ctx.barrier());
  }
  CHECK(g_inbox.bad_header.load() == 0);
}

namespace {
std::atomic<int> g_inside_code{0};

lapi::Landing sends_from_header(lapi::Context& ctx, const lapi::AmHeaderInfo& info) {
  // Forbidden: must fail with in_header_handler, not deadlock or succeed.
  int x = 0;
  lapi::Status s = ctx.amsend(info.src, 2, nullptr, 0, &x, sizeof x);
  g_inside_code.store(s.value());
  return {};
}
}  // namespace

TEST_CASE("communication from a header handler is refused") {
  lapi::Context& ctx = rank_context();
  LAPI_OK(ctx.register_handler(2, sends_from_header, nullptr));
  lapi::Counter target;
  lapi::RemoteCounter mine;
  LAPI_OK(ctx.register_counter(target, mine));
  const auto counters = exchange(ctx, mine.handle);
  const lapi::TaskId right = (ctx.task_id() + 1) % ctx.num_tasks();
  LAPI_OK(ctx.amsend(right, 2, nullptr, 0, nullptr, 0, {lapi::RemoteCounter{counters[right]}}));
  LAPI_OK(ctx.waitcntr(target, 1));
  CHECK(g_inside_code.load() == static_cast<int>(lapi::Errc::in_header_handler));
  LAPI_OK(ctx.gfence());
}

namespace {
std::vector<unsigned char> g_huge;
lapi::Landing on_huge(lapi::Context&, const lapi::AmHeaderInfo& info) {
  g_huge.resize(info.data_len);
  return {g_huge.data(), nullptr, nullptr, nullptr};
}
}  // namespace

TEST_CASE("amsend of 1 GiB lands intact" * doctest::skip(std::getenv("LAPIS_TEST_HUGE") == nullptr)) {
  lapi::Context& ctx = rank_context();
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  LAPI_OK(ctx.register_handler(3, on_huge));
  lapi::Counter target;
  lapi::RemoteCounter mine;
  LAPI_OK(ctx.register_counter(target, mine));
  const auto counters = exchange(ctx, mine.handle);
  // ThreadSanitizer's shadow memory multiplies what the two ranks touch:
  // at 1 GiB each rank reached 10.5 GB resident and the pair could be
  // OOM-killed beside other tests, and at 256 MiB the case took 38 s of a
  // CI run. 64 MiB keeps the same protocol path (rendezvous, zero-copy,
  // many CMA fragments).
  constexpr std::size_t kSize = lapis::testing::kSanitized ? std::size_t{64} << 20
                                                                 : std::size_t{1} << 30;
  std::vector<unsigned char> out(kSize);
  for (std::size_t i = 0; i < kSize; i += 4096) out[i] = static_cast<unsigned char>(me + i / 4096);
  out[kSize - 1] = 0xee;
  lapi::Counter done;
  LAPI_OK(ctx.amsend((me + 1) % n, 3, nullptr, 0, out.data(), kSize,
                     {lapi::RemoteCounter{counters[(me + 1) % n]}, nullptr, &done}));
  LAPI_OK(ctx.waitcntr(done, 1));
  LAPI_OK(ctx.waitcntr(target, 1));
  const lapi::TaskId left = (me + n - 1) % n;
  REQUIRE(g_huge.size() == kSize);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kSize; i += 4096) wrong += g_huge[i] != static_cast<unsigned char>(left + i / 4096);
  CHECK(wrong == 0);
  CHECK(g_huge[kSize - 1] == 0xee);
  LAPI_OK(ctx.barrier());
}

namespace {
std::vector<unsigned char> g_uhdr_seen;
lapi::Landing keep_uhdr(lapi::Context&, const lapi::AmHeaderInfo& info) {
  const auto* p = static_cast<const unsigned char*>(info.uhdr);
  g_uhdr_seen.assign(p, p + info.uhdr_len);
  return {};
}
}  // namespace

TEST_CASE("user headers up to MAX_UHDR_SZ arrive intact") {
  lapi::Context& ctx = rank_context();
  std::int64_t max_uhdr = 0;
  LAPI_OK(ctx.qenv(lapi::Query::max_uhdr_size, max_uhdr));
  REQUIRE(max_uhdr >= 64);
  LAPI_OK(ctx.register_handler(4, keep_uhdr));
  LAPI_OK(ctx.barrier());
  const lapi::TaskId me = ctx.task_id();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId left = (me + n - 1) % n;
  for (std::size_t len : {std::size_t{1}, std::size_t{16}, static_cast<std::size_t>(max_uhdr)}) {
    CAPTURE(len);
    std::vector<unsigned char> uhdr(len), expect(len);
    for (std::size_t i = 0; i < len; ++i) {
      uhdr[i] = static_cast<unsigned char>(i * 5 + me);
      expect[i] = static_cast<unsigned char>(i * 5 + left);
    }
    lapi::Counter done;
    LAPI_OK(ctx.amsend((me + 1) % n, 4, uhdr.data(), len, nullptr, 0, {{}, nullptr, &done}));
    LAPI_OK(ctx.waitcntr(done, 1));
    // The left neighbour's header was handled here before it left the barrier.
    LAPI_OK(ctx.barrier());
    CHECK(g_uhdr_seen == expect);
    LAPI_OK(ctx.barrier());  // nobody sends the next round before all checked
  }
  LAPI_OK(ctx.barrier());
}

namespace {
// Messages of "amsend_now": the uhdr is the round, which picks the message's landing slot (the
// paths may reorder messages, and completions may run later on another thread).
constexpr int kNowRounds = 50;
struct NowInbox {
  std::vector<unsigned char> landed = std::vector<unsigned char>(kNowRounds * 8);
  std::uint32_t from = 0;
  std::atomic<int> headers{0};
  std::atomic<int> completed{0};
};
NowInbox g_now;

void on_now_complete(lapi::Context&, void*, void*) { g_now.completed.fetch_add(1); }

lapi::Landing on_now(lapi::Context&, const lapi::AmHeaderInfo& info) {
  int round = -1;
  if (info.uhdr_len == sizeof round) std::memcpy(&round, info.uhdr, sizeof round);
  // A message amsend_now should not have sent, or a damaged header: dropped, and the count shows it.
  if (round < 0 || round >= kNowRounds || info.data_len != 8) return {};
  g_now.headers.fetch_add(1);
  return {g_now.landed.data() + round * 8, on_now_complete, nullptr, nullptr};
}
}  // namespace

TEST_CASE("amsend_now leaves inside the call or sends nothing") {
  lapi::Context& ctx = rank_context();
  const std::uint32_t n = ctx.num_tasks();
  const lapi::TaskId right = (ctx.task_id() + 1) % n;
  g_now.from = (ctx.task_id() + n - 1) % n;
  LAPI_OK(ctx.register_handler(3, on_now, &g_now));
  LAPI_OK(ctx.barrier());

  // Small messages leave at once (the shared-memory ring, or UCX's immediate send): the buffer
  // is reusable when the call returns, so it is overwritten at once.
  int at_once = 0;
  for (int round = 0; round < kNowRounds; ++round) {
    unsigned char out[8];
    for (std::size_t i = 0; i < 8; ++i) out[i] = pattern(ctx.task_id(), i + static_cast<std::size_t>(round));
    bool sent = false;
    LAPI_OK(ctx.amsend_now(right, 3, &round, sizeof round, out, sizeof out, sent));
    if (sent) {
      ++at_once;
    } else {
      lapi::Counter origin;
      LAPI_OK(ctx.amsend(right, 3, &round, sizeof round, out, sizeof out, {{}, &origin, nullptr}));
      LAPI_OK(ctx.waitcntr(origin, 1));
    }
    std::memset(out, 0xee, sizeof out);
  }
  CHECK(at_once > 0);

  // Above the eager limit a message cannot leave inside the call: nothing is sent.
  std::int64_t eager = 0;
  LAPI_OK(ctx.qenv(lapi::Query::eager_limit, eager));
  std::vector<unsigned char> big(static_cast<std::size_t>(eager) + 1);
  int round = 0;
  bool sent = true;
  LAPI_OK(ctx.amsend_now(right, 3, &round, sizeof round, big.data(), big.size(), sent));
  CHECK_FALSE(sent);

  // Messages that left count for the fence like any Amsend: after it all of them landed (their
  // completions may still run, on the handler thread).
  LAPI_OK(ctx.gfence());
  CHECK(g_now.headers.load() == kNowRounds);
  while (g_now.completed.load() < kNowRounds) LAPI_OK(ctx.probe());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < g_now.landed.size(); ++i) wrong += g_now.landed[i] != pattern(g_now.from, i % 8 + i / 8);
  CHECK(wrong == 0);

  // Bad arguments: the error names them, and nothing is sent.
  sent = true;
  lapi::Status s = ctx.amsend_now(n, 3, nullptr, 0, nullptr, 0, sent);
  CHECK(s.code() == lapi::Errc::tgt);
  CHECK(s.message().find("tgt=") != std::string::npos);
  CHECK_FALSE(sent);
  s = ctx.amsend_now(right, 3, &round, sizeof round, nullptr, 8, sent);
  CHECK(s.code() == lapi::Errc::org_addr_null);
  CHECK_FALSE(sent);
  LAPI_OK(ctx.gfence());
  CHECK(g_now.headers.load() == kNowRounds);
}
