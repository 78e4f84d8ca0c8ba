// A task that dies under lapirun --continue-on-failure (3 tasks; task 2 is
// killed): the others hear of it once, a wait that can only end through it
// returns Errc::tgt_purged naming it, operations naming it are refused, and
// the two left keep talking, fence, and end together.

#include <doctest/doctest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>

#include "tests/core/rank_context.hpp"

using namespace lapis::testing;

namespace {

struct Heard {
  std::atomic<int> calls{0};
  std::atomic<int> task{-1};
  std::string why;
};
Heard g_heard;

void on_peer_failed(lapi::Context&, lapi::TaskId task, const char* why, void* arg) {
  auto* heard = static_cast<Heard*>(arg);
  heard->why = why;
  heard->task.store(static_cast<int>(task));
  heard->calls.fetch_add(1);
}

lapi::Landing discard(lapi::Context&, const lapi::AmHeaderInfo&) { return {}; }

void expect_purged(lapi::Status s, const char* what) {
  INFO(what << ": " << s.message());
  CHECK(s.code() == lapi::Errc::tgt_purged);
  CHECK(s.message().find("task 2 failed") != std::string::npos);
}

}  // namespace

TEST_CASE("the tasks left hear of a dead task, stop waiting for it and go on") {
  lapi::Context& ctx = rank_context();
  REQUIRE(ctx.num_tasks() == 3);
  LAPI_OK(ctx.add_peer_failure_handler(on_peer_failed, &g_heard));
  LAPI_OK(ctx.register_handler(1, discard, nullptr));
  lapi::Counter arrived;
  lapi::RemoteCounter mine;
  LAPI_OK(ctx.register_counter(arrived, mine));
  const auto counters = exchange(ctx, mine.handle);
  LAPI_OK(ctx.gfence());
  // Task 2 dies once both others are past the gfence (they tell it so).
  const lapi::TaskId me = ctx.task_id();
  if (me == 2) {
    LAPI_OK(ctx.waitcntr(arrived, 2));
    ::raise(SIGKILL);
  }
  LAPI_OK(ctx.amsend(2, 1, nullptr, 0, nullptr, 0, {lapi::RemoteCounter{counters[2]}}));

  // Task 0 waits on a counter only task 2 could move (not `arrived`: task
  // 1, once it has noticed, sends there); task 1 polls.
  lapi::Counter from_two;
  const auto start = std::chrono::steady_clock::now();
  if (me == 0) {
    expect_purged(ctx.waitcntr(from_two, 1), "waitcntr on task 2's message");
  } else {
    poll_until(ctx, [&] { return ctx.peer_failed(2); });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("task %u: task 2's failure noticed after %.3f s\n", me, seconds);
  CHECK(ctx.peer_failed(2));
  CHECK_FALSE(ctx.peer_failed(1 - me));
  CHECK(g_heard.calls.load() == 1);
  CHECK(g_heard.task.load() == 2);
  INFO(g_heard.why);
  CHECK(g_heard.why.find("rank 2 killed by signal 9") != std::string::npos);

  int word = 7;
  expect_purged(ctx.amsend(2, 1, nullptr, 0, nullptr, 0), "amsend to task 2");
  expect_purged(ctx.put(2, sizeof word, 64, &word), "put to task 2");
  expect_purged(ctx.get(2, sizeof word, 64, &word), "get from task 2");
  expect_purged(ctx.flush_rma(2), "flush_rma to task 2");

  // The two left: a hundred Amsends each way, counted at the target.
  const lapi::TaskId other = 1 - me;
  constexpr int kRounds = 100;
  for (int i = 0; i < kRounds; ++i) {
    LAPI_OK(ctx.amsend(other, 1, &i, sizeof i, nullptr, 0, {lapi::RemoteCounter{counters[other]}}));
  }
  LAPI_OK(ctx.waitcntr(arrived, kRounds));
  LAPI_OK(ctx.fence());
  expect_purged(ctx.barrier(), "barrier");
  LAPI_OK(ctx.term());
}
