// Allgather and all-to-all between the two groups of an inter-communicator:
// every rank posts one receive per remote rank and one send per remote
// rank, then waits (all posted at once; the channel addresses remote ranks).
#include <vector>

#include "mpi.h"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/inter.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi {

int inter_allgather_run(CollChannel& ch, const AllgatherArgs& a) {
  const int n = ch.size();
  BlockArea area(a.recvbuf, *a.recvtype, a.recvcounts, a.displs, n);
  Staging staging;
  SendBytes mine = prepare_send(a.sendbuf, a.sendcount, *a.sendtype, staging);
  int rc = MPI_SUCCESS;
  for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) {
    rc = ch.irecv(r, area.packed() + area.offset(r), area.bytes(r));
  }
  for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) rc = ch.isend(r, mine.data, mine.bytes);
  int rc2 = ch.wait_all();
  if (rc == MPI_SUCCESS) rc = rc2;
  if (rc == MPI_SUCCESS) area.store_all();
  return rc;
}

int inter_alltoall_run(CollChannel& ch, const std::vector<Part>& sends,
                       const std::vector<Part>& recvs) {
  const int n = ch.size();
  std::vector<Staging> send_staging(n), recv_staging(n);
  std::vector<SendBytes> out(n);
  std::vector<RecvBytes> in(n);
  for (int r = 0; r < n; ++r) {
    out[r] = prepare_send(sends[r].buf, sends[r].count, *sends[r].type, send_staging[r]);
    in[r] = prepare_recv(recvs[r].buf, recvs[r].count, *recvs[r].type, recv_staging[r]);
  }
  int rc = MPI_SUCCESS;
  for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) rc = ch.irecv(r, in[r].data, in[r].capacity);
  for (int r = 0; r < n && rc == MPI_SUCCESS; ++r) rc = ch.isend(r, out[r].data, out[r].bytes);
  int rc2 = ch.wait_all();
  if (rc == MPI_SUCCESS) rc = rc2;
  if (rc != MPI_SUCCESS) return rc;
  for (int r = 0; r < n; ++r) {
    if (in[r].unpack) {
      unpack(*recvs[r].type, recvs[r].buf, recvs[r].count, in[r].data,
             static_cast<std::int64_t>(in[r].capacity));
    }
  }
  return MPI_SUCCESS;
}

int check_inter_root(const Comm& c, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c.peer_size())) {
    return MPI_SUCCESS;
  }
  return fail(MPI_ERR_ROOT,
              "root={} is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote group (0..{})",
              root, c.peer_size() - 1);
}

}  // namespace mpi
