#pragma once
// Remote faults (faults.cc): how many peers' requests this task refused and
// how many of its own were refused, and the user's handler that hears of
// the latter (Context::set_remote_error_handler; integrity failures too).
// The counts are relaxed atomics, bumped inside UCX callbacks (lock_ held)
// and read by fault_stats() from any thread. The handler is set under
// lock_ and called from UCX callbacks, lock_ held.

#include <atomic>
#include <cstdint>
#include <string>

#include "lapi/context.hpp"

namespace lapi::internal {

struct FaultState {
  std::atomic<std::uint64_t> refused_here{0};
  std::atomic<std::uint64_t> reported_to_me{0};
  RemoteErrorHandler remote_error_handler = nullptr;
  void* remote_error_arg = nullptr;

  // Tells the user's remote error handler that an operation with `peer`
  // failed; false when none is set (the caller may print instead).
  bool tell_handler(Context& owner, TaskId peer, Errc code, const std::string& detail) const {
    if (remote_error_handler == nullptr) return false;
    remote_error_handler(owner, peer, code, detail.c_str(), remote_error_arg);
    return true;
  }
};

}  // namespace lapi::internal
