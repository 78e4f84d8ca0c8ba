// The rooted collectives: MPI_Bcast, MPI_Reduce, MPI_Gather(v),
// MPI_Scatter(v), and the work of their nonblocking and persistent forms.
// Each validates (arguments significant only at the root are checked only
// there), handles MPI_IN_PLACE and zero sizes, then runs an algorithm on
// packed bytes (mpi/internal/coll).
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/entry.hpp"
#include "mpi/internal/coll/exchange.hpp"
#include "mpi/internal/coll/inter.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/coll/node_exchange.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace mpi {

int coll_bcast(const char* fn, void* buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) {
    return inter_bcast(fn, buffer, count, datatype, root, *c, comm, how);
  }
  if (rc == MPI_SUCCESS) rc = check_root(*c, root);
  if (rc == MPI_SUCCESS) rc = check_buffer_args({buffer, count, datatype, "buffer", "count",
                                                 "datatype"}, t);
  if (rc == MPI_SUCCESS) rc = check_not_in_place(buffer, "buffer", "MPI_Bcast has no in-place form");
  const std::size_t bytes = rc == MPI_SUCCESS ? static_cast<std::size_t>(count * t->size()) : 0;
  static const bool forced = coll_forced("LAPIS_COLL_BCAST");
  // Blocking, on one node: the segment (no point-to-point algorithm to choose).
  const bool node = rc == MPI_SUCCESS && how.mode == CollMode::blocking && bytes > 0 &&
                    node_collective(*c, node_chunk_bytes(bytes, 1), forced);
  BcastAlgo algo{};
  if (rc == MPI_SUCCESS && !node) rc = choose_bcast(bytes, c->size(), algo);
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  return run_collective(*c, fn, how, [&] { return keep_objects(comm, {datatype}); },
                        [=](std::uint32_t seq) {
    if (bytes == 0 || c->size() == 1) return MPI_SUCCESS;
    Staging staging;
    const bool direct = t->contiguous_for(count);
    char* data = direct ? data_start(buffer, *t) : nullptr;
    if (!direct) {
      staging.allocate(bytes);
      data = staging.data.get();
      if (c->rank == root) pack(*t, buffer, count, data);
    }
    int rc;
    if (node) {
      rc = node_bcast(*c, data, bytes, root);
    } else {
      CollChannel ch(*c, CollTag::bcast, seq);
      rc = ch.carrying_on([&] { return bcast_bytes(ch, data, bytes, root, algo); });
    }
    if (rc == MPI_SUCCESS && !direct && c->rank != root) {
      unpack(*t, buffer, count, data, static_cast<std::int64_t>(bytes));
    }
    return rc;
  });
}

int coll_reduce(const char* kFn, const void* sendbuf, void* recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) {
    return inter_reduce(kFn, sendbuf, recvbuf, count, datatype, op, root, *c, comm, how);
  }
  if (rc == MPI_SUCCESS) rc = check_root(*c, root);
  const bool am_root = rc == MPI_SUCCESS && c->rank == root;
  if (rc == MPI_SUCCESS && !am_root) {
    rc = check_not_in_place(sendbuf, "sendbuf", "only the root may pass MPI_IN_PLACE");
  }
  if (rc == MPI_SUCCESS) {
    rc = check_reduce_args({sendbuf, recvbuf, count, datatype, op, am_root}, t, o);
  }
  const std::size_t bytes = rc == MPI_SUCCESS ? static_cast<std::size_t>(count * t->size()) : 0;
  static const bool forced = coll_forced("LAPIS_COLL_REDUCE");
  // Blocking, on one node: the segment (no point-to-point algorithm to choose).
  const std::size_t chunk = rc == MPI_SUCCESS ? node_chunk_bytes(bytes, static_cast<std::size_t>(t->size())) : 0;
  const bool node = rc == MPI_SUCCESS && how.mode == CollMode::blocking && chunk > 0 &&
                    node_collective(*c, chunk, forced);
  ReduceAlgo algo{};
  if (rc == MPI_SUCCESS && !node) rc = choose_reduce(algo);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  return run_collective(*c, kFn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=](std::uint32_t seq) {
    if (bytes == 0) return MPI_SUCCESS;
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (t->contiguous_for(count) && (node || algo == ReduceAlgo::binomial)) {  // no packing
      char* out = am_root ? data_start(recvbuf, *t) : nullptr;
      if (node) return node_reduce(*c, {o, t, datatype}, data_start(in, *t), out, count, root);
      CollChannel ch(*c, CollTag::reduce, seq);
      return ch.carrying_on(
          [&] { return reduce_into(ch, {o, t, datatype}, data_start(in, *t), out, count, root); });
    }
    Staging acc;
    pack_to(acc, in, count, *t);
    int rc;
    if (node) {
      rc = node_reduce(*c, {o, t, datatype}, acc.data.get(), acc.data.get(), count, root);
    } else {
      CollChannel ch(*c, CollTag::reduce, seq);
      rc = ch.carrying_on(
          [&] { return reduce_bytes(ch, {o, t, datatype}, acc, count, root, algo); });
    }
    if (rc == MPI_SUCCESS && am_root) {
      unpack(*t, recvbuf, count, acc.data.get(), static_cast<std::int64_t>(bytes));
    }
    return rc;
  });
}

}  // namespace mpi



