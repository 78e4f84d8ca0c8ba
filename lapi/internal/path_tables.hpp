#pragma once
// The paths' tables (path_ops.hpp) and Context::Impl::via_path, which calls
// the table entry of a peer's path. Included only by engine.hpp, after the
// class. Beyond the ring, the three kinds differ only in their Amsend (split
// copy within a host, stripes across hosts); every other operation is UCX's.

#include <type_traits>
#include <utility>

#include "lapi/internal/path_ops.hpp"
#include "lapi/internal/ucx_rma.hpp"

namespace lapi {

namespace internal {

constexpr PathOps ucx_with(decltype(PathOps::amsend) amsend,
                           decltype(PathOps::put) put = &Context::Impl::put_ucx_locked,
                           decltype(PathOps::get) get = &Context::Impl::get_ucx_locked) {
  using Impl = Context::Impl;
  return PathOps{amsend,
                 &Impl::amsend_now_ucx_locked,
                 &Impl::send_control_ucx_locked,
                 put,
                 get,
                 &Impl::atomic_ucx_locked,
                 &Impl::flush_ucx};
}

inline constexpr PathOps kSelfPath = ucx_with(&Context::Impl::amsend_ucx_locked);
// Within a host: split copy for large Amsends, and Put/Get by cross-memory
// attach into memory UCX does not map (host_rma.cc).
inline constexpr PathOps kShmPath = ucx_with(&Context::Impl::amsend_host_locked,
                                             &Context::Impl::put_host_locked,
                                             &Context::Impl::get_host_locked);
inline constexpr PathOps kUcxPath = ucx_with(&Context::Impl::amsend_net_locked);

// The operations whose entry differs between the tables: via_path switches on the peer's kind
// for these and makes one call for the rest. (Whether two entries differ is not a constant
// expression under GCC's -fsanitize=undefined, so it is written here; via_path's static_assert
// stops the build if an entry assumed alike is not.)
template <auto Op, auto Listed>
constexpr bool is_op() {
  if constexpr (std::is_same_v<decltype(Op), decltype(Listed)>) {
    return Op == Listed;
  } else {
    return false;
  }
}
template <auto Op>
inline constexpr bool kDiffersByPath =
    is_op<Op, &PathOps::amsend>() || is_op<Op, &PathOps::put>() || is_op<Op, &PathOps::get>();

}  // namespace internal

template <auto Op, typename... Args>
[[gnu::always_inline]] inline decltype(auto) Context::Impl::via_path(TaskId tgt, Args&&... args) {
  // Constants, so each arm is a direct call (and one the compiler may inline).
  constexpr auto self_op = internal::kSelfPath.*Op;
  constexpr auto shm_op = internal::kShmPath.*Op;
  constexpr auto ucx_op = internal::kUcxPath.*Op;
  if constexpr (!internal::kDiffersByPath<Op>) {
    // The same in every table: one call site, no switch.
    static_assert(self_op == ucx_op && shm_op == ucx_op, "add the operation to kDiffersByPath");
    return (this->*ucx_op)(tgt, std::forward<Args>(args)...);
  } else {
    switch (peers_[tgt].path) {
      case Path::self: return (this->*self_op)(tgt, std::forward<Args>(args)...);
      case Path::shm: return (this->*shm_op)(tgt, std::forward<Args>(args)...);
      case Path::ucx: break;
    }
    return (this->*ucx_op)(tgt, std::forward<Args>(args)...);
  }
}

}  // namespace lapi
