// The reductions every rank receives from: MPI_Allreduce,
// MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan (and the work of their
// nonblocking and persistent forms). Each packs its input
// (recvbuf's for MPI_IN_PLACE), runs an algorithm on the packed bytes and
// unpacks its result.
#include <numeric>
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
#include "mpi/internal/errors.hpp"

using namespace mpi;

namespace mpi {

int coll_allreduce(const char* kFn, const void* sendbuf, void* recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) {
    return inter_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, *c, comm, how);
  }
  if (rc == MPI_SUCCESS) rc = check_reduce_args({sendbuf, recvbuf, count, datatype, op, true}, t, o);
  const std::size_t bytes = rc == MPI_SUCCESS ? static_cast<std::size_t>(count * t->size()) : 0;
  static const bool forced = coll_forced("LAPIS_COLL_ALLREDUCE");
  // Blocking, on one node: the segment (no point-to-point algorithm to choose).
  const std::size_t chunk = rc == MPI_SUCCESS ? node_chunk_bytes(bytes, static_cast<std::size_t>(t->size())) : 0;
  const bool node = rc == MPI_SUCCESS && how.mode == CollMode::blocking && chunk > 0 &&
                    node_collective(*c, chunk, forced);
  AllreduceAlgo algo{};
  if (rc == MPI_SUCCESS && !node) rc = choose_allreduce(bytes, count, c->size(), *o, algo);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  return run_collective(*c, kFn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=](std::uint32_t seq) {
    if (bytes == 0) return MPI_SUCCESS;
    if (sendbuf == MPI_IN_PLACE && c->size() == 1) return MPI_SUCCESS;
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (t->contiguous_for(count)) {  // no packing: read in place, written where it goes
      if (node) return node_allreduce(*c, {o, t, datatype}, data_start(in, *t), data_start(recvbuf, *t), count);
      CollChannel ch(*c, CollTag::allreduce, seq);
      return ch.carrying_on([&] {
        return allreduce_into(ch, {o, t, datatype}, data_start(in, *t), data_start(recvbuf, *t), count, algo);
      });
    }
    Staging acc;
    pack_to(acc, in, count, *t);
    int rc;
    if (node) {
      rc = node_allreduce(*c, {o, t, datatype}, acc.data.get(), acc.data.get(), count);
    } else {
      CollChannel ch(*c, CollTag::allreduce, seq);
      rc = ch.carrying_on(
          [&] { return allreduce_bytes(ch, {o, t, datatype}, acc, count, algo); });
    }
    if (rc == MPI_SUCCESS) {
      unpack(*t, recvbuf, count, acc.data.get(), static_cast<std::int64_t>(bytes));
    }
    return rc;
  });
}

// Reduce_scatter: the whole vector is reduced to rank 0 (keeping rank
// order, so any op), which hands each rank its segment.
int coll_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, const int* recvcounts,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool block_form,
                        int recvcount, const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) {
    return inter_reduce_scatter(fn, sendbuf, recvbuf, recvcounts, datatype, op, *c, comm,
                                block_form, recvcount, how);
  }
  std::vector<int> counts;
  if (rc == MPI_SUCCESS && block_form) {
    rc = check_count(recvcount, "recvcount");
    counts.assign(c->size(), recvcount);
  } else if (rc == MPI_SUCCESS) {
    rc = check_counts(recvcounts, c->size(), "recvcounts");
    if (rc == MPI_SUCCESS) counts.assign(recvcounts, recvcounts + c->size());
  }
  std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  if (rc == MPI_SUCCESS && total > 0x7fffffff) {
    rc = fail(MPI_ERR_COUNT, "the counts add up to {}, more than an int", total);
  }
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (rc == MPI_SUCCESS) {
    // The input holds all segments; the output only this rank's.
    rc = check_reduce_args({sendbuf, nullptr, static_cast<int>(total), datatype, op, false}, t, o);
  }
  if (rc == MPI_SUCCESS) {
    rc = check_buffer(recvbuf, in_place ? static_cast<int>(total) : counts[c->rank], *t,
                      "recvbuf");
  }
  if (rc == MPI_SUCCESS && total > 0 && t->size() > 0) {
    rc = check_no_alias(sendbuf, recvbuf, nullptr, "sendbuf", "recvbuf");
  }
  ReduceAlgo algo;
  if (rc == MPI_SUCCESS) rc = choose_reduce(algo);
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  return run_collective(*c, fn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=, counts = std::move(counts)](std::uint32_t seq) {
    if (total == 0 || t->size() == 0) return MPI_SUCCESS;
    Staging acc;
    pack_to(acc, in_place ? recvbuf : sendbuf, total, *t);
    CollChannel ch(*c, CollTag::reduce, seq);
    const int reduced =
        ch.carrying_on([&] { return reduce_bytes(ch, {o, t, datatype}, acc, total, 0, algo); });
    // Segment r of the packed result goes to rank r's recvbuf, after a
    // mismatch in the reduction too: the other ranks wait for theirs.
    CollChannel sc(*c, CollTag::scatter, seq);
    const std::int64_t size = t->size();
    const int scattered = sc.carrying_on([&] {
      int rc = MPI_SUCCESS;
      if (c->rank == 0) {
        std::int64_t at = counts[0];
        for (int r = 1; r < c->size() && rc == MPI_SUCCESS; ++r) {
          rc = sc.isend(r, acc.data.get() + at * size, static_cast<std::size_t>(counts[r] * size));
          at += counts[r];
        }
        const int rc2 = sc.wait_all();
        return rc != MPI_SUCCESS ? rc : rc2;
      }
      return sc.recv(0, acc.data.get(), static_cast<std::size_t>(counts[c->rank] * size));
    });
    const int rc = reduced != MPI_SUCCESS ? reduced : scattered;
    // This rank's segment leads acc: rank 0's own, or the one it received.
    if (rc == MPI_SUCCESS) unpack(*t, recvbuf, counts[c->rank], acc.data.get(), counts[c->rank] * size);
    return rc;
  });
}

int coll_scan(const char* fn, const void* sendbuf, void* recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive,
              const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) {
    rc = fail(MPI_ERR_COMM, "{} is not defined on inter-communicators", fn);
  }
  if (rc == MPI_SUCCESS) rc = check_reduce_args({sendbuf, recvbuf, count, datatype, op, true}, t, o);
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  const std::size_t bytes = static_cast<std::size_t>(count * t->size());
  return run_collective(*c, fn, how, [&] { return keep_objects(comm, {datatype}, op); },
                        [=](std::uint32_t seq) {
    if (bytes == 0) return MPI_SUCCESS;
    Staging acc;
    pack_to(acc, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, *t);
    CollChannel ch(*c, exclusive ? CollTag::exscan : CollTag::scan, seq);
    const int rc = ch.carrying_on([&] { return scan_bytes(ch, {o, t, datatype}, acc, count, exclusive); });
    // Exscan leaves rank 0's recvbuf alone (its result is undefined).
    if (rc == MPI_SUCCESS && !(exclusive && c->rank == 0)) {
      unpack(*t, recvbuf, count, acc.data.get(), static_cast<std::int64_t>(bytes));
    }
    return rc;
  });
}

}  // namespace mpi

extern "C" int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Allreduce");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, {});
}

extern "C" int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce_scatter");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm, false, 0, {});
}

extern "C" int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce_scatter_block");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, nullptr, datatype, op,
                             comm, true, recvcount, {});
}

extern "C" int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Scan");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false, {});
}

extern "C" int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Exscan");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true, {});
}
