#pragma once
// Completion policies. A CompletionJob is what is left to do once an
// Amsend's data has landed: run the user's completion handler, then bump the
// target counter and acknowledge to the origin (Engine::finish_job).
//   inline: the job is run by whoever drives progress, right after
//           ucp_worker_progress returns (never inside a UCX callback);
//   thread: HandlerThread runs jobs on one dedicated thread, fed through a
//           Boost.Lockfree single-producer/single-consumer queue (producers
//           hold the engine lock, so there is one producer at a time);
//   fiber:  FiberScheduler runs each job on a Boost.Context fiber; a handler
//           that waits on a counter yields back to the progress loop.

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <boost/lockfree/spsc_queue.hpp>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"

namespace lapi::internal {

struct CompletionJob {
  CompletionHandler handler = nullptr;
  void* user_info = nullptr;
  void* completion_arg = nullptr;
  Counter* target_counter = nullptr;
  TaskId src = 0;
  std::uint64_t cookie = 0;  // origin's completion cookie, 0 if none
};

// What runs a job (the handler, then the engine's counters and ack): a plain
// function and its owner, so the per-job call is a direct one.
struct JobRunner {
  void (*fn)(void* owner, const CompletionJob& job) = nullptr;
  void* owner = nullptr;
  void operator()(const CompletionJob& job) const { fn(owner, job); }
};

class HandlerThread {
 public:
  explicit HandlerThread(JobRunner run);
  ~HandlerThread();
  HandlerThread(const HandlerThread&) = delete;
  HandlerThread& operator=(const HandlerThread&) = delete;

  // Producer side: caller holds the engine lock (one producer at a time).
  void push(const CompletionJob& job);

 private:
  void loop();

  JobRunner run_;
  boost::lockfree::spsc_queue<CompletionJob, boost::lockfree::capacity<4096>> queue_;
  std::mutex overflow_mutex_;  // guards overflow_ (used only when queue_ is full)
  std::deque<CompletionJob> overflow_;
  std::atomic<std::uint32_t> wake_{0};  // futex word the idle thread sleeps on
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Runs completion jobs on a pool of worker fibers: a job costs two context
// switches (into an idle worker and back), not a fiber creation. A job that
// waits leaves its worker suspended until resume_waiting() finds it done.
class FiberScheduler {
 public:
  explicit FiberScheduler(JobRunner run);
  ~FiberScheduler();
  FiberScheduler(const FiberScheduler&) = delete;
  FiberScheduler& operator=(const FiberScheduler&) = delete;

  // Runs the job on a worker fiber until it finishes or waits.
  void spawn(const CompletionJob& job);
  // Resumes every waiting worker once. Returns whether any job finished.
  bool resume_waiting();
  // Safe to call from any thread (a hint; resume_waiting needs the lock).
  bool has_waiting() const { return waiting_count_.load(std::memory_order_relaxed) != 0; }

  // Inside a job run by any scheduler: suspend back to the scheduler.
  static bool in_fiber() { return tl_scheduler_side_ != nullptr; }
  static void yield();

 private:
  struct Worker {
    boost::context::fiber fiber;  // the worker's suspended context
    CompletionJob job;
    bool done = true;
  };
  Worker* new_worker();
  void dispatch(Worker* w);

  JobRunner run_;
  boost::context::pooled_fixedsize_stack stacks_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<Worker*> idle_;
  std::vector<Worker*> waiting_;
  std::atomic<std::size_t> waiting_count_{0};
  // Where the fiber running on this thread returns to.
  // Initial-exec for the same reason as tl_header_handler_depth: every
  // blocking wait asks in_fiber().
  static thread_local boost::context::fiber* tl_scheduler_side_
      __attribute__((tls_model("initial-exec")));
};

}  // namespace lapi::internal
