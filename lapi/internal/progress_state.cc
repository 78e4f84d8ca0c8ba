// ProgressState's futex parking (progress_state.hpp).

#include "lapi/internal/progress_state.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

namespace lapi::internal {

namespace {

// Sleeps until *word != value, a wake-up, or the timeout (futex; no
// std::atomic::wait with a timeout in C++20).
void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t value, long timeout_ns) {
  timespec ts{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, value, &ts,
            nullptr, 0);
}

void futex_wake_one(std::atomic<std::uint32_t>& word) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
}

}  // namespace

bool ProgressState::park(std::uint32_t waiters, long grace_ns) {
  // Park for the grace period, unless hand_over() asks for the take-over
  // now: before the park (seen here, after announcing the park) or during
  // it (it wakes us).
  auto handed_over = [this] {
    return app_waiters.load(std::memory_order_acquire) == 0 &&
           hand_over_asked.exchange(false, std::memory_order_acq_rel);
  };
  parked.store(true, std::memory_order_seq_cst);
  bool now = handed_over();
  if (!now) {
    futex_wait_for(app_waiters, waiters, grace_ns);
    now = handed_over();
  }
  parked.store(false, std::memory_order_relaxed);
  return now;
}

void ProgressState::hand_over() {
  if (!has_thread.load(std::memory_order_acquire)) return;
  hand_over_asked.store(true, std::memory_order_seq_cst);
  if (parked.load(std::memory_order_seq_cst)) futex_wake_one(app_waiters);
}

void ProgressState::wake_parked() { futex_wake_one(app_waiters); }

}  // namespace lapi::internal
