// Inclusive and exclusive prefix reductions by recursive doubling: at step
// `mask` each rank swaps the reduction of its current group with the
// partner group; a lower group is folded into the prefix, and into the
// partial sum on the correct side, so non-commutative ops keep rank order.
#include <cstring>
#include <utility>

#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"

namespace mpi {

int scan_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count,
               bool exclusive) {
  const int n = ch.size(), me = ch.rank();
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  if (n == 1) return MPI_SUCCESS;
  // partial: reduction over this rank's current group; acc: the prefix.
  Staging partial, tmp;
  partial.allocate(bytes);
  tmp.allocate(bytes);
  if (bytes > 0) std::memcpy(partial.data.get(), acc.data.get(), bytes);
  bool have_prefix = !exclusive;  // exclusive: nothing below yet
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = me ^ mask;
    if (peer >= n) continue;
    if (int rc = ch.sendrecv(peer, partial.data.get(), bytes, peer, tmp.data.get(), bytes)) {
      return rc;
    }
    if (peer < me) {
      // tmp covers ranks below everything this rank has so far.
      if (have_prefix) {
        reduce_packed(r, tmp.data.get(), acc.data.get(), count);
      } else if (bytes > 0) {
        std::memcpy(acc.data.get(), tmp.data.get(), bytes);
      }
      have_prefix = true;
      reduce_packed(r, tmp.data.get(), partial.data.get(), count);
    } else {
      reduce_packed(r, partial.data.get(), tmp.data.get(), count);
      std::swap(partial, tmp);
    }
  }
  return MPI_SUCCESS;
}

}  // namespace mpi
