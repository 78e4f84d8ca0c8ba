#include "mpi/internal/coll/neighbor.hpp"

#include "mpi.h"
#include "mpi/internal/buffers.hpp"

namespace mpi {

int neighbor_run(CollChannel& ch, const std::vector<NeighborPart>& sends,
                 const std::vector<NeighborPart>& recvs) {
  std::vector<Staging> recv_staging(recvs.size()), send_staging(sends.size());
  std::vector<RecvBytes> in(recvs.size());
  int rc = MPI_SUCCESS;
  for (std::size_t i = 0; i < recvs.size() && rc == MPI_SUCCESS; ++i) {
    const NeighborPart& p = recvs[i];
    if (p.peer == MPI_PROC_NULL) continue;
    in[i] = prepare_recv(p.buf, p.count, *p.type, recv_staging[i]);
    rc = ch.irecv(p.peer, in[i].data, in[i].capacity);
  }
  for (std::size_t i = 0; i < sends.size() && rc == MPI_SUCCESS; ++i) {
    const NeighborPart& p = sends[i];
    if (p.peer == MPI_PROC_NULL) continue;
    const SendBytes out = prepare_send(p.buf, p.count, *p.type, send_staging[i]);
    rc = ch.isend(p.peer, out.data, out.bytes);
  }
  const int rc2 = ch.wait_all();
  if (rc == MPI_SUCCESS) rc = rc2;
  if (rc != MPI_SUCCESS) return rc;
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    if (recvs[i].peer != MPI_PROC_NULL && in[i].unpack) {
      unpack(*recvs[i].type, recvs[i].buf, recvs[i].count, in[i].data,
             static_cast<std::int64_t>(in[i].capacity));
    }
  }
  return MPI_SUCCESS;
}

}  // namespace mpi
