// Collectives on inter-communicators (coll/inter.hpp): validation with the
// standard's roots and the work, built from the local group's algorithms
// and messages between the groups. Reached from the coll_* entry points.
#include <numeric>
#include <vector>

#include "mpi.h"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/inter.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {
namespace {

constexpr const char* kNoInPlace = "inter-communicator collectives have no in-place form";

}  // namespace

// Local barrier, the leaders meet, local barrier: nobody leaves before
// every member of both groups has arrived.
int inter_barrier(const char* fn, Comm& c, MPI_Comm comm, const CollCall& how) {
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {}); },
                        [cp = &c](std::uint32_t seq) {
    CollChannel local(*cp->local, CollTag::barrier, seq);
    CollChannel cross(*cp, CollTag::barrier, seq);
    int rc = barrier_run(local);
    if (rc == MPI_SUCCESS && cp->rank == 0) rc = cross.sendrecv(0, nullptr, 0, 0, nullptr, 0);
    if (rc == MPI_SUCCESS) rc = barrier_run(local);
    return rc;
  });
}

// The root sends to remote rank 0, which broadcasts in its group.
int inter_bcast(const char* fn, void* buffer, int count, MPI_Datatype datatype, int root, Comm& c,
                MPI_Comm comm, const CollCall& how) {
  const Datatype* t = nullptr;
  int rc = check_inter_root(c, root);
  if (rc == MPI_SUCCESS && root != MPI_PROC_NULL) {
    rc = check_buffer_args({buffer, count, datatype, "buffer", "count", "datatype"}, t);
    if (rc == MPI_SUCCESS) rc = check_not_in_place(buffer, "buffer", kNoInPlace);
  }
  const std::size_t bytes = t != nullptr ? static_cast<std::size_t>(count * t->size()) : 0;
  BcastAlgo algo = BcastAlgo::binomial;
  if (rc == MPI_SUCCESS) rc = choose_bcast(bytes, c.size(), algo);
  if (rc != MPI_SUCCESS) return raise(&c, fn, rc);
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {datatype}); },
                        [=, cp = &c](std::uint32_t seq) {
    if (root == MPI_PROC_NULL || bytes == 0) return MPI_SUCCESS;
    CollChannel cross(*cp, CollTag::bcast, seq);
    Staging staging;
    if (root == MPI_ROOT) {
      SendBytes sb = prepare_send(buffer, count, *t, staging);
      return cross.send(0, sb.data, sb.bytes);
    }
    RecvBytes rb = prepare_recv(buffer, count, *t, staging);
    int rc = MPI_SUCCESS;
    if (cp->rank == 0) rc = cross.recv(root, rb.data, rb.capacity);
    CollChannel local(*cp->local, CollTag::bcast, seq);
    if (rc == MPI_SUCCESS) rc = bcast_bytes(local, static_cast<char*>(rb.data), bytes, 0, algo);
    if (rc == MPI_SUCCESS && rb.unpack) {
      unpack(*t, buffer, count, rb.data, static_cast<std::int64_t>(bytes));
    }
    return rc;
  });
}

// The other group reduces to its rank 0, which sends the result to the root.
int inter_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, Comm& c, MPI_Comm comm,
                 const CollCall& how) {
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = check_inter_root(c, root);
  const bool contributes = root >= 0;
  if (rc == MPI_SUCCESS && root != MPI_PROC_NULL) {
    rc = check_not_in_place(contributes ? sendbuf : recvbuf, contributes ? "sendbuf" : "recvbuf",
                            kNoInPlace);
    if (rc == MPI_SUCCESS) {
      rc = check_reduce_args({contributes ? sendbuf : MPI_IN_PLACE, recvbuf, count, datatype, op,
                              root == MPI_ROOT},
                             t, o);
    }
  }
  ReduceAlgo algo = ReduceAlgo::binomial;
  if (rc == MPI_SUCCESS) rc = choose_reduce(algo);
  if (rc != MPI_SUCCESS) return raise(&c, fn, rc);
  const std::size_t bytes = t != nullptr ? static_cast<std::size_t>(count * t->size()) : 0;
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=, cp = &c](std::uint32_t seq) {
    if (root == MPI_PROC_NULL || bytes == 0) return MPI_SUCCESS;
    CollChannel cross(*cp, CollTag::reduce, seq);
    Staging acc;
    if (root == MPI_ROOT) {
      acc.allocate(bytes);
      int rc = cross.recv(0, acc.data.get(), bytes);
      if (rc == MPI_SUCCESS) unpack(*t, recvbuf, count, acc.data.get(), static_cast<std::int64_t>(bytes));
      return rc;
    }
    pack_to(acc, sendbuf, count, *t);
    CollChannel local(*cp->local, CollTag::reduce, seq);
    int rc = reduce_bytes(local, {o, t, datatype}, acc, count, 0, algo);
    if (rc == MPI_SUCCESS && cp->rank == 0) rc = cross.send(root, acc.data.get(), bytes);
    return rc;
  });
}

