// Progress. Polling and interrupt mode run the same pollers (UCX, then the
// deferred completion jobs, then waiting fibers); they differ only in who
// calls them: the waiting application thread, or a progress thread that
// sleeps on the worker's event fd (drain → arm → poll).

#include <linux/futex.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sched.h>

#include <chrono>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

// Idle strategy of a waiter: spin (lowest latency), then yield the core
// (oversubscribed hosts: 8 ranks on 2 cores must all move), then sleep on
// the event fd with a timeout as a safety net against missed wake-ups.
constexpr int kSpinPolls = 128;
constexpr unsigned kUcxQuietPolls = 256;
constexpr int kYieldPolls = 4000;
constexpr int kSleepTimeoutMs = 10;

}  // namespace

bool Context::Impl::poll_once() {
  bool did = false;
  if (failure_epoch_.load(std::memory_order_relaxed) !=
      absorbed_epoch_.load(std::memory_order_relaxed)) [[unlikely]] {
    absorb_failures();
    did = true;
  }
  {
    Guard guard(lock_);
    if (shm_.receiving()) {
      did = shm_.poll([this](TaskId src, const std::byte* frame, std::size_t len,
                             std::size_t room) { accept_shm_frame_locked(src, frame, len, room); });
    }
    // An idle ucp_worker_progress costs several times a look at the rings,
    // and a frame that lands meanwhile waits for it. So with rings to watch,
    // UCX is progressed on every poll only while it has had events lately;
    // after kUcxQuietPolls empty progress calls, on every
    // LAPIS_UCX_POLL_EVERY-th poll (config_.ucx_quiet_every) (its next message is seen a few hundred
    // nanoseconds later at most, and makes it busy again).
    if (!shm_.receiving() || ++polls_since_ucx_ >= ucx_poll_every_) {
      polls_since_ucx_ = 0;
      if (ucp_worker_progress(worker_) != 0) {
        did = true;
        ucx_quiet_polls_ = 0;
        ucx_poll_every_ = 1;
      } else if (++ucx_quiet_polls_ == kUcxQuietPolls) {
        ucx_poll_every_ = config_.ucx_quiet_every;
      }
    }
  }
  if (deferred_count_.load(std::memory_order_relaxed) != 0) {
    run_deferred();
    did = true;
  }
  if (fibers_ && fibers_->has_waiting() && !FiberScheduler::in_fiber()) {
    std::unique_lock<std::mutex> g(fiber_mutex_, std::try_to_lock);
    if (g.owns_lock() && fibers_->resume_waiting()) did = true;
  }
  return did;
}

void Context::Impl::run_deferred() {
  if (!lock_.enabled()) {
    // Only this thread touches deferred_: run jobs in place. A handler that
    // waits polls again and simply continues this same queue; the outermost
    // call clears it.
    ++deferred_depth_;
    while (deferred_next_ < deferred_.size()) {
      const CompletionJob job = deferred_[deferred_next_++];
      run_job(job);
    }
    if (--deferred_depth_ == 0) {
      deferred_.clear();
      deferred_next_ = 0;
      deferred_count_.store(0, std::memory_order_relaxed);
    }
    return;
  }
  // Several threads may poll: swap the jobs out under the lock and run them
  // outside it (handlers may communicate). The spare vector keeps its
  // capacity between polls; a nested poll starts with an empty spare.
  thread_local std::vector<CompletionJob> tl_spare;
  std::vector<CompletionJob> jobs = std::move(tl_spare);
  jobs.clear();
  {
    Guard guard(lock_);
    jobs.swap(deferred_);
    deferred_next_ = 0;
    deferred_count_.store(0, std::memory_order_relaxed);
  }
  for (const CompletionJob& job : jobs) run_job(job);
  tl_spare = std::move(jobs);
}

void Context::Impl::run_job(const CompletionJob& job) {
  if (config_.policy == CompletionPolicy::fiber && fibers_) {
    // Fibers are resumed by one thread at a time; the mutex matters only
    // when several threads drive the engine.
    if (lock_.enabled()) {
      std::lock_guard<std::mutex> g(fiber_mutex_);
      fibers_->spawn(job);
    } else {
      fibers_->spawn(job);
    }
  } else {
    job.handler(owner_, job.user_info, job.completion_arg);
    finish_job(job);
  }
}

void Context::Impl::idle_backoff(int& idle) {
  ++idle;
  if (idle < kSpinPolls) return;
  if (idle < kYieldPolls) {
    sched_yield();
    return;
  }
  idle = kSpinPolls;  // after a sleep, go back to yielding
  sleep_on_efd(kSleepTimeoutMs);
}

