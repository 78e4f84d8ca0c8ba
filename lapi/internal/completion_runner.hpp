#pragma once
// Where completion jobs wait and what runs them, per completion policy
// (completion.hpp): `deferred` for inline and fiber jobs (run by whoever
// drives progress, right after ucp_worker_progress returns), the handler
// thread for the thread policy, the fiber scheduler for the fiber policy.
//
// Who touches what: landed_locked (UCX callbacks, lock_ held) defers jobs
// or pushes them to the handler thread; poll_once and run_deferred
// (progress.cc) run them. `deferred` is guarded by the engine's lock_;
// `next` and `depth` are used only in single-thread mode (lock_ off), where
// nested polls continue the same queue. `deferred_count` may be read
// without lock_. The handler thread and fiber scheduler are created by
// apply_policy and destroyed by shutdown(), while no other engine thread
// runs; `fiber_mutex` lets one thread at a time resume fibers.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "lapi/internal/completion.hpp"

namespace lapi::internal {

struct CompletionRunner {
  std::vector<CompletionJob> deferred;          // inline and fiber jobs, guarded by lock_
  std::atomic<std::uint32_t> deferred_count{0};  // jobs pending, readable without lock_
  std::size_t next = 0;                          // next job to run (single-thread mode)
  int depth = 0;                                 // nesting of run_deferred (single-thread mode)
  std::unique_ptr<HandlerThread> handler_thread;
  std::unique_ptr<FiberScheduler> fibers;
  std::mutex fiber_mutex;  // one thread at a time resumes fibers

  // Caller holds lock_.
  void defer(const CompletionJob& job) {
    deferred.push_back(job);
    deferred_count.store(static_cast<std::uint32_t>(deferred.size()), std::memory_order_relaxed);
  }
  // Whether deferred jobs wait (a hint: poll_once asks without lock_).
  bool has_deferred() const { return deferred_count.load(std::memory_order_relaxed) != 0; }
  // Several threads may poll: the deferred jobs move into `jobs` (empty) to
  // be run outside lock_, which the caller holds.
  void take_deferred(std::vector<CompletionJob>& jobs) {
    jobs.swap(deferred);
    next = 0;
    deferred_count.store(0, std::memory_order_relaxed);
  }
  // Single-thread mode, the outermost run_deferred: every job ran.
  void clear_deferred() {
    deferred.clear();
    next = 0;
    deferred_count.store(0, std::memory_order_relaxed);
  }
  // Resumes the fibers that wait, unless another thread is at it or this
  // is a fiber. Returns whether a job finished.
  bool resume_fibers() {
    if (!fibers || !fibers->has_waiting() || FiberScheduler::in_fiber()) return false;
    std::unique_lock<std::mutex> g(fiber_mutex, std::try_to_lock);
    return g.owns_lock() && fibers->resume_waiting();
  }
  // Runs `job` on a fiber; `shared`: several threads drive the engine, so
  // take fiber_mutex.
  void spawn_fiber(const CompletionJob& job, bool shared) {
    if (shared) {
      std::lock_guard<std::mutex> g(fiber_mutex);
      fibers->spawn(job);
    } else {
      fibers->spawn(job);
    }
  }
};

}  // namespace lapi::internal