namespace {

// Each group reduces its data to its rank 0; the two leaders swap results.
// On return `acc` holds, at local rank 0, the other group's reduction.
int reduce_and_swap(Comm& c, const Reduction& red, Staging& acc, std::int64_t count,
                    std::uint32_t seq) {
  const std::size_t bytes = static_cast<std::size_t>(count * red.type->size());
  CollChannel local(*c.local, CollTag::reduce, seq);
  ReduceAlgo algo = ReduceAlgo::binomial;
  int rc = choose_reduce(algo);
  if (rc == MPI_SUCCESS) rc = reduce_bytes(local, red, acc, count, 0, algo);
  if (rc != MPI_SUCCESS || c.rank != 0) return rc;
  Staging theirs;
  theirs.allocate(bytes);
  CollChannel cross(c, CollTag::reduce, seq);
  rc = cross.sendrecv(0, acc.data.get(), bytes, 0, theirs.data.get(), bytes);
  std::swap(acc.data, theirs.data);
  std::swap(acc.size, theirs.size);
  return rc;
}

}  // namespace

int inter_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, Comm& c, MPI_Comm comm, const CollCall& how) {
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = check_not_in_place(sendbuf, "sendbuf", kNoInPlace);
  if (rc == MPI_SUCCESS) rc = check_reduce_args({sendbuf, recvbuf, count, datatype, op, true}, t, o);
  if (rc != MPI_SUCCESS) return raise(&c, fn, rc);
  const std::size_t bytes = static_cast<std::size_t>(count * t->size());
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=, cp = &c](std::uint32_t seq) {
    if (bytes == 0) return MPI_SUCCESS;
    Staging acc;
    pack_to(acc, sendbuf, count, *t);
    int rc = reduce_and_swap(*cp, {o, t, datatype}, acc, count, seq);
    CollChannel local(*cp->local, CollTag::bcast, seq);
    BcastAlgo algo = BcastAlgo::binomial;
    if (rc == MPI_SUCCESS) rc = choose_bcast(bytes, cp->size(), algo);
    if (rc == MPI_SUCCESS) rc = bcast_bytes(local, acc.data.get(), bytes, 0, algo);
    if (rc == MPI_SUCCESS) unpack(*t, recvbuf, count, acc.data.get(), static_cast<std::int64_t>(bytes));
    return rc;
  });
}

// Each group reduces its whole vector; the leaders swap; each leader
// scatters the other group's result over its own group by recvcounts.
int inter_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf,
                         const int* recvcounts, MPI_Datatype datatype, MPI_Op op, Comm& c,
                         MPI_Comm comm, bool block_form, int recvcount, const CollCall& how) {
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  std::vector<int> counts;
  int rc = MPI_SUCCESS;
  if (block_form) {
    rc = check_count(recvcount, "recvcount");
    counts.assign(c.size(), recvcount);
  } else {
    rc = check_counts(recvcounts, c.size(), "recvcounts");
    if (rc == MPI_SUCCESS) counts.assign(recvcounts, recvcounts + c.size());
  }
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  if (rc == MPI_SUCCESS && total > 0x7fffffff) {
    rc = fail(MPI_ERR_COUNT, "the counts add up to {}, more than an int", total);
  }
  if (rc == MPI_SUCCESS) rc = check_not_in_place(sendbuf, "sendbuf", kNoInPlace);
  if (rc == MPI_SUCCESS) {
    rc = check_reduce_args({sendbuf, nullptr, static_cast<int>(total), datatype, op, false}, t, o);
  }
  if (rc == MPI_SUCCESS) rc = check_buffer(recvbuf, counts[c.rank], *t, "recvbuf");
  if (rc != MPI_SUCCESS) return raise(&c, fn, rc);
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=, cp = &c, counts = std::move(counts)](std::uint32_t seq) {
    if (total == 0 || t->size() == 0) return MPI_SUCCESS;
    Staging acc;
    pack_to(acc, sendbuf, total, *t);
    int rc = reduce_and_swap(*cp, {o, t, datatype}, acc, total, seq);
    if (rc != MPI_SUCCESS) return rc;
    CollChannel sc(*cp->local, CollTag::scatter, seq);
    const std::int64_t size = t->size();
    if (cp->rank == 0) {
      std::int64_t at = counts[0];
      for (int r = 1; r < cp->size() && rc == MPI_SUCCESS; ++r) {
        rc = sc.isend(r, acc.data.get() + at * size, static_cast<std::size_t>(counts[r] * size));
        at += counts[r];
      }
      int rc2 = sc.wait_all();
      if (rc == MPI_SUCCESS) rc = rc2;
      unpack(*t, recvbuf, counts[0], acc.data.get(), counts[0] * size);
      return rc;
    }
    acc.allocate(static_cast<std::size_t>(counts[cp->rank] * size));
    rc = sc.recv(0, acc.data.get(), static_cast<std::size_t>(counts[cp->rank] * size));
    if (rc == MPI_SUCCESS) unpack(*t, recvbuf, counts[cp->rank], acc.data.get(), counts[cp->rank] * size);
    return rc;
  });
}

