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
// So: memory UCX maps is copied by this task's CPU into (or out of) the
// mapping, as UCX's shared-memory Put would, without UCX's call: a stream
// of 8-byte Puts ran at about half raw UCX's rate through ucp_put_nbx
// (callgrind: ~100 instructions of Lapis' own around UCX's ~120 per Put).
// Memory it does not map, at a task whose memory this task can read
// (probe_split_peer), goes by cross-memory attach; anything else, or a
// transfer the kernel refuses, stays with UCX.

#include <cstring>

#include "lapi/internal/cma.hpp"
#include "lapi/internal/engine.hpp"
#include "lapi/line_copy.hpp"

namespace lapi {

using namespace internal;

Context::Impl::HostRma Context::Impl::host_rma_way_locked(TaskId tgt, ucp_rkey_h rkey,
                                                          std::uint64_t addr, std::size_t len,
                                                          std::byte*& at) {
  if (len == 0) return HostRma::ucx;
  RkeyHit& hit = peers_[tgt].rkey_hit;
  if (hit.rkey == rkey && addr - hit.base < hit.len) [[likely]] {
    if (hit.maps < 0) {
      void* mapped = nullptr;
      hit.maps = ucp_rkey_ptr(rkey, hit.base, &mapped) == UCS_OK ? 1 : 0;
      hit.mapped = static_cast<std::byte*>(mapped);
    }
    if (hit.maps == 1) {
      at = hit.mapped + (addr - hit.base);
      return HostRma::mapped;
    }
  } else if (void* mapped = nullptr; ucp_rkey_ptr(rkey, addr, &mapped) == UCS_OK) {
    at = static_cast<std::byte*>(mapped);
    return HostRma::mapped;
  }
  return split_reaches(tgt) ? HostRma::cma : HostRma::ucx;
}

void Context::Impl::host_rma_done_locked(TaskId tgt, Counter* origin,
                                         std::uint64_t target_counter, Counter* completion) {
  if (origin) origin->add();
  if (target_counter || completion) {
    // Sent after the copy: a ring frame or UCX message is published after
    // the data's stores, so the target reads the data once it sees it.
    ucx::RmaOp op{this, tgt, nullptr, target_counter, completion};
    ucx::notify_target_locked(&op);
  }
}

Status Context::Impl::put_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                      const void* org_addr, ucp_rkey_h rkey,
                                      const Counters& counters) {
  std::byte* at = nullptr;
  switch (host_rma_way_locked(tgt, rkey, tgt_addr, len, at)) {
    case HostRma::mapped:
      copy_bulk(at, org_addr, len);
      ++peers_[tgt].rma_mapped;
      break;
    case HostRma::cma:
      if (cma_copy(peers_[tgt].split_pid, const_cast<void*>(org_addr), tgt_addr, len, true) == 0) {
        ++peers_[tgt].rma_cma;
        break;
      }
      [[fallthrough]];
    case HostRma::ucx:
      return put_ucx_locked(tgt, len, tgt_addr, org_addr, rkey, counters);
  }
  // In place at the target already: the origin buffer is free, and the
  // target counter's update may go at once.
  host_rma_done_locked(tgt, counters.origin, counters.target.handle, counters.completion);
  return Errc::success;
}

Status Context::Impl::get_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                      void* org_addr, ucp_rkey_h rkey, RemoteCounter tgt_cntr,
                                      Counter* org_cntr) {
  std::byte* at = nullptr;
  switch (host_rma_way_locked(tgt, rkey, tgt_addr, len, at)) {
    case HostRma::mapped:
      copy_bulk(org_addr, at, len);
      ++peers_[tgt].rma_mapped;
      break;
    case HostRma::cma:
      if (cma_copy(peers_[tgt].split_pid, org_addr, tgt_addr, len, false) == 0) {
        ++peers_[tgt].rma_cma;
        break;
      }
      [[fallthrough]];
    case HostRma::ucx:
      return get_ucx_locked(tgt, len, tgt_addr, org_addr, rkey, tgt_cntr, org_cntr);
  }
  host_rma_done_locked(tgt, org_cntr, tgt_cntr.handle, nullptr);
  return Errc::success;
}

}  // namespace lapi
