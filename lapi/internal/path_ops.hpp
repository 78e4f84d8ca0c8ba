#pragma once
// A peer's path as an object: the operations the engine asks of the method
// that reaches a peer, one table per kind of path (path_tables.hpp). The
// kind is chosen once, when the peer is first reached (connect.cc's
// choose_path, join.cc), and kept in its Peer (peer.hpp). The operation
// files (am_send.cc, rma.cc, sync.cc) validate, frame and count; what moves
// bytes is reached through the table (Context::Impl::via_path), so a new
// method is a new table and the functions behind it, not an edit of every
// operation. Today's methods:
//
//   self  this task, through UCX's self transport (ucx_path.cc);
//   shm   a task on this host: its shared-memory ring for small Amsends,
//         split copy for large ones (split_copy.cc), UCX for the rest;
//   ucx   everything through UCX, over whatever transport it found
//         (shared memory, TCP), large Amsends striped over the links to a
//         task on another host (stripes.cc).
//
// The tables are constant and the methods known when Lapis is built, as
// MPICH ch4 knows its shared-memory and network modules: via_path switches
// on the peer's kind and calls each table's entry directly, so the compiler
// may inline it, and a Put pays no indirect call. (A pointer to the table in
// each peer cost a Put with a target counter about 65 instructions,
// callgrind, for the calls that could no longer be inlined.) The ring's
// small Amsend is tested before the table (am_send.cc): it is every small
// message's path.
//
// Polling and preparing to sleep belong to a method, not to a peer:
// progress.cc drives the rings (ShmChannel::poll, sleep_begin) and UCX's
// worker (ucp_worker_progress, ucp_worker_arm) side by side, UCX polled less
// often while it is quiet (Nexus' skip-poll).
//
// Remote memory is still named by UCX's rkey (memory.cc registers with UCX
// and exchanges packed rkeys): a method without UCX would bring its own
// region keys, and RemoteRegion would carry them.

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>

#include "lapi/context.hpp"
#include "lapi/internal/wire.hpp"

namespace lapi::internal {

struct PathOps {
  // An Amsend the ring did not take: large data, a full ring, or a target the ring does not
  // reach. `extra_flags` are AmsendWire flags (kChecksummed). Caller holds lock_.
  Status (Context::Impl::*amsend)(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                  const void* uhdr, std::size_t uhdr_len, const void* data,
                                  std::size_t data_len, const Counters& counters);
  // A small Amsend only if it leaves inside the call (Context::amsend_now); `sent` says whether
  // it did. `frame` holds its head (`off` bytes) with room for packed data. Caller holds lock_.
  Status (Context::Impl::*amsend_now)(TaskId tgt, std::byte* frame, std::size_t off,
                                      std::size_t uhdr_len, const void* data,
                                      std::size_t data_len, bool& sent);
  // A control message (header copied; data, if any, kept until sent). Caller holds lock_.
  void (Context::Impl::*send_control)(TaskId tgt, Proto proto, const void* header,
                                      std::size_t len, const void* data, std::size_t data_len);
  // Put and Get of registered memory; the counters as Context::put/get say. Caller holds lock_.
  Status (Context::Impl::*put)(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                               const void* org_addr, ucp_rkey_h rkey, const Counters& counters);
  Status (Context::Impl::*get)(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                               void* org_addr, ucp_rkey_h rkey, RemoteCounter tgt_cntr,
                               Counter* org_cntr);
  // An atomic on a remote word of `width` bytes (Context::rmw). Caller holds lock_.
  Status (Context::Impl::*atomic)(TaskId tgt, RmwOp op, std::uint64_t tgt_addr,
                                  std::int64_t operand, std::int64_t compare, void* prev,
                                  unsigned width, ucp_rkey_h rkey, Counter* org_cntr);
  // Waits until every Put, Get and atomic to `tgt` is complete at the target. Takes lock_.
  Status (Context::Impl::*flush)(TaskId tgt);
};

}  // namespace lapi::internal