namespace {

// What gather(v) and scatter(v) need once validated.
struct Rooted {
  Comm* comm = nullptr;
  const Datatype* local_type = nullptr;  // null for MPI_IN_PLACE at the root
  const Datatype* root_type = nullptr;   // root only
  const int* counts = nullptr;           // root only
  std::vector<int> regular;
};

// One rank's block of a regular gather or scatter in bytes, as this rank
// knows it: the root from its count per rank, the others from their own side.
std::size_t rooted_block(const Comm& c, int root, int root_count, const Datatype* root_type,
                         std::int64_t local_count, const Datatype* local_type) {
  return static_cast<std::size_t>(c.rank == root ? root_count * root_type->size()
                                                 : local_count * local_type->size());
}

int check_rooted(MPI_Comm comm, int root, const LocalSide& l, const RootSide& rs, Rooted& out) {
  int rc = lookup_comm(comm, out.comm);
  if (rc == MPI_SUCCESS) rc = check_root(*out.comm, root);
  if (rc != MPI_SUCCESS) return rc;
  const Comm& c = *out.comm;
  const bool am_root = c.rank == root;
  if (!am_root) rc = check_not_in_place(l.buf, l.buf_arg, "only the root may pass MPI_IN_PLACE");
  if (rc == MPI_SUCCESS && l.buf != MPI_IN_PLACE) {
    rc = check_buffer_args(l, out.local_type);
  }
  if (rc != MPI_SUCCESS || !am_root) return rc;
  out.counts = rs.counts;
  if (rs.vform) {
    rc = check_counts(rs.counts, c.size(), rs.counts_arg);
    if (rc == MPI_SUCCESS) rc = check_not_null(rs.displs, "displs");
  } else {
    rc = check_count(rs.regular_count, rs.counts_arg);
    out.regular.assign(c.size(), rs.regular_count);
    out.counts = out.regular.data();
  }
  if (rc == MPI_SUCCESS) rc = check_not_in_place(rs.buf, rs.buf_arg, "only the root's other buffer may be MPI_IN_PLACE");
  if (rc == MPI_SUCCESS) rc = lookup_type(rs.type, out.root_type, true, rs.type_arg);
  for (int r = 0; rc == MPI_SUCCESS && r < c.size(); ++r) {
    rc = check_buffer(rs.buf, out.counts[r], *out.root_type, rs.buf_arg);
  }
  if (rc == MPI_SUCCESS && l.buf != MPI_IN_PLACE && l.count > 0 && out.local_type->size() > 0) {
    const std::int64_t at = rs.vform ? rs.displs[root] : std::int64_t{root} * rs.regular_count;
    const void* own = static_cast<const char*>(rs.buf) + at * out.root_type->extent();
    // Gather: the local side sends; scatter: it receives.
    rc = check_no_alias(l.buf, rs.buf, own, l.buf_arg, rs.buf_arg);
  }
  return rc;
}

}  // namespace

