// Put and Get to a task on this host (the shm path's PathOps::put/get).
//
// Why: UCX moves a Put or Get itself only where its shared-memory
// transports map the target's region (memory from alloc_registered). Other
// registered memory — a program's own buffer under register_mem, an
// MPI_Win_create window — UCX 1.13 serves in software through active
// messages that the target's progress engine must run: a Put's flush then
// waited for the target's next poll, up to 3-5 ms while the target slept
// in a long wait (OSU osu_put_latency -w create, its target in
// MPI_Barrier), and for ever while it computed without calling the
// library. A cross-memory write or read (process_vm_writev/readv, as
// split copy uses) needs no target CPU: about 1.1 us for 8 bytes on a
// virtual machine where it is slow, and complete when the call returns.
//
// So: memory UCX maps keeps UCX's Put and Get (a copy into the mapping);
// memory it does not map, at a task whose memory this task can read
// (probe_split_peer), goes by cross-memory attach; anything else, or a
// transfer the kernel refuses, stays with UCX.

#include "lapi/internal/cma.hpp"
#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

bool Context::Impl::rma_by_cma_locked(TaskId tgt, ucp_rkey_h rkey, std::uint64_t addr,
                                      std::size_t len) {
  if (len == 0 || !split_reaches(tgt)) return false;
  RkeyHit& hit = peers_[tgt].rkey_hit;
  if (hit.rkey == rkey && hit.maps >= 0) return hit.maps == 0;
  void* mapped = nullptr;
  const bool maps = ucp_rkey_ptr(rkey, addr, &mapped) == UCS_OK;
  if (hit.rkey == rkey) hit.maps = maps ? 1 : 0;
  return !maps;
}

Status Context::Impl::put_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                      const void* org_addr, ucp_rkey_h rkey,
                                      const Counters& counters) {
  if (!rma_by_cma_locked(tgt, rkey, tgt_addr, len) ||
      cma_copy(peers_[tgt].split_pid, const_cast<void*>(org_addr), tgt_addr, len, true) != 0) {
    return put_ucx_locked(tgt, len, tgt_addr, org_addr, rkey, counters);
  }
  // In place at the target already: the origin buffer is free, and the
  // target counter's update may go at once.
  ucx::on_rma_done(nullptr, UCS_OK,
                   new ucx::RmaOp{this, tgt, counters.origin, counters.target.handle,
                                  counters.completion});
  return Errc::success;
}

Status Context::Impl::get_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                      void* org_addr, ucp_rkey_h rkey, RemoteCounter tgt_cntr,
                                      Counter* org_cntr) {
  if (!rma_by_cma_locked(tgt, rkey, tgt_addr, len) ||
      cma_copy(peers_[tgt].split_pid, org_addr, tgt_addr, len, false) != 0) {
    return get_ucx_locked(tgt, len, tgt_addr, org_addr, rkey, tgt_cntr, org_cntr);
  }
  ucx::on_rma_done(nullptr, UCS_OK, new ucx::RmaOp{this, tgt, org_cntr, tgt_cntr.handle, nullptr});
  return Errc::success;
}

}  // namespace lapi