void Context::Impl::sleep_on_efd(int timeout_ms) {
  ucs_status_t st;
  {
    Guard guard(lock_);
    // Announce the sleep to shared-memory senders before the last look at
    // the rings (shm_channel.hpp): a frame written after that look comes
    // with a UCX wake-up.
    shm_.sleep_begin();
    st = shm_.pending() ? UCS_ERR_BUSY : ucp_worker_arm(worker_);
  }
  if (st == UCS_OK) {  // UCS_ERR_BUSY: something is pending, poll again
    sleepers_.fetch_add(1, std::memory_order_acq_rel);
    pollfd pfd{efd_, POLLIN, 0};
    (void)::poll(&pfd, 1, timeout_ms);
    sleepers_.fetch_sub(1, std::memory_order_acq_rel);
  }
  shm_.sleep_end();
}

ucs_status_t Context::Impl::wait_request(ucs_status_ptr_t request) {
  if (request == nullptr) return UCS_OK;
  if (UCS_PTR_IS_ERR(request)) return UCS_PTR_STATUS(request);
  ucs_status_t st;
  int idle = 0;
  while (true) {
    {
      Guard guard(lock_);
      ucp_worker_progress(worker_);
      st = ucp_request_check_status(request);
      if (st != UCS_INPROGRESS) {
        ucp_request_free(request);
        return st;
      }
    }
    idle_backoff(idle);
  }
}

namespace {

// Sleeps until *word != value, a wake-up, or the timeout (futex; no
// std::atomic::wait with a timeout in C++20).
void futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t value, long timeout_ns) {
  timespec ts{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, value, &ts,
            nullptr, 0);
}

}  // namespace

void Context::Impl::start_progress_thread() {
  if (progress_thread_.joinable()) return;
  lock_.enable(true);
  has_progress_thread_.store(true, std::memory_order_release);
  progress_stop_.store(false, std::memory_order_release);
  progress_thread_ = std::thread([this] { progress_loop(); });
}

void Context::Impl::progress_loop() {
  const long grace_ns = static_cast<long>(config_.takeover_grace_us) * 1000;
  std::uint32_t seen_epoch = app_epoch_.load(std::memory_order_acquire);
  while (!progress_stop_.load(std::memory_order_acquire)) {
    // While application threads keep entering waits they drive progress
    // themselves: stay parked, so one thread (not two) wakes per message
    // and a wait's exit costs no wake-up call. Take over once the
    // application has stayed out of the library for a grace period.
    const std::uint32_t epoch = app_epoch_.load(std::memory_order_acquire);
    const std::uint32_t waiters = app_waiters_.load(std::memory_order_acquire);
    if (waiters != 0 || epoch != seen_epoch) {
      // Park for the grace period, unless hand_over_progress() asks for the
      // take-over now: before the park (seen here, after announcing the
      // park) or during it (it wakes us).
      auto handed_over = [this] {
        return app_waiters_.load(std::memory_order_acquire) == 0 &&
               hand_over_.exchange(false, std::memory_order_acq_rel);
      };
      progress_parked_.store(true, std::memory_order_seq_cst);
      bool now = handed_over();
      if (!now) {
        futex_wait_for(app_waiters_, waiters, grace_ns);
        now = handed_over();
      }
      progress_parked_.store(false, std::memory_order_relaxed);
      if (!now) {
        seen_epoch = epoch;
        continue;
      }
      seen_epoch = app_epoch_.load(std::memory_order_acquire);
    }
    hand_over_.store(false, std::memory_order_relaxed);  // taking over anyway
    while (poll_once()) {
    }
    sleep_on_efd(-1);
  }
}

void Context::Impl::hand_over_progress() {
  if (!has_progress_thread_.load(std::memory_order_acquire)) return;
  hand_over_.store(true, std::memory_order_seq_cst);
  if (progress_parked_.load(std::memory_order_seq_cst)) {
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&app_waiters_), FUTEX_WAKE_PRIVATE, 1,
              nullptr, nullptr, 0);
  }
}

void Context::Impl::stop_progress_thread() {
  if (!progress_thread_.joinable()) return;
  progress_stop_.store(true, std::memory_order_release);
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&app_waiters_), FUTEX_WAKE_PRIVATE, 1,
            nullptr, nullptr, 0);
  ucp_worker_signal(worker_);
  progress_thread_.join();
  has_progress_thread_.store(false, std::memory_order_release);
  // The handler thread, once started, may still take the lock.
  lock_.enable(handler_thread_ != nullptr);
}

void Context::Impl::run_job_here(void* self, const CompletionJob& job) {
  auto* e = static_cast<Context::Impl*>(self);
  job.handler(e->owner_, job.user_info, job.completion_arg);
  e->finish_job(job);
}

void Context::Impl::apply_policy(CompletionPolicy policy) {
  config_.policy = policy;
  const internal::JobRunner runner{&Context::Impl::run_job_here, this};
  if (policy == CompletionPolicy::thread && !handler_thread_) {
    lock_.enable(true);
    handler_thread_ = std::make_unique<HandlerThread>(runner);
  }
  if (policy == CompletionPolicy::fiber && !fibers_) fibers_ = std::make_unique<FiberScheduler>(runner);
}

}  // namespace lapi
