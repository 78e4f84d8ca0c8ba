// A failed peer (lapirun --continue-on-failure). lapi calls on_peer_failed
// once per failed task, outside its header handlers; every request that can
// only finish through that task fails with Errc::peer_failed, and so does
// every context bound to it (a communicator's collective traffic: bind_context),
// so that no rank of a broken collective waits for a live one that gave up.
// Later requests naming the task, or a failed context, fail at once.
//
// What is failed is only what has not begun to land: unmatched receives,
// sends still waiting for their receiver's answer, receives waiting for the
// data header of a rendezvous. Data already landing lands. An answer that
// comes later for a failed request finds its handle gone and is dropped.
// Receives from any source in unbound contexts stay posted (another task
// may still match them) unless ULFM's rule applies (any_source.cc).

#include <fmt/format.h>

#include <algorithm>

#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

void Engine::Impl::on_peer_failed(lapi::Context&, lapi::TaskId task, const char* why, void* arg) {
  if (Engine::Impl* impl = static_cast<HandlerSlot*>(arg)->impl.load(std::memory_order_acquire)) {
    impl->fail_requests_of(task, why);
  }
}

void Engine::Impl::fail_pending_locked(Request* r, const std::string& detail, Errc code) {
  if (r->done()) return;
  r->status.error = code;
  if (r->handle != 0) {
    (r->kind == Request::Kind::send ? send_handles_ : recv_handles_).erase(r->handle);
    r->handle = 0;
  }
  lapi::set_error_detail(detail);
  const int left = r->expected - static_cast<int>(r->signal.get());
  complete(r, left > 0 ? left : 1);
}

void Engine::Impl::fail_posted_locked(const std::vector<detail::PostedEntry*>& posted,
                                      const std::string& detail) {
  for (detail::PostedEntry* e : posted) {
    auto* r = static_cast<Request*>(e);
    (void)posted_.remove(*r);
    fail_pending_locked(r, detail);
  }
}

bool Engine::Impl::fail_if_doomed_locked(Request* r, int peer, const char* what) {
  const Errc code = doomed_locked(r->context, peer);
  if (code == Errc::success) return false;
  fail_pending_locked(r, fmt::format("{} {} in context {}: {}", what, peer, r->context, doom_reason(code)),
                      code);
  return true;
}

void Engine::Impl::fail_posted_in_locked(std::uint32_t context, const std::string& detail, Errc code,
                                         bool any_source_only) {
  for (detail::PostedEntry* e : posted_.posted_in(context)) {
    auto* r = static_cast<Request*>(e);
    if (any_source_only && r->source != kAnySource) continue;
    // Announced to a sender that may be writing into it: withdrawn, and
    // failed by the answer (on_withdrawn) unless the data landed first.
    if (withdraw_locked(r)) {
      r->status.error = code;
      continue;
    }
    (void)posted_.remove(*r);
    fail_pending_locked(r, detail, code);
  }
}

void Engine::Impl::fail_context_locked(std::uint32_t context, const std::string& detail, Errc code) {
  if (!failed_contexts_.emplace(context, code).second) return;
  any_fault_.store(true, std::memory_order_release);
  fail_posted_in_locked(context, detail, code, false);
  auto in_context = [&](const Request& q) { return q.context == context; };
  for (Request* r : send_handles_.select(in_context)) fail_pending_locked(r, detail, code);
  for (Request* r : recv_handles_.select(in_context)) fail_pending_locked(r, detail, code);
}

void Engine::Impl::fail_requests_of(lapi::TaskId task, const char* why) {
  if (task >= npeers()) return;
  const std::string detail = fmt::format("task {} failed ({})", task, why);
  {
    EngineLock lock(*this);
    failed_peers_[task] = true;
    any_fault_.store(true, std::memory_order_release);
    fail_posted_locked(posted_.posted_from(static_cast<int>(task)), detail);
    fail_any_source_of_locked(task, detail);
    for (Request* r : send_handles_.select([&](const Request& q) { return q.dest == task; }))
      fail_pending_locked(r, detail);
    for (Request* r : recv_handles_.select([&](const Request& q) {
           return q.status.source == static_cast<int>(task);
         }))
      fail_pending_locked(r, detail);
    // A receive being withdrawn from it (direct.cc) waits for an answer that will not come.
    if (auto& a = recv_peers_[task].announced; a.active && a.withdrawing && a.recv != nullptr) {
      fail_pending_locked(a.recv, detail);
      a = {false, false, a.id, a.seq, nullptr};
    }
    SendPeer& peer = send_peers_[task];
    set_may_write_locked(peer, false);
    for (auto& [context, queue] : peer.held) {
      for (Held& h : queue) {
        held_copy_bytes_ -= h.footprint;
        if (h.req != nullptr) fail_pending_locked(h.req, detail);
      }
    }
    peer.held.clear();
    peer.held_count = 0;
    for (const auto& [context, members] : bound_contexts_) {
      if (std::find(members.begin(), members.end(), task) != members.end()) {
        fail_context_locked(context, fmt::format("{}: a member of this communicator", detail), Errc::peer_failed);
      }
    }
    retell_revocations_locked();
  }
  drain_outbox();
}

void Engine::bind_context(std::uint32_t context, std::span<const lapi::TaskId> members) {
  EngineLock lock(*impl_);
  auto& bound = impl_->bound_contexts_[context];
  for (lapi::TaskId t : members) {
    if (std::find(bound.begin(), bound.end(), t) == bound.end()) bound.push_back(t);
  }
  if (!impl_->any_fault_.load(std::memory_order_relaxed)) return;
  for (lapi::TaskId t : members) {  // bound after a member failed: broken from the start
    if (t < impl_->npeers() && impl_->failed_peers_[t]) {
      impl_->fail_context_locked(context, fmt::format("task {} failed: a member of this communicator", t),
                                 Errc::peer_failed);
      return;
    }
  }
}

void Engine::unbind_contexts(std::span<const std::uint32_t> contexts) {
  EngineLock lock(*impl_);
  for (std::uint32_t context : contexts) {
    impl_->bound_contexts_.erase(context);
    impl_->failed_contexts_.erase(context);
    impl_->revocations_.erase(context);
    impl_->any_source_watches_.erase(context);
  }
}

}  // namespace mpcpi
