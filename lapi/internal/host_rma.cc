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

namespace {

enum class Way : std::uint8_t { ucx, mapped, cma };

// How a Put or Get of [addr, +len) in `peer`'s region `rkey` moves; `at` is
// the range as mapped here when it is Way::mapped.
Way way_of(Peer& peer, ucp_rkey_h rkey, std::uint64_t addr, std::size_t len, std::byte*& at) {
  if (len == 0) return Way::ucx;
  RkeyHit& hit = peer.rkey_hit;
  if (hit.rkey == rkey && hit.covers(addr, len)) [[likely]] {
    if (hit.maps < 0) {
      void* mapped = nullptr;
      hit.maps = ucp_rkey_ptr(rkey, hit.base, &mapped) == UCS_OK ? 1 : 0;
      hit.mapped = static_cast<std::byte*>(mapped);
    }
    if (hit.maps == 1) {
      at = hit.mapped + (addr - hit.base);
      return Way::mapped;
    }
  } else if (void* mapped = nullptr; ucp_rkey_ptr(rkey, addr, &mapped) == UCS_OK) {
    at = static_cast<std::byte*>(mapped);
    return Way::mapped;
  }
  return peer.split_pid != 0 ? Way::cma : Way::ucx;
}

// A Put or Get moved in place: the counters, as UCX's completion would move them.
void moved_in_place(Context::Impl* e, TaskId tgt, Counter* origin, std::uint64_t target_counter,
                    Counter* completion) {
  if (origin) origin->add();
  if (target_counter || completion) {
    // Sent after the copy: a ring frame or UCX message is published after
    // the data's stores, so the target reads the data once it sees it.
    ucx::RmaOp op{e, tgt, nullptr, target_counter, completion};
    ucx::notify_target_locked(&op);
  }
}

}  // namespace

bool Context::Impl::move_in_place_locked(TaskId tgt, ucp_rkey_h rkey, std::uint64_t addr,
                                         std::size_t len, void* local, bool put) {
  Peer& peer = peers_[tgt];
  std::byte* at = nullptr;
  switch (way_of(peer, rkey, addr, len, at)) {
    case Way::mapped:
      if (put) {
        copy_bulk(at, local, len);
      } else {
        copy_bulk(local, at, len);
      }
      ++peer.rma_mapped;
      return true;
    case Way::cma:
      // A Put keeps process_vm_writev, which fails on a read-only page (cma.hpp).
      if ((put ? cma_copy(peer.split_pid, local, addr, len, true)
               : peer.proc_mem.copy(peer.split_pid, local, addr, len, false)) != 0) {
        return false;
      }
      ++peer.rma_cma;
      return true;
    case Way::ucx:
      break;
  }
  return false;
}

Status Context::Impl::put_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                      const void* org_addr, ucp_rkey_h rkey,
                                      const Counters& counters) {
  if (!move_in_place_locked(tgt, rkey, tgt_addr, len, const_cast<void*>(org_addr), true)) {
    return put_ucx_locked(tgt, len, tgt_addr, org_addr, rkey, counters);
  }
  // In place at the target already: the origin buffer is free, and the
  // target counter's update may go at once.
  moved_in_place(this, tgt, counters.origin, counters.target.handle, counters.completion);
  return Errc::success;
}

Status Context::Impl::get_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                      void* org_addr, ucp_rkey_h rkey, RemoteCounter tgt_cntr,
                                      Counter* org_cntr) {
  if (!move_in_place_locked(tgt, rkey, tgt_addr, len, org_addr, false)) {
    return get_ucx_locked(tgt, len, tgt_addr, org_addr, rkey, tgt_cntr, org_cntr);
  }
  moved_in_place(this, tgt, org_cntr, tgt_cntr.handle, nullptr);
  return Errc::success;
}

}  // namespace lapi
