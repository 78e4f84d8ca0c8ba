// ULFM's rule for receives from any source (Engine::watch_any_source). A
// receive from any source could be waiting for a message only a failed task
// would have sent, so once a member of the communicator fails the receive
// gives up (MPIX_ERR_PROC_FAILED, or _PENDING for a request the MPI layer
// keeps active), and later ones do too — unless a message that already
// arrived matches — until the program acknowledges the failure
// (MPIX_Comm_failure_ack). Receives naming a live source are not touched.
//
// Only contexts the MPI layer watches follow the rule: it watches a
// communicator's point-to-point context at its first receive or probe from
// MPI_ANY_SOURCE, so programs that never use the wildcard pay nothing.

#include <fmt/format.h>

#include <algorithm>

#include "mpcpi/internal/engine_impl.hpp"

namespace mpcpi {

bool Engine::Impl::unacknowledged_failure_locked(std::uint32_t context) const {
  const auto it = any_source_watches_.find(context);
  if (it == any_source_watches_.end()) return false;
  const AnySourceWatch& w = it->second;
  return std::any_of(w.members.begin(), w.members.end(), [&](lapi::TaskId t) {
    return t < npeers() && failed_peers_[t] &&
           std::find(w.acknowledged.begin(), w.acknowledged.end(), t) == w.acknowledged.end();
  });
}

void Engine::Impl::fail_any_source_of_locked(lapi::TaskId task, const std::string& detail) {
  for (const auto& [context, w] : any_source_watches_) {
    if (std::find(w.members.begin(), w.members.end(), task) == w.members.end()) continue;
    fail_posted_in_locked(
        context, fmt::format("{}: receives from any source in context {} wait until it is acknowledged "
                             "(MPIX_Comm_failure_ack)",
                             detail, context),
        Errc::any_source_failed, true);
  }
}

void Engine::watch_any_source(std::uint32_t context, std::span<const lapi::TaskId> members,
                              std::span<const lapi::TaskId> acknowledged) {
  EngineLock lock(*impl_);
  Impl::AnySourceWatch& w = impl_->any_source_watches_[context];
  w.members.assign(members.begin(), members.end());
  w.acknowledged.assign(acknowledged.begin(), acknowledged.end());
}

}  // namespace mpcpi
