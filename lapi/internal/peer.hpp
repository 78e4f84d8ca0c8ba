#pragma once
// One task as this task sees it: the path that reaches it, chosen once when
// the job connects (engine_init.cc), and every per-peer piece of the
// engine's state, in one struct in one table (Context::Impl::peers_).
// Before this, each piece was a vector of its own indexed by task, and the
// path was re-derived on every send from whichever component knew it.

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lapi/context.hpp"
#include "lapi/internal/cma.hpp"

namespace lapi::internal {

// A region of a peer's memory this task learnt the rkey of.
struct RemoteRegion {
  std::uint64_t len = 0;
  ucp_rkey_h rkey = nullptr;
};

// The region the last Put/Get/Rmw to a peer found, looked at before the map
// (an access pattern mostly stays in one window). Cleared whenever that
// peer's map loses an entry.
struct RkeyHit {
  std::uint64_t base = 0;
  std::uint64_t len = 0;
  ucp_rkey_h rkey = nullptr;
  // Whether UCX maps the region here (ucp_rkey_ptr): 1 yes, 0 no, -1 not
  // asked yet (host_rma.cc).
  std::int8_t maps = -1;
  std::byte* mapped = nullptr;  // maps == 1: where `base` is mapped here
  bool covers(std::uint64_t addr, std::size_t n) const {
    return addr - base <= len && n <= len - (addr - base);
  }
};

struct Peer {
  // self: this task (UCX's self transport); shm: the same host, its
  // shared-memory ring mapped (and split copy when `split`); ucx:
  // everything through UCX, over whatever transport UCX found. Each kind's
  // operations: path_ops.hpp.
  Path path = Path::ucx;
  bool other_host = false;  // its endpoint reports errors (peer error handling)
  bool over_tcp = false;    // UCX is kept to TCP (LAPIS_TRANSPORTS=tcp, a LAPIS_PATHS rule)
  bool split = false;       // large Amsends to it by split copy (path shm, split_pid set)
  bool stripes = false;     // large Amsends to it striped over the links (LAPIS_LINKS, links.hpp)
  ucp_ep_h ep = nullptr;

  // Fence bookkeeping: Amsends sent to it / landed from it.
  std::uint64_t sent_to = 0;
  std::uint64_t landed_from = 0;
  std::uint64_t fence_wanted = 0;  // as a source: the count a fence waits for
  std::uint64_t fence_acked = 0;   // as a target: the count confirmed landed

  // Its memory: regions by base address, and the last one used.
  std::map<std::uint64_t, RemoteRegion> remote_regions;
  RkeyHit rkey_hit;
  // Puts and Gets to it that this task moved itself (host_rma.cc; ShmStats).
  std::uint64_t rma_mapped = 0;
  std::uint64_t rma_cma = 0;

  // Split copy: its pid when its memory is reachable (else 0: split Amsends
  // from it are refused), and our free claim cells in its ring.
  std::uint32_t split_pid = 0;
  ProcMem proc_mem;  // small Gets and write_near's writes into it (cma.hpp)
  std::vector<std::uint32_t> split_free_cells;
  // Whether large Amsends go both ways (Context::Impl::both_ways_locked):
  // our last split or staged one to it (its record, while out), and when
  // its last one to us landed (steady clock, ns).
  std::uint64_t split_last_out = 0;
  std::uint64_t split_last_in_ns = 0;

  // Jobs that connect (join.cc): a task of another job, numbered here from num_tasks() up by
  // join_tasks, not a member of this job (no barrier, fence at leave_tasks), always reached
  // through UCX with peer error handling. `left`: leave_tasks closed its endpoint.
  bool joined = false;
  bool left = false;
  // How it numbers this task: the `src` of every message sent to it (me_, but for joined tasks).
  TaskId id_there = 0;
  // Its identity in every task that knows it (random, drawn at its init; Context::task_uid).
  std::uint64_t uid = 0;

  std::string host;  // its host name (LAPIS_PATHS, LAPIS_VERBOSE); last: never on a message's way
};

}  // namespace lapi::internal
