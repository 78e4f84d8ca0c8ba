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
  // With a progress thread, announce that this thread drives progress now.
  const bool announced = progress_.enter_wait();
  // A task failing meanwhile interrupts the wait: it may be the one waited for.
  const std::uint32_t failures = failures_.epoch.load(std::memory_order_acquire);
  internal::IdleSpin spin(waiters_yield_early_.load(std::memory_order_relaxed));
  Status result = Errc::success;
  while (!done()) {
    if (poll_once()) {
      spin.busy();
    } else {
      idle_backoff(spin);
    }
    if (failures_.epoch.load(std::memory_order_relaxed) != failures) [[unlikely]] {
      absorb_failures();  // another thread may be at it: its handlers have run, or will
      if (!done()) result = failed_peer_error("wait", failures_.last_failed.load(std::memory_order_acquire));
      break;
    }
  }
  progress_.leave_wait(announced);
  return result;
}

template <typename Done>
Status Context::Impl::wait_for_job(Done done) {
  for (;;) {
    Status s = wait_until(done);
    if (s.ok() || s.code() != Errc::tgt_purged || failures_.any_job_failed.load(std::memory_order_acquire)) return s;
  }
}

}  // namespace lapi
