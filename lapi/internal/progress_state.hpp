#pragma once
// Interrupt mode's progress thread and the application threads that drive
// progress themselves (progress.cc, wait.hpp). The thread is started and
// stopped (start_progress_thread, stop_progress_thread) only while no other
// engine thread runs; everything else here is atomics, read and written
// without lock_ by the progress thread and by any application thread that
// waits.
//
// Hand-off: a waiting application thread counts itself in `app_waiters`
// and bumps `app_epoch` (enter_wait); the progress thread parks (park())
// while either moves, and takes over once the application has stayed out of
// the library for a grace period, or at once when hand_over() asks. A
// thread polling in a loop of its own announces itself the same way
// (Context::DrivingProgress).
// `app_waiters` is also the futex word the parked thread sleeps on.

#include <atomic>
#include <cstdint>
#include <thread>

namespace lapi::internal {

struct ProgressState {
  std::thread thread;
  std::atomic<bool> stop{false};
  std::atomic<bool> has_thread{false};
  std::atomic<std::uint32_t> app_waiters{0};  // threads driving progress themselves
  std::atomic<bool> parked{false};            // the progress thread sits out a grace period
  std::atomic<bool> hand_over_asked{false};   // hand_over(): end that grace now
  std::atomic<std::uint32_t> app_epoch{0};    // bumped at every wait's entry
  std::atomic<std::uint32_t> sleepers{0};     // threads blocked on the worker's event fd

  // An application thread starts waiting: with a progress thread, announce
  // that this thread drives progress now, so the progress thread stays
  // parked (one wake-up per message, not two). Returns whether it announced.
  bool enter_wait() {
    const bool announce = has_thread.load(std::memory_order_acquire);
    if (announce) {
      app_waiters.fetch_add(1, std::memory_order_acq_rel);
      app_epoch.fetch_add(1, std::memory_order_release);
    }
    return announce;
  }
  // No wake-up on exit: the progress thread notices idleness by itself.
  void leave_wait(bool announced) {
    if (announced) app_waiters.fetch_sub(1, std::memory_order_acq_rel);
  }

  // Progress thread: parks for up to `grace_ns` (it saw `waiters` waiting).
  // Returns whether hand_over() asked for the take-over meanwhile.
  bool park(std::uint32_t waiters, long grace_ns);
  // Any thread (Context::hand_over_progress): the progress thread takes
  // over now, not after its grace period.
  void hand_over();
  // Wakes a parked progress thread (to stop it).
  void wake_parked();
};

}  // namespace lapi::internal
