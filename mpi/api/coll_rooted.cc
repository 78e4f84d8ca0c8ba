// The rooted collectives: MPI_Bcast, MPI_Reduce, MPI_Gather(v),
// MPI_Scatter(v). Each validates (arguments significant only at the root
// are checked only there), handles MPI_IN_PLACE and zero sizes, then runs
// an algorithm on packed bytes (mpi/internal/coll).
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/exchange.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

extern "C" int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm) {
  const ApiCall call("MPI_Bcast");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Bcast";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_root(*c, root);
  if (rc == MPI_SUCCESS) rc = check_buffer_args({buffer, count, datatype, "buffer", "count",
                                                 "datatype"}, t);
  if (rc == MPI_SUCCESS) rc = check_not_in_place(buffer, "buffer", "MPI_Bcast has no in-place form");
  const std::size_t bytes = rc == MPI_SUCCESS ? static_cast<std::size_t>(count * t->size()) : 0;
  BcastAlgo algo;
  if (rc == MPI_SUCCESS) rc = choose_bcast(bytes, c->size(), algo);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (bytes == 0 || c->size() == 1) return MPI_SUCCESS;
  Staging staging;
  const bool direct = t->contiguous_for(count);
  char* data = direct ? data_start(buffer, *t) : nullptr;
  if (!direct) {
    staging.allocate(bytes);
    data = staging.data.get();
    if (c->rank == root) pack(*t, buffer, count, data);
  }
  CollChannel ch(*c, CollTag::bcast);
  rc = bcast_bytes(ch, data, bytes, root, algo);
  if (rc == MPI_SUCCESS && !direct && c->rank != root) {
    unpack(*t, buffer, count, data, static_cast<std::int64_t>(bytes));
  }
  return raise(c, kFn, rc);
}

extern "C" int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Reduce";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_root(*c, root);
  const bool am_root = rc == MPI_SUCCESS && c->rank == root;
  if (rc == MPI_SUCCESS && !am_root) {
    rc = check_not_in_place(sendbuf, "sendbuf", "only the root may pass MPI_IN_PLACE");
  }
  if (rc == MPI_SUCCESS) {
    rc = check_reduce_args({sendbuf, recvbuf, count, datatype, op, am_root}, t, o);
  }
  ReduceAlgo algo;
  if (rc == MPI_SUCCESS) rc = choose_reduce(algo);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  const std::size_t bytes = static_cast<std::size_t>(count * t->size());
  if (bytes == 0) return MPI_SUCCESS;
  Staging acc;
  pack_to(acc, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, *t);
  CollChannel ch(*c, CollTag::reduce);
  rc = reduce_bytes(ch, {o, t, datatype}, acc, count, root, algo);
  if (rc == MPI_SUCCESS && am_root) {
    unpack(*t, recvbuf, count, acc.data.get(), static_cast<std::int64_t>(bytes));
  }
  return raise(c, kFn, rc);
}

namespace {

// Gather's send side and scatter's receive side (BufferArgs) is what every
// rank passes (MPI_IN_PLACE allowed at the root only).
using LocalSide = BufferArgs;

// The per-rank blocks only the root looks at: counts and displacements for
// the v-forms, one count for all (regular_count) otherwise.
struct RootSide {
  const void* buf;
  const int* counts;
  const int* displs;
  MPI_Datatype type;
  bool vform;
  int regular_count;
  const char* buf_arg;
  const char* counts_arg;
  const char* type_arg;
};

// What gather(v) and scatter(v) need once validated.
struct Rooted {
  Comm* comm = nullptr;
  const Datatype* local_type = nullptr;  // null for MPI_IN_PLACE at the root
  const Datatype* root_type = nullptr;   // root only
  const int* counts = nullptr;           // root only
  std::vector<int> regular;
};

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
  return rc;
}

int gather(const char* fn, const LocalSide& send, const RootSide& recv, int root, MPI_Comm comm) {
  if (int rc = check_running(fn)) return rc;
  Rooted v;
  if (int rc = check_rooted(comm, root, send, recv, v)) return raise(v.comm, fn, rc);
  CollChannel ch(*v.comm, CollTag::gather);
  return raise(v.comm, fn,
               gather_run(ch, {send.buf, send.count, v.local_type, const_cast<void*>(recv.buf),
                               v.counts, recv.displs, v.root_type, root}));
}

int scatter(const char* fn, const RootSide& send, const LocalSide& recv, int root, MPI_Comm comm) {
  if (int rc = check_running(fn)) return rc;
  Rooted v;
  if (int rc = check_rooted(comm, root, recv, send, v)) return raise(v.comm, fn, rc);
  CollChannel ch(*v.comm, CollTag::scatter);
  return raise(v.comm, fn,
               scatter_run(ch, {send.buf, v.counts, send.displs, v.root_type,
                                const_cast<void*>(recv.buf), recv.count, v.local_type, root}));
}

}  // namespace

extern "C" int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm) {
  const ApiCall call("MPI_Gather");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return gather("MPI_Gather", {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                {recvbuf, nullptr, nullptr, recvtype, false, recvcount, "recvbuf", "recvcount",
                 "recvtype"},
                root, comm);
}

extern "C" int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Gatherv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return gather("MPI_Gatherv", {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                {recvbuf, recvcounts, displs, recvtype, true, 0, "recvbuf", "recvcounts",
                 "recvtype"},
                root, comm);
}

extern "C" int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm) {
  const ApiCall call("MPI_Scatter");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return scatter("MPI_Scatter",
                 {sendbuf, nullptr, nullptr, sendtype, false, sendcount, "sendbuf", "sendcount",
                  "sendtype"},
                 {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root, comm);
}

extern "C" int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Scatterv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return scatter("MPI_Scatterv",
                 {sendbuf, sendcounts, displs, sendtype, true, 0, "sendbuf", "sendcounts",
                  "sendtype"},
                 {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root, comm);
}
