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
  // Always inlined: at -O2 without LTO gcc kept unlock() out of line in
  // poll_once and amsend, a call on every message for a flag test.
  [[gnu::always_inline]] void lock() {
    if (enabled_.load(std::memory_order_relaxed)) mutex_.lock();
  }
  [[gnu::always_inline]] bool try_lock() {
    return enabled_.load(std::memory_order_relaxed) ? mutex_.try_lock() : true;
  }
  [[gnu::always_inline]] void unlock() {
    if (enabled_.load(std::memory_order_relaxed)) mutex_.unlock();
  }

 private:
  std::atomic<bool> enabled_{false};
  std::mutex mutex_;
};

using Guard = std::lock_guard<MaybeMutex>;

}  // namespace lapi::internal
