// A failed peer (lapirun --continue-on-failure). lapi calls on_peer_failed
// once per failed task, outside its header handlers; every request that can
// only finish through that task fails with Errc::peer_failed, and later
// ones naming it fail at once (post_recv; sends through lapi's refusal).
// Receives from any source stay posted: another task may still match them.

#include <fmt/format.h>

#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

void Engine::Impl::on_peer_failed(lapi::Context&, lapi::TaskId task, const char* why, void* arg) {
  static_cast<Engine::Impl*>(arg)->fail_requests_of(task, why);
}

void Engine::Impl::fail_pending_locked(Request* r, const std::string& detail) {
  if (r->done()) return;
  r->status.error = Errc::peer_failed;
  if (r->kind == Request::Kind::recv) r->status.cancelled = false;
  if (r->handle != 0) {
    (r->kind == Request::Kind::send ? send_handles_ : recv_handles_).erase(r->handle);
    r->handle = 0;
  }
  lapi::set_error_detail(detail);
  const int left = r->expected - static_cast<int>(r->signal.get());
  complete(r, left > 0 ? left : 1);
}

void Engine::Impl::fail_requests_of(lapi::TaskId task, const char* why) {
  if (task >= ntasks_) return;
  const std::string detail = fmt::format("task {} failed ({})", task, why);
  {
    EngineLock lock(*this);
    if (failed_peers_.empty()) failed_peers_.assign(ntasks_, false);
    failed_peers_[task] = true;
    any_peer_failed_ = true;
    for (detail::PostedEntry* e : posted_.posted_from(static_cast<int>(task))) {
      auto* r = static_cast<Request*>(e);
      (void)posted_.remove(*r);
      fail_pending_locked(r, detail);
    }
    for (Request* r : send_handles_.select([&](const Request& q) { return q.dest == task; }))
      fail_pending_locked(r, detail);
    for (Request* r : recv_handles_.select([&](const Request& q) {
           return q.status.source == static_cast<int>(task);
         }))
      fail_pending_locked(r, detail);
    SendPeer& peer = send_peers_[task];
    for (auto& [context, queue] : peer.held) {
      for (Held& h : queue) {
        held_copy_bytes_ -= h.footprint;
        if (h.req != nullptr) fail_pending_locked(h.req, detail);
      }
    }
    peer.held.clear();
    peer.held_count = 0;
  }
  drain_outbox();
}

}  // namespace mpcpi
