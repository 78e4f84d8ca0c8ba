#pragma once
// The paths' tables (path_ops.hpp) and Context::Impl::via_path, which calls
// the table entry of a peer's path. Included only by engine.hpp, after the
// class. Beyond the ring, the three kinds differ only in their Amsend (split
// copy within a host, stripes across hosts); every other operation is UCX's.

#include <utility>

#include "lapi/internal/path_ops.hpp"
#include "lapi/internal/ucx_rma.hpp"

namespace lapi {

namespace internal {

constexpr PathOps with_amsend(Path kind, decltype(PathOps::amsend) amsend) {
  using Impl = Context::Impl;
  return PathOps{kind,
                 amsend,
                 &Impl::amsend_now_ucx_locked,
                 &Impl::send_control_ucx_locked,
                 &Impl::put_ucx_locked,
                 &Impl::get_ucx_locked,
                 &Impl::atomic_ucx_locked,
                 &Impl::flush_ucx};
}

inline constexpr PathOps kSelfPath = with_amsend(Path::self, &Context::Impl::amsend_ucx_locked);
inline constexpr PathOps kShmPath = with_amsend(Path::shm, &Context::Impl::amsend_host_locked);
inline constexpr PathOps kUcxPath = with_amsend(Path::ucx, &Context::Impl::amsend_net_locked);

}  // namespace internal

template <auto Op, typename... Args>
[[gnu::always_inline]] inline decltype(auto) Context::Impl::via_path(TaskId tgt, Args&&... args) {
  // Constants, so each arm is a direct call (and one the compiler may inline).
  constexpr auto self_op = internal::kSelfPath.*Op;
  constexpr auto shm_op = internal::kShmPath.*Op;
  constexpr auto ucx_op = internal::kUcxPath.*Op;
  // The same in every table: one call site, no switch.
  if constexpr (self_op == ucx_op && shm_op == ucx_op) {
    return (this->*ucx_op)(tgt, std::forward<Args>(args)...);
  }
  switch (peers_[tgt].path) {
    case Path::self: return (this->*self_op)(tgt, std::forward<Args>(args)...);
    case Path::shm: return (this->*shm_op)(tgt, std::forward<Args>(args)...);
    case Path::ucx: break;
  }
  return (this->*ucx_op)(tgt, std::forward<Args>(args)...);
}

}  // namespace lapi