namespace mpi {

int coll_gather(const char* fn, const LocalSide& send, const RootSide& recv, int root,
                MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Rooted v;
  if (lookup_comm(comm, v.comm) == MPI_SUCCESS && v.comm->is_inter()) {
    return inter_gather(fn, send, recv, root, *v.comm, comm, how);
  }
  if (int rc = check_rooted(comm, root, send, recv, v)) return raise(v.comm, fn, rc);
  const bool regular = !recv.vform;
  return run_collective(*v.comm, fn, how, [&] { return keep_objects(comm, {send.datatype, recv.type}); },
                        [=, c = v.comm, lt = v.local_type, rt = v.root_type, vcounts = v.counts,
                         regular_counts = std::move(v.regular)](std::uint32_t seq) {
    const int* counts = regular ? regular_counts.data() : vcounts;
    const GatherArgs args{send.buf, send.count,  lt, const_cast<void*>(recv.buf),
                          counts,   recv.displs, rt, root};
    // Blocking: on one node, shared memory.
    const std::size_t block =
        regular ? rooted_block(*c, root, recv.regular_count, rt, send.count, lt) : 0;
    if (seq == 0 && node_exchange_fits(*c, NodeExchange::gather, block)) {
      return node_gather_run(*c, args, block);
    }
    CollChannel ch(*c, CollTag::gather, seq);
    return ch.carrying_on([&] { return gather_run(ch, args); });
  });
}

int coll_scatter(const char* fn, const RootSide& send, const LocalSide& recv, int root,
                 MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Rooted v;
  if (lookup_comm(comm, v.comm) == MPI_SUCCESS && v.comm->is_inter()) {
    return inter_scatter(fn, send, recv, root, *v.comm, comm, how);
  }
  if (int rc = check_rooted(comm, root, recv, send, v)) return raise(v.comm, fn, rc);
  const bool regular = !send.vform;
  return run_collective(*v.comm, fn, how, [&] { return keep_objects(comm, {send.type, recv.datatype}); },
                        [=, c = v.comm, lt = v.local_type, rt = v.root_type, vcounts = v.counts,
                         regular_counts = std::move(v.regular)](std::uint32_t seq) {
    const int* counts = regular ? regular_counts.data() : vcounts;
    const ScatterArgs args{send.buf, counts,     send.displs, rt,
                           const_cast<void*>(recv.buf), recv.count, lt, root};
    // Blocking: on one node, shared memory.
    const std::size_t block =
        regular ? rooted_block(*c, root, send.regular_count, rt, recv.count, lt) : 0;
    if (seq == 0 && node_exchange_fits(*c, NodeExchange::scatter, block)) {
      return node_scatter_run(*c, args, block);
    }
    CollChannel ch(*c, CollTag::scatter, seq);
    return ch.carrying_on([&] { return scatter_run(ch, args); });
  });
}

}  // namespace mpi

extern "C" int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm) {
  const ApiCall call("MPI_Gather");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_gather("MPI_Gather", {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                {recvbuf, nullptr, nullptr, recvtype, false, recvcount, "recvbuf", "recvcount",
                 "recvtype"},
                root, comm, {});
}

extern "C" int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Gatherv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_gather("MPI_Gatherv", {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                {recvbuf, recvcounts, displs, recvtype, true, 0, "recvbuf", "recvcounts",
                 "recvtype"},
                root, comm, {});
}

extern "C" int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm) {
  const ApiCall call("MPI_Scatter");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scatter("MPI_Scatter",
                 {sendbuf, nullptr, nullptr, sendtype, false, sendcount, "sendbuf", "sendcount",
                  "sendtype"},
                 {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root, comm, {});
}

extern "C" int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Scatterv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scatter("MPI_Scatterv",
                 {sendbuf, sendcounts, displs, sendtype, true, 0, "sendbuf", "sendcounts",
                  "sendtype"},
                 {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root, comm, {});
}

extern "C" int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm) {
  const ApiCall call("MPI_Bcast");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_bcast("MPI_Bcast", buffer, count, datatype, root, comm, {});
}

extern "C" int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, {});
}
