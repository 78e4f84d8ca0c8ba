// Interrupt mode: a task that only spins on its own memory (no LAPI calls)
// still receives Amsend, Put and Rmw, because the progress thread runs the
// engine when messages arrive. Run with LAPIS_MODE=interrupt.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <vector>

#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

// ThreadSanitizer: UCX's progress thread writes incoming Put data into user
// memory that the main thread watches by plain loads -- exactly the
// situation under test; the ordering comes from the data itself, which TSan
// cannot see. Suppress races whose writer is UCX's software-Put handler.
extern "C" const char* __tsan_default_suppressions() { return "race:ucp_put_handler\n"; }

namespace {

std::atomic<int> g_flag{0};
std::int64_t g_landing = 0;
std::atomic<int> g_go{0};

lapi::Landing on_go(lapi::Context&, const lapi::AmHeaderInfo&) {
  g_go.store(1, std::memory_order_release);
  return {};
}

lapi::Landing on_ping(lapi::Context&, const lapi::AmHeaderInfo& info) {
  return {info.data_len ? &g_landing : nullptr,
          [](lapi::Context&, void*, void*) { g_flag.store(1, std::memory_order_release); }, nullptr,
          nullptr};
}

// Spins on memory only, with a deadline so a broken progress thread fails
// the test instead of hanging it.
template <typename Pred>
bool spin_until(Pred pred, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a spinning task still receives amsend, put and rmw") {
  lapi::Context& ctx = rank_context();
  std::int64_t mode = 0;
  LAPI_OK(ctx.qenv(lapi::Query::interrupt_mode, mode));
  REQUIRE(mode == 1);
  LAPI_OK(ctx.register_handler(1, on_ping));
  std::vector<std::int64_t> user(16, 0);  // user memory: Put over CMA, software atomics
  LAPI_OK(ctx.register_memory(user.data(), user.size() * 8));
  const auto bases = exchange(ctx, reinterpret_cast<std::uint64_t>(user.data()));
  LAPI_OK(ctx.barrier());

  if (ctx.task_id() == 1) {
    volatile std::int64_t* mem = user.data();
    CHECK(spin_until([] { return g_flag.load(std::memory_order_acquire) == 1; }));
    CHECK(g_landing == 4242);
    CHECK(spin_until([&] { return mem[1] == 99; }));
    CHECK(spin_until([&] { return mem[2] == 7; }));
  } else if (ctx.task_id() == 0) {
    const std::int64_t ping = 4242, put_value = 99;
    lapi::Counter c;
    LAPI_OK(ctx.amsend(1, 1, nullptr, 0, &ping, sizeof ping, {{}, nullptr, &c}));
    LAPI_OK(ctx.waitcntr(c, 1));
    LAPI_OK(ctx.put(1, 8, bases[1] + 8, &put_value, {{}, nullptr, &c}));
    LAPI_OK(ctx.waitcntr(c, 1));
    std::int64_t prev = -1;
    LAPI_OK(ctx.rmw64(lapi::RmwOp::fetch_and_add, 1, bases[1] + 16, 7, 0, &prev, &c));
    LAPI_OK(ctx.waitcntr(c, 1));
    CHECK(prev == 0);
  }
  LAPI_OK(ctx.gfence());
}

// Run alone, with LAPIS_TAKEOVER_GRACE_US (10 s) longer than the spin deadline (5 s)
// (see interrupt_test.cc): task 1 leaves a wait (which parks the progress
// thread for that grace), calls hand_over_progress() and spins on memory.
// Only an immediate take-over lets the ping land before the deadline.
TEST_CASE("hand_over_progress ends the take-over grace at once") {
  lapi::Context& ctx = rank_context();
  LAPI_OK(ctx.register_handler(2, on_ping));
  LAPI_OK(ctx.register_handler(3, on_go));
  LAPI_OK(ctx.barrier());
  if (ctx.task_id() == 1) {
    lapi::Counter ready;
    LAPI_OK(ctx.amsend(0, 3, nullptr, 0, nullptr, 0, {{}, nullptr, &ready}));
    LAPI_OK(ctx.waitcntr(ready, 1));  // a wait: the progress thread parks
    ctx.hand_over_progress();
    CHECK(spin_until([] { return g_flag.load(std::memory_order_acquire) == 1; },
                     std::chrono::seconds(5)));
    CHECK(g_landing == 4242);
  } else if (ctx.task_id() == 0) {
    while (g_go.load(std::memory_order_acquire) == 0) LAPI_OK(ctx.probe());
    const std::int64_t ping = 4242;
    lapi::Counter c;
    LAPI_OK(ctx.amsend(1, 2, nullptr, 0, &ping, sizeof ping, {{}, nullptr, &c}));
    LAPI_OK(ctx.waitcntr(c, 1));
  }
  LAPI_OK(ctx.gfence());
}
