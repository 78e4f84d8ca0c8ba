// Gather, scatter (linear: the root exchanges one message with every other
// rank, all posted at once) and allgather (ring or recursive doubling over
// the blocks packed in rank order).
#include <vector>

#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/exchange.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {
namespace {

// Block r of a regular or v-form layout, in the user's buffer.
char* block_of(void* buf, const Datatype& type, const int* counts, const int* displs, int r) {
  std::int64_t displ = 0;
  if (displs) {
    displ = displs[r];
  } else {
    for (int q = 0; q < r; ++q) displ += counts[q];
  }
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf) + displ * type.extent());
}

}  // namespace

int gather_run(CollChannel& ch, const GatherArgs& a) {
  const int n = ch.size(), me = ch.rank();
  if (me != a.root) {
    Staging staging;
    SendBytes sb = prepare_send(a.sendbuf, a.sendcount, *a.sendtype, staging);
    return ch.send(a.root, sb.data, sb.bytes);
  }
  BlockArea area(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, n);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    if (int rc = ch.irecv(r, area.packed() + area.offset(r), area.bytes(r))) return rc;
  }
  int rc = MPI_SUCCESS;
  if (a.sendbuf != MPI_IN_PLACE) {
    rc = local_copy(a.sendbuf, a.sendcount, *a.sendtype,
                    block_of(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, me),
                    a.recvcounts[me], *a.recvtype);
  }
  int rc2 = ch.wait_all();
  if (rc == MPI_SUCCESS) rc = rc2;
  area.store_all(me);
  return rc;
}

int scatter_run(CollChannel& ch, const ScatterArgs& a) {
  const int n = ch.size(), me = ch.rank();
  if (me != a.root) {
    Staging staging;
    RecvBytes rb = prepare_recv(a.recvbuf, a.recvcount, *a.recvtype, staging);
    int rc = ch.recv(a.root, rb.data, rb.capacity);
    if (rc == MPI_SUCCESS && rb.unpack) {
      unpack(*a.recvtype, a.recvbuf, a.recvcount, rb.data, static_cast<std::int64_t>(rb.capacity));
    }
    return rc;
  }
  BlockArea area(const_cast<void*>(a.sendbuf), *a.sendtype, a.sendcounts, a.displs, n);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    area.load(r);
    if (int rc = ch.isend(r, area.packed() + area.offset(r), area.bytes(r))) return rc;
  }
  int rc = MPI_SUCCESS;
  if (a.recvbuf != MPI_IN_PLACE) {
    rc = local_copy(block_of(const_cast<void*>(a.sendbuf), *a.sendtype, a.sendcounts, a.displs,
                             me),
                    a.sendcounts[me], *a.sendtype, a.recvbuf, a.recvcount, *a.recvtype);
  }
  int rc2 = ch.wait_all();
  return rc != MPI_SUCCESS ? rc : rc2;
}

int allgather_run(CollChannel& ch, const AllgatherArgs& a) {
  const int n = ch.size(), me = ch.rank();
  BlockArea area(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, n);
  int mismatch = MPI_SUCCESS;
  if (a.sendbuf == MPI_IN_PLACE) {
    area.load(me);
  } else {
    const std::int64_t sbytes = a.sendcount * a.sendtype->size();
    if (sbytes != static_cast<std::int64_t>(area.bytes(me))) {
      // Every rank must know every block's size: a mismatch cannot be
      // received correctly anywhere. This rank still takes its part in the
      // exchange, which the others wait for, with its block unfilled and
      // its sends poisoned (the others report the mismatch too).
      mismatch = fail(sbytes > static_cast<std::int64_t>(area.bytes(me)) ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
                      "collective size mismatch: sendcount x sendtype = {} bytes but this rank's "
                      "block of recvbuf holds {} bytes", sbytes, area.bytes(me));
      ch.found_mismatch(mismatch);
    } else {
      pack(*a.sendtype, a.sendbuf, a.sendcount, area.packed() + area.offset(me));
    }
  }
  AllgatherAlgo algo;
  if (int rc = choose_allgather(area.total_bytes(), n, algo)) return rc;
  int rc = allgather_bytes(ch, area.packed(), area.offsets(), algo);
  if (mismatch != MPI_SUCCESS) return mismatch;
  if (rc == MPI_SUCCESS) area.store_all();
  return rc;
}

}  // namespace mpi
