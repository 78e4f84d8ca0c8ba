// Barrier for MPI_Ibarrier (MPI_Barrier keeps internal_barrier): a
// dissemination barrier, ceil(log2 n) rounds of zero-byte messages; in
// round k rank r tells r + 2^k and hears from r - 2^k.
#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"

namespace mpi {

int barrier_run(CollChannel& ch) {
  const int n = ch.size(), me = ch.rank();
  for (int dist = 1; dist < n; dist <<= 1) {
    if (int rc = ch.sendrecv((me + dist) % n, nullptr, 0, (me - dist + n) % n, nullptr, 0)) {
      return rc;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace mpi
