// All-to-all: linear (every receive and send posted at once; best for small
// blocks, where latency dominates) or pairwise (n - 1 rounds, in round k
// send to rank + k and receive from rank - k; bounded memory and no
// contention for large blocks).
#include <vector>

#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/blocks.hpp"
#include "mpi/internal/coll/exchange.hpp"

namespace mpi {

int alltoall_run(CollChannel& ch, const std::vector<Part>& sends, const std::vector<Part>& recvs) {
  const int n = ch.size(), me = ch.rank();
  const bool in_place = sends.empty();
  // What each peer gets, as packed bytes (in place: copied out of recvbuf
  // first, since receiving overwrites it).
  std::vector<Staging> send_staging(n), recv_staging(n);
  std::vector<SendBytes> out(n);
  std::vector<RecvBytes> in(n);
  std::size_t total = 0;
  for (int r = 0; r < n; ++r) {
    const Part& s = in_place ? recvs[r] : sends[r];
    if (in_place) {
      out[r] = {pack_to(send_staging[r], s.buf, s.count, *s.type),
                static_cast<std::size_t>(s.count * s.type->size())};
    } else {
      out[r] = prepare_send(s.buf, s.count, *s.type, send_staging[r]);
    }
    in[r] = prepare_recv(recvs[r].buf, recvs[r].count, *recvs[r].type, recv_staging[r]);
    total += out[r].bytes;
  }
  int rc = MPI_SUCCESS;
  if (in_place) {
    // Own block: already in place.
  } else {
    const Part& s = sends[me];
    rc = local_copy(s.buf, s.count, *s.type, recvs[me].buf, recvs[me].count, *recvs[me].type);
    in[me].unpack = false;
  }
  AlltoallAlgo algo;
  if (rc == MPI_SUCCESS) rc = choose_alltoall(n > 0 ? total / n : 0, algo);
  if (rc != MPI_SUCCESS) return rc;
  if (algo == AlltoallAlgo::pairwise) {
    for (int k = 1; k < n && rc == MPI_SUCCESS; ++k) {
      const int to = (me + k) % n, from = (me - k + n) % n;
      rc = ch.sendrecv(to, out[to].data, out[to].bytes, from, in[from].data, in[from].capacity);
    }
  } else {
    for (int k = 1; k < n && rc == MPI_SUCCESS; ++k) {
      const int from = (me - k + n) % n;
      rc = ch.irecv(from, in[from].data, in[from].capacity);
    }
    for (int k = 1; k < n && rc == MPI_SUCCESS; ++k) {
      const int to = (me + k) % n;
      rc = ch.isend(to, out[to].data, out[to].bytes);
    }
    int rc2 = ch.wait_all();
    if (rc == MPI_SUCCESS) rc = rc2;
  }
  if (rc != MPI_SUCCESS) return rc;
  for (int r = 0; r < n; ++r) {
    if (r != me && in[r].unpack) {
      unpack(*recvs[r].type, recvs[r].buf, recvs[r].count, in[r].data,
             static_cast<std::int64_t>(in[r].capacity));
    }
  }
  return MPI_SUCCESS;
}

}  // namespace mpi
