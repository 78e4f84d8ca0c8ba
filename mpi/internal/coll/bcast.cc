// Broadcast: a binomial tree, or for large messages a scatter of segments
// followed by a ring allgather (van de Geijn), which moves each byte over
// the links about twice instead of log2(n) times.
#include <algorithm>

#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"

namespace mpi {
namespace {

int bcast_binomial(CollChannel& ch, char* data, std::size_t bytes, int root) {
  const int n = ch.size();
  const int vr = (ch.rank() - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      // A mismatched receive carries on (CollChannel::carrying_on), and
      // the subtree is sent a poisoned message: it sees the mismatch too.
      if (int rc = ch.recv((vr - mask + root) % n, data, bytes)) return rc;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < n) {
      if (int rc = ch.isend((vr + mask + root) % n, data, bytes)) return rc;
    }
  }
  return ch.wait_all();
}

int bcast_scatter_allgather(CollChannel& ch, char* data, std::size_t bytes, int root) {
  const int n = ch.size();
  const std::size_t chunk = (bytes + n - 1) / n;
  std::vector<std::size_t> offsets(n + 1);
  for (int r = 0; r <= n; ++r) offsets[r] = std::min(bytes, chunk * r);
  const int me = ch.rank();
  if (me == root) {
    for (int r = 0; r < n; ++r) {
      if (r == root) continue;
      if (int rc = ch.isend(r, data + offsets[r], offsets[r + 1] - offsets[r])) return rc;
    }
    if (int rc = ch.wait_all()) return rc;
  } else if (int rc = ch.recv(root, data + offsets[me], offsets[me + 1] - offsets[me])) {
    return rc;
  }
  return allgather_bytes(ch, data, offsets, AllgatherAlgo::ring);
}

}  // namespace

int bcast_bytes(CollChannel& ch, char* data, std::size_t bytes, int root, BcastAlgo algo) {
  if (ch.size() == 1) return MPI_SUCCESS;
  if (algo == BcastAlgo::scatter_allgather) return bcast_scatter_allgather(ch, data, bytes, root);
  return bcast_binomial(ch, data, bytes, root);
}

}  // namespace mpi
