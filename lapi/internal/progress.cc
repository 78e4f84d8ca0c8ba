// Progress. Polling and interrupt mode run the same pollers (UCX, then the
// deferred completion jobs, then waiting fibers); they differ only in who
// calls them: the waiting application thread, or a progress thread that
// sleeps on the worker's event fd (drain → arm → poll).

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <fmt/core.h>

#include "lapi/internal/engine.hpp"
#include "lapi/internal/thread_priority.hpp"

namespace lapi {

using namespace internal;

namespace {

// A waiter that found nothing spins, yields, then sleeps on the event fd
// (idle_spin.hpp), with a timeout as a safety net against missed wake-ups.
constexpr unsigned kUcxQuietPolls = 256;
constexpr int kSleepTimeoutMs = 10;
// The longest a parked progress thread sleeps between looks at a waiting
// application thread (progress_loop).
constexpr long kLongestParkNs = 1'000'000;

}  // namespace

bool Context::Impl::poll_once() {
  bool did = false;
  if (failures_.unabsorbed()) [[unlikely]] {
    absorb_failures();
    did = true;
  }
  return poll_transports() || did;
}

bool Context::Impl::poll_transports() {
  bool did = false;
  {
    Guard guard(lock_);
    if (shm_.receiving()) {
      // After a frame whose data was split-copied (tens of microseconds of
      // copying), UCX goes first: the messages that wait there let the
      // peers go on meanwhile. Without this, a batch of large frames from a
      // peer that streams both ways (mpi_bibw) kept its completions
      // waiting: 256 KiB 26 GB/s against 30 with frames through UCX. After
      // a control frame (split_go, split_done) the poll stops too, and
      // they are handled before the next frame (SplitCopyState::end_poll).
      did = shm_.poll([this](TaskId src, const std::byte* frame, std::size_t len,
                             std::size_t room) {
        accept_shm_frame_locked(src, frame, len, room);
        if (!split_.end_poll) [[likely]] return true;
        split_.end_poll = false;
        return false;
      });
      if (!split_.ring_controls.empty()) [[unlikely]] run_ring_controls_locked();
      // Staged Amsends (staged_copy.cc): chunks to copy out, chunks to push.
      if (split_.stage_in_count != 0) [[unlikely]] did |= drain_stages_locked();
      if (split_.stage_out_count != 0) [[unlikely]] did |= push_stages_locked();
      if (split_.sends.live() != 0) [[unlikely]] shm_.note_poll();  // for a target's pull
    }
    // Amsends waiting for room in a full ring (ring_backlog.hpp): work when
    // some left; a queue that stays put lets the wait go to sleep, and
    // through UCX (sleep_on_efd).
    if (!backlog_.empty()) [[unlikely]] did |= flush_backlogs_locked();
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
    if (links_.active()) [[unlikely]] did |= links_.progress();
    // A split Amsend's held check (split_copy.cc) waits one poll for the next
    // split frame, and no longer.
    if (!split_.held_checks.empty()) [[unlikely]] {
      if (!split_.held_this_poll) check_held_splits_locked();
      split_.held_this_poll = false;
      did = true;
    }
  }
  if (runner_.has_deferred()) {
    run_deferred();
    did = true;
  }
  if (runner_.resume_fibers()) did = true;
  return did;
}

void Context::Impl::run_deferred() {
  if (!lock_.enabled()) {
    // Only this thread touches the deferred jobs: run them in place. A
    // handler that waits polls again and simply continues this same queue;
    // the outermost call clears it.
    ++runner_.depth;
    while (runner_.next < runner_.deferred.size()) {
      const CompletionJob job = runner_.deferred[runner_.next++];
      run_job(job);
    }
    if (--runner_.depth == 0) runner_.clear_deferred();
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
    runner_.take_deferred(jobs);
  }
  for (const CompletionJob& job : jobs) run_job(job);
  tl_spare = std::move(jobs);
}

void Context::Impl::run_job(const CompletionJob& job) {
  if (config_.policy == CompletionPolicy::fiber && runner_.fibers) {
    // Fibers are resumed by one thread at a time; the mutex matters only
    // when several threads drive the engine.
    runner_.spawn_fiber(job, lock_.enabled());
  } else {
    job.handler(owner_, job.user_info, job.completion_arg);
    finish_job(job);
  }
}

void Context::Impl::idle_backoff(IdleSpin& spin) {
  if (spin.idle()) {
    sleep_on_efd(kSleepTimeoutMs, true);
    spin.after_sleep();
  }
}

void Context::Impl::sleep_on_efd(int timeout_ms, bool waiter) {
  ucs_status_t st;
  // The worker's event fd, and the links' sockets while a stripe is in flight. (Not a
  // thread_local: a context torn down by a static destructor sleeps here after the thread's
  // own objects are gone.)
  pollfd efd{efd_, POLLIN, 0};
  std::vector<pollfd> fds;
  {
    Guard guard(lock_);
    // Nobody sends what waits for room in a ring while this task sleeps.
    if (!backlog_.empty()) [[unlikely]] backlog_to_ucx_locked();
    // Announce the sleep to shared-memory senders before the last look at
    // the rings (shm_channel.hpp): a frame written after that look comes
    // with a UCX wake-up.
    shm_.sleep_begin(waiter);
    // Chunks still to push go in while there is room; a target that frees a
    // slot after this look wakes us (ShmChannel::stage_release).
    const bool pushed = split_.stage_out_count != 0 && push_stages_locked();
    st = pushed || shm_.pending() || stage_waiting_locked() ? UCS_ERR_BUSY : ucp_worker_arm(worker_);
    if (links_.active()) [[unlikely]] {
      fds.push_back(efd);
      links_.add_pollfds(fds);
    }
  }
  if (st == UCS_OK) {  // UCS_ERR_BUSY: something is pending, poll again
    progress_.sleepers.fetch_add(1, std::memory_order_acq_rel);
    (void)::poll(fds.empty() ? &efd : fds.data(), fds.empty() ? 1 : fds.size(), timeout_ms);
    progress_.sleepers.fetch_sub(1, std::memory_order_acq_rel);
  }
  shm_.sleep_end(waiter);
}

ucs_status_t Context::Impl::wait_request(ucs_status_ptr_t request) {
  if (request == nullptr) return UCS_OK;
  if (UCS_PTR_IS_ERR(request)) return UCS_PTR_STATUS(request);
  ucs_status_t st;
  IdleSpin spin(waiters_yield_early_.load(std::memory_order_relaxed));
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
    idle_backoff(spin);
  }
}

