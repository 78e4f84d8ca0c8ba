// Allgather of blocks in rank order: a ring (n - 1 steps, each rank passing
// on what it received last; best for large blocks) or recursive doubling
// (log2 n steps of doubling size; a power-of-two number of ranks only).
#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"

namespace mpi {
namespace {

int allgather_ring(CollChannel& ch, char* all, const std::vector<std::size_t>& off) {
  const int n = ch.size(), me = ch.rank();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    const int sb = (me - step + n) % n, rb = (me - step - 1 + n) % n;
    if (int rc = ch.sendrecv(right, all + off[sb], off[sb + 1] - off[sb], left, all + off[rb],
                             off[rb + 1] - off[rb])) {
      return rc;
    }
  }
  return MPI_SUCCESS;
}

int allgather_recursive_doubling(CollChannel& ch, char* all, const std::vector<std::size_t>& off) {
  const int n = ch.size(), me = ch.rank();
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = me ^ mask;
    const int mine = me / mask * mask, theirs = peer / mask * mask;
    if (int rc = ch.sendrecv(peer, all + off[mine], off[mine + mask] - off[mine], peer,
                             all + off[theirs], off[theirs + mask] - off[theirs])) {
      return rc;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace

int allgather_bytes(CollChannel& ch, char* all, const std::vector<std::size_t>& offsets,
                    AllgatherAlgo algo) {
  if (ch.size() == 1) return MPI_SUCCESS;
  if (algo == AllgatherAlgo::recursive_doubling && floor_pow2(ch.size()) == ch.size()) {
    return allgather_recursive_doubling(ch, all, offsets);
  }
  return allgather_ring(ch, all, offsets);
}

}  // namespace mpi
