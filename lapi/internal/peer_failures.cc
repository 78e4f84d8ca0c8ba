// Failed peers. Under lapirun --continue-on-failure the job goes on when a
// task fails, and the launcher tells the others through the bootstrap
// (runtime/bootstrap.hpp: watch_failures). Endpoints to other hosts also
// hear it from UCX (peer error handling), under any launcher. The bootstrap's thread only takes
// note here; the engine catches up in poll_once (one relaxed comparison per
// poll while nothing failed), marks the task failed and runs the handlers
// (mpcpi's fails the requests that name the task). Operations naming a
// failed task are refused at their entry (Context::check_peer) and any
// blocking call then in progress returns (wait.hpp), so nothing waits on a
// task that is gone.

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "lapi/internal/engine.hpp"
#include "runtime/bootstrap.hpp"

namespace lapi {

void Context::Impl::note_peer_failure(int task, const std::string& why) {
  if (task < 0 || static_cast<std::uint32_t>(task) >= npeers() || static_cast<TaskId>(task) == me_) return;
  failures_.note(static_cast<TaskId>(task), why);
  // A thread asleep on the worker's event fd (interrupt mode's progress
  // thread sleeps without a timeout) must come and look.
  if (worker_ != nullptr) ucp_worker_signal(worker_);
}

void Context::Impl::on_endpoint_error(void* impl, ucp_ep_h ep, ucs_status_t status) {
  auto* self = static_cast<Impl*>(impl);
  for (std::uint32_t t = 0; t < self->peers_.size(); ++t) {
    if (self->peers_[t].ep == ep) {
      self->note_peer_failure(static_cast<int>(t), fmt::format("its connection failed ({})", ucs_status_string(status)));
      return;
    }
  }
}

void Context::Impl::absorb_failures() {
  const internal::PeerFailures::Notes fresh = failures_.take_notes();
  if (fresh.empty()) return;
  // What a failed task sent before it died and has landed here is taken in
  // before its failure is announced: it may have done its part of a
  // collective and left (MPICH's test/mpi/ft/agree_shrink: a rank leaves
  // right after MPI_Comm_dup, whose last messages to the others sat in
  // their rings when they heard of it, and their dup failed). Bounded, so
  // that live tasks streaming in cannot hold the announcement back.
  for (int polls = 0; polls < kDrainPollsBeforeFailure && poll_transports(); ++polls) {
  }
  for (const auto& [task, why] : fresh) {
    if (failures_.failed[task].exchange(true, std::memory_order_acq_rel)) continue;  // heard twice
    failures_.any_failed.store(true, std::memory_order_release);
    if (task < ntasks_) failures_.any_job_failed.store(true, std::memory_order_release);
    failures_.last_failed.store(task, std::memory_order_release);
    if (std::getenv("LAPIS_DEBUG")) fmt::print(stderr, "lapis[{}]: task {} failed: {}\n", me_, task, why);
    {
      internal::Guard guard(lock_);
      if (links_.enabled()) links_.drop_peer(static_cast<TaskId>(task));
      drop_stages_locked(static_cast<TaskId>(task));
      drop_split_sends_to_locked(static_cast<TaskId>(task));
      free_ucx_sends_to_locked(static_cast<TaskId>(task));
      drop_backlog_to_locked(static_cast<TaskId>(task));
    }
    for (const internal::PeerFailureHook& hook : failures_.hooks) {
      if (hook.fn != nullptr) hook.fn(owner_, task, why.c_str(), hook.arg);
    }
    failures_.announced[task].store(true, std::memory_order_release);
  }
}

void abort_job(int status) {
  try {
    lapis::runtime::process_bootstrap().abort_job();
  } catch (const std::exception&) {  // no launcher to tell: the exit alone ends this task
  }
  _exit(status);
}

// A send UCX still holds for a task that failed may never complete: one
// queued behind the endpoint's wire-up (a task on this host that this one
// never reached through UCX, whose endpoint has no peer error handling)
// waits for an answer from the dead task. Its origin counter moves now, as
// its buffer will not be needed (a send to a failed task lands nowhere), and
// not again when UCX lets go of it (on_send_done finds no counter).
// MPICH's test/mpi/ft/agree_shrink hung so about once in ten runs in
// interrupt mode (a vote sent to the dead task).
void Context::Impl::free_ucx_sends_to_locked(TaskId task) {
  send_pool_.for_each_live([&](internal::SendOp& op) {
    if (op.tgt != task || op.origin == nullptr) return;
    bump(*op.origin);
    op.origin = nullptr;
  });
}

Status Context::Impl::failed_peer_error(const char* fn, TaskId task) const {
  const std::string why = failures_.reason(task);
  return fail(Errc::tgt_purged, "{}: task {} failed ({})", fn, task, why.empty() ? "failed" : why);
}

void Context::Impl::watch_failures(bool on) {
  if (on == failures_.watching) return;
  failures_.watching = on;
  lapis::runtime::Bootstrap::FailureListener listener;
  if (on) listener = [this](int task, const std::string& why) { note_peer_failure(task, why); };
  try {
    lapis::runtime::process_bootstrap().watch_failures(std::move(listener));
  } catch (const std::exception&) {
  }
}

Status Context::add_peer_failure_handler(PeerFailureHandler handler, void* arg) {
  if (handler == nullptr) return fail(Errc::parm_null, "add_peer_failure_handler: handler is null");
  internal::Guard guard(impl_->lock_);
  if (impl_->failures_.add_hook(handler, arg)) return Errc::success;
  return fail(Errc::all_hndl_in_use, "add_peer_failure_handler: {} handlers already added",
              kMaxPeerFailureHandlers);
}

bool Context::peer_failed(TaskId task) const {
  return task < impl_->npeers() && impl_->failures_.announced[task].load(std::memory_order_acquire);
}

bool Context::any_peer_failed() const { return impl_->failures_.any_job_failed.load(std::memory_order_acquire); }

}  // namespace lapi
