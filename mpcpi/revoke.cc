// Revoking a communicator's contexts (ULFM's MPIX_Comm_revoke). The notice
// is one control message per member, with no answer: a task that hears of
// it fails what waits in those contexts (fail_context_locked, as for a
// failed member, but with Errc::revoked). So that every live member hears
// of it even when the revoking task died after telling only some, each
// task that knows of a revocation tells the members it has bound to that
// communicator again whenever a task fails (fail_requests_of): n² messages
// per failure, none while nobody fails. (Passing every notice on at once
// would cost that always, and a copy arriving late could revoke a
// communicator that reuses the contexts after this one was freed.)

#include <fmt/format.h>

#include <cassert>

#include "mpcpi/internal/engine_impl.hpp"

namespace mpcpi {

bool Engine::Impl::revoke_locked(std::uint32_t first, std::uint32_t count, std::uint32_t bound_context,
                                 lapi::TaskId by) {
  if (auto it = failed_contexts_.find(first); it != failed_contexts_.end() && it->second == Errc::revoked)
    return false;
  const std::string why = fmt::format("contexts {}..{}: the communicator was revoked by task {}", first,
                                         first + count - 1, by);
  for (std::uint32_t c = first; c < first + count; ++c) {
    failed_contexts_.erase(c);  // a failed member's verdict gives way to the revocation
    fail_context_locked(c, why, Errc::revoked);
  }
  revocations_[first] = detail::RevokeHeader{first, count, bound_context, 0};
  arrivals_.add(1);  // a blocking probe in them wakes up and fails
  return true;
}

void Engine::Impl::tell_revoked_locked(const detail::RevokeHeader& h, lapi::TaskId except) {
  const auto it = bound_contexts_.find(h.bound_context);
  if (it == bound_contexts_.end()) return;
  for (lapi::TaskId t : it->second) {
    if (t != me_ && t != except && t < npeers() && !failed_peers_[t]) queue_locked(t, detail::Msg::revoke, &h, sizeof h);
  }
}

void Engine::revoke(std::span<const std::uint32_t> contexts, std::uint32_t bound_context) {
  if (contexts.empty()) return;
  for (std::size_t i = 1; i < contexts.size(); ++i) assert(contexts[i] == contexts[0] + i);
  {
    EngineLock lock(*impl_);
    const detail::RevokeHeader h{contexts[0], static_cast<std::uint32_t>(contexts.size()), bound_context, 0};
    if (impl_->revoke_locked(h.first, h.count, h.bound_context, impl_->me_)) impl_->tell_revoked_locked(h, impl_->me_);
  }
  impl_->drain_outbox();
}

lapi::Landing Engine::Impl::on_revoke(lapi::TaskId src, const detail::RevokeHeader& h) {
  EngineLock lock(*this);
  if (h.count == 0 || h.count > 16 || h.first + h.count < h.first) {
    protocol_error_locked(src, "revocation names no contexts");
    return {};
  }
  (void)revoke_locked(h.first, h.count, h.bound_context, src);
  return {};
}

void Engine::Impl::retell_revocations_locked() {
  for (const auto& [first, h] : revocations_) tell_revoked_locked(h, me_);
}

Errc Engine::context_error(std::uint32_t context) const {
  if (!impl_->any_fault_.load(std::memory_order_acquire)) return Errc::success;
  EngineLock lock(*impl_);
  const auto it = impl_->failed_contexts_.find(context);
  return it == impl_->failed_contexts_.end() ? Errc::success : it->second;
}

}  // namespace mpcpi