namespace {

// The root's side of gather/scatter: one block per remote rank.
int check_root_side(const Comm& c, const RootSide& rs, const Datatype*& type,
                    std::vector<int>& regular, const int*& counts) {
  int rc = MPI_SUCCESS;
  counts = rs.counts;
  if (rs.vform) {
    rc = check_counts(rs.counts, c.peer_size(), rs.counts_arg);
    if (rc == MPI_SUCCESS) rc = check_not_null(rs.displs, "displs");
  } else {
    rc = check_count(rs.regular_count, rs.counts_arg);
    regular.assign(c.peer_size(), rs.regular_count);
    counts = regular.data();
  }
  if (rc == MPI_SUCCESS) rc = check_not_in_place(rs.buf, rs.buf_arg, kNoInPlace);
  if (rc == MPI_SUCCESS) rc = lookup_type(rs.type, type, true, rs.type_arg);
  for (int r = 0; rc == MPI_SUCCESS && r < c.peer_size(); ++r) {
    rc = check_buffer(rs.buf, counts[r], *type, rs.buf_arg);
  }
  return rc;
}

int check_local_side(const LocalSide& l, const Datatype*& type) {
  int rc = check_not_in_place(l.buf, l.buf_arg, kNoInPlace);
  if (rc == MPI_SUCCESS) rc = check_buffer_args(l, type);
  return rc;
}

}  // namespace

// Every member of the other group sends its block straight to the root.
int inter_gather(const char* fn, const LocalSide& send, const RootSide& recv, int root, Comm& c,
                 MPI_Comm comm, const CollCall& how) {
  const Datatype *lt = nullptr, *rt = nullptr;
  std::vector<int> regular;
  const int* counts = nullptr;
  int rc = check_inter_root(c, root);
  if (rc == MPI_SUCCESS && root == MPI_ROOT) rc = check_root_side(c, recv, rt, regular, counts);
  if (rc == MPI_SUCCESS && root >= 0) rc = check_local_side(send, lt);
  if (rc != MPI_SUCCESS) return raise(&c, fn, rc);
  const bool is_regular = !recv.vform;
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {send.datatype, recv.type}); },
                        [=, cp = &c, regular = std::move(regular)](std::uint32_t seq) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    CollChannel cross(*cp, CollTag::gather, seq);
    Staging staging;
    if (root >= 0) {
      SendBytes sb = prepare_send(send.buf, send.count, *lt, staging);
      return cross.send(root, sb.data, sb.bytes);
    }
    const int n = cp->peer_size();
    BlockArea area(const_cast<void*>(recv.buf), *rt, is_regular ? regular.data() : counts,
                   recv.displs, n);
    int rc = MPI_SUCCESS;
    for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) {
      rc = cross.irecv(r, area.packed() + area.offset(r), area.bytes(r));
    }
    int rc2 = cross.wait_all();
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc == MPI_SUCCESS) area.store_all();
    return rc;
  });
}

// The root sends each member of the other group its block.
int inter_scatter(const char* fn, const RootSide& send, const LocalSide& recv, int root, Comm& c,
                  MPI_Comm comm, const CollCall& how) {
  const Datatype *lt = nullptr, *rt = nullptr;
  std::vector<int> regular;
  const int* counts = nullptr;
  int rc = check_inter_root(c, root);
  if (rc == MPI_SUCCESS && root == MPI_ROOT) rc = check_root_side(c, send, rt, regular, counts);
  if (rc == MPI_SUCCESS && root >= 0) rc = check_local_side(recv, lt);
  if (rc != MPI_SUCCESS) return raise(&c, fn, rc);
  const bool is_regular = !send.vform;
  return run_collective(c, fn, how, [&] { return keep_objects(comm, {send.type, recv.datatype}); },
                        [=, cp = &c, regular = std::move(regular)](std::uint32_t seq) {
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    CollChannel cross(*cp, CollTag::scatter, seq);
    Staging staging;
    if (root >= 0) {
      RecvBytes rb = prepare_recv(const_cast<void*>(recv.buf), recv.count, *lt, staging);
      int rc = cross.recv(root, rb.data, rb.capacity);
      if (rc == MPI_SUCCESS && rb.unpack) {
        unpack(*lt, const_cast<void*>(recv.buf), recv.count, rb.data,
               static_cast<std::int64_t>(rb.capacity));
      }
      return rc;
    }
    const int n = cp->peer_size();
    BlockArea area(const_cast<void*>(send.buf), *rt, is_regular ? regular.data() : counts,
                   send.displs, n);
    int rc = MPI_SUCCESS;
    for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) {
      area.load(r);
      rc = cross.isend(r, area.packed() + area.offset(r), area.bytes(r));
    }
    int rc2 = cross.wait_all();
    return rc != MPI_SUCCESS ? rc : rc2;
  });
}

}  // namespace mpi