void Context::Impl::start_progress_thread() {
  if (progress_.thread.joinable()) return;
  lock_.enable(true);
  progress_.has_thread.store(true, std::memory_order_release);
  progress_.stop.store(false, std::memory_order_release);
  progress_.thread = std::thread([this] { progress_loop(); });
}

void Context::Impl::progress_loop() {
  name_thread("lapis-progress");
  const int nice = set_thread_nice(config_.progress_nice);
  if (config_.progress_nice_set && nice != config_.progress_nice) {
    fmt::print(stderr,
               "lapis: warning: LAPIS_PROGRESS_NICE={} refused (needs CAP_SYS_NICE or "
               "RLIMIT_NICE); the progress thread runs at nice {}\n",
               config_.progress_nice, nice);
  }
  const long grace_ns = static_cast<long>(config_.takeover_grace_us) * 1000;
  const long longest_park_ns = std::max(grace_ns, kLongestParkNs);
  long park_ns = grace_ns;
  std::uint32_t seen_epoch = progress_.app_epoch.load(std::memory_order_acquire);
  while (!progress_.stop.load(std::memory_order_acquire)) {
    // While application threads keep entering waits they drive progress
    // themselves: stay parked, so one thread (not two) wakes per message
    // and a wait's exit costs no wake-up call. Take over once the
    // application has stayed out of the library for a grace period.
    const std::uint32_t epoch = progress_.app_epoch.load(std::memory_order_acquire);
    const std::uint32_t waiters = progress_.app_waiters.load(std::memory_order_acquire);
    if (waiters != 0 || epoch != seen_epoch) {
      if (!progress_.park(waiters, park_ns)) {
        // The application waited again during the park: it polls, and
        // its exits wake nobody, so we can only look again later. Each look
        // costs the application's core two context switches (a third of a
        // blocking ping-pong's speed at one look per 50 us; the paper's
        // interrupt test, 8 B: a mean of 2.6 us against a median of 1.7, its
        // 99th percentile 29), so look half as often each time the
        // application was busy, down to one per kLongestParkNs, whether it
        // is inside a wait at the look or between two. The price: a
        // take-over that late after a busy phase ends (the MPI layer asks
        // for one at once when it returns with receives posted).
        park_ns = std::min(park_ns * 2, longest_park_ns);
        seen_epoch = epoch;
        continue;
      }
      seen_epoch = progress_.app_epoch.load(std::memory_order_acquire);
    }
    park_ns = grace_ns;
    progress_.hand_over_asked.store(false, std::memory_order_relaxed);  // taking over anyway
    while (poll_once()) {
    }
    sleep_on_efd(-1, false);
  }
}

void Context::Impl::stop_progress_thread() {
  if (!progress_.thread.joinable()) return;
  progress_.stop.store(true, std::memory_order_release);
  progress_.wake_parked();
  ucp_worker_signal(worker_);
  progress_.thread.join();
  progress_.has_thread.store(false, std::memory_order_release);
  // The handler thread, once started, may still take the lock.
  lock_.enable(runner_.handler_thread != nullptr);
}

void Context::Impl::run_job_here(void* self, const CompletionJob& job) {
  auto* e = static_cast<Context::Impl*>(self);
  job.handler(e->owner_, job.user_info, job.completion_arg);
  e->finish_job(job);
}

void Context::Impl::apply_policy(CompletionPolicy policy) {
  config_.policy = policy;
  const internal::JobRunner runner{&Context::Impl::run_job_here, this};
  if (policy == CompletionPolicy::thread && !runner_.handler_thread) {
    lock_.enable(true);
    runner_.handler_thread = std::make_unique<HandlerThread>(runner);
    waiters_yield_early_.store(true, std::memory_order_relaxed);
  }
  if (policy == CompletionPolicy::fiber && !runner_.fibers) {
    runner_.fibers = std::make_unique<FiberScheduler>(runner);
  }
}

}  // namespace lapi
