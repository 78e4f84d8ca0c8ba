#pragma once
// Engine::wait_until, shared by every blocking call (Waitcntr, Fence,
// barrier, rkey fetch). Included only by engine.hpp.

namespace lapi {

template <typename Done>
Status Context::Impl::wait_until(Done done) {
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "a blocking call was made from inside a header handler");
  }
  if (internal::FiberScheduler::in_fiber()) {
    // A completion handler on a fiber: let the progress loop run meanwhile.
    while (!done()) internal::FiberScheduler::yield();
    return Errc::success;
  }
  // With a progress thread, announce that this thread drives progress now,
  // so the progress thread stays parked (one wake-up per message, not two).
  const bool announce = has_progress_thread_.load(std::memory_order_acquire);
  if (announce) {
    app_waiters_.fetch_add(1, std::memory_order_acq_rel);
    app_epoch_.fetch_add(1, std::memory_order_release);
  }
  // A task failing meanwhile interrupts the wait: it may be the one waited for.
  const std::uint32_t failures = failure_epoch_.load(std::memory_order_acquire);
  int idle = 0;
  Status result = Errc::success;
  while (!done()) {
    if (poll_once()) {
      idle = 0;
    } else {
      idle_backoff(idle);
    }
    if (failure_epoch_.load(std::memory_order_relaxed) != failures) [[unlikely]] {
      absorb_failures();  // another thread may be at it: its handlers have run, or will
      if (!done()) result = failed_peer_error("wait", last_failed_.load(std::memory_order_acquire));
      break;
    }
  }
  // No wake-up on exit: the progress thread notices idleness by itself.
  if (announce) app_waiters_.fetch_sub(1, std::memory_order_acq_rel);
  return result;
}

}  // namespace lapi
