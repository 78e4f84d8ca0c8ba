#include "mpi/internal/partitioned.hpp"

#include <algorithm>

#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {
namespace {

int post_partitioned_send(Request& r) {
  const Comm& c = *r.comm;
  SendBytes sb = prepare_send(r.buf, r.count, *r.type, r.staging);
  bool done_now = false;
  const mpcpi::Errc e = engine().isend(sb.data, sb.bytes, c.peer_world_of(r.peer), r.tag,
                                       c.context(ContextKind::reserved3), mpcpi::SendMode::standard,
                                       r.engine, &done_now);
  if (e != mpcpi::Errc::success) return engine_error(e);
  r.part->posted = true;  // done_now leaves r.engine null: complete without the engine
  return MPI_SUCCESS;
}

}  // namespace

int start_partitioned(Request& r) {
  Partitioned& p = *r.part;
  r.engine = nullptr;
  if (r.kind == RequestKind::null_proc) {
    std::fill(p.ready.begin(), p.ready.end(), 0);
    p.ready_count = 0;
    p.posted = true;  // MPI_PROC_NULL: nothing to send or receive
    r.active = true;
    return MPI_SUCCESS;
  }
  if (r.kind == RequestKind::send) {
    std::fill(p.ready.begin(), p.ready.end(), 0);
    p.ready_count = 0;
    p.posted = false;
    r.active = true;
    return MPI_SUCCESS;
  }
  const Comm& c = *r.comm;
  RecvBytes rb = prepare_recv(r.buf, r.count, *r.type, r.staging);
  r.unpack = rb.unpack;
  const mpcpi::Errc e = engine().irecv(rb.data, rb.capacity, engine_source(c, r.peer),
                                       engine_tag(r.tag), c.context(ContextKind::reserved3),
                                       r.engine, true);
  if (e != mpcpi::Errc::success) return engine_error(e);
  p.posted = true;
  r.active = true;
  return MPI_SUCCESS;
}

int pready_one(Request& r, int index) {
  Partitioned& p = *r.part;
  p.ready[static_cast<std::size_t>(index)] = 1;
  if (++p.ready_count < p.partitions || r.kind == RequestKind::null_proc) return MPI_SUCCESS;
  return post_partitioned_send(r);
}

}  // namespace mpi
