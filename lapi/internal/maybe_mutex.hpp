#pragma once
// A mutex that is only taken when more than one thread may drive the engine
// (interrupt mode's progress thread, the thread completion policy). In pure
// polling mode with inline completion the hot path pays one predictable
// branch instead of a lock/unlock pair.

#include <atomic>
#include <mutex>

namespace lapi::internal {

class MaybeMutex {
 public:
  void enable(bool on) { enabled_.store(on, std::memory_order_release); }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // The flag itself, for readers outside the engine (Context's inline
  // handlers_may_run_concurrently).
  const std::atomic<bool>& switch_() const { return enabled_; }

  // The lock/unlock pair must see the same `enabled` value; enable() is only
  // called while no other engine thread runs, so a plain read is safe.
  void lock() {
    if (enabled_.load(std::memory_order_relaxed)) mutex_.lock();
  }
  bool try_lock() { return enabled_.load(std::memory_order_relaxed) ? mutex_.try_lock() : true; }
  void unlock() {
    if (enabled_.load(std::memory_order_relaxed)) mutex_.unlock();
  }

 private:
  std::atomic<bool> enabled_{false};
  std::mutex mutex_;
};

using Guard = std::lock_guard<MaybeMutex>;

}  // namespace lapi::internal
