// The paths' tables (path_ops.hpp). Beyond the ring, the three kinds differ
// only in their Amsend (split copy on a host, stripes across hosts); every
// other operation is UCX's, the same entry in each table.

#include "lapi/internal/path_ops.hpp"

#include "lapi/internal/engine.hpp"

namespace lapi::internal {

namespace {

using Impl = Context::Impl;

constexpr PathOps with_amsend(Path kind, decltype(PathOps::amsend) amsend) {
  return PathOps{kind,
                 amsend,
                 &Impl::amsend_now_ucx_locked,
                 &Impl::send_control_ucx_locked,
                 &Impl::put_ucx_locked,
                 &Impl::get_ucx_locked,
                 &Impl::atomic_ucx_locked,
                 &Impl::flush_ucx};
}

constexpr PathOps kSelf = with_amsend(Path::self, &Impl::amsend_ucx_locked);
constexpr PathOps kShm = with_amsend(Path::shm, &Impl::amsend_host_locked);
constexpr PathOps kUcx = with_amsend(Path::ucx, &Impl::amsend_net_locked);

}  // namespace

const PathOps& path_ops(Path kind) {
  switch (kind) {
    case Path::self: return kSelf;
    case Path::shm: return kShm;
    case Path::ucx: break;
  }
  return kUcx;
}

}  // namespace lapi::internal
