// Reduce to a root: a binomial tree (log2 n steps), or linear (the root
// receives and combines every contribution in rank order). A
// non-commutative op runs its tree rooted at rank 0, so that every subtree
// covers consecutive ranks, and rank 0 then passes the result to the root.
#include <cstring>
#include <utility>

#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"

namespace mpi {
namespace {

// Combines the partial result `theirs` of the ranks just above those `acc`
// covers: acc = acc op theirs, keeping rank order (the result may end in
// the other buffer; the two are swapped).
void combine_above(const Reduction& r, Staging& acc, Staging& theirs, std::int64_t count) {
  reduce_packed(r, acc.data.get(), theirs.data.get(), count);
  std::swap(acc, theirs);
}

int reduce_binomial(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count,
                    int root) {
  const int n = ch.size();
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  const int tree_root = r.op->commutative ? root : 0;
  const int vr = (ch.rank() - tree_root + n) % n;
  Staging tmp;
  tmp.allocate(bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      if (int rc = ch.send((vr - mask + tree_root) % n, acc.data.get(), bytes)) return rc;
      break;
    }
    if (vr + mask < n) {
      if (int rc = ch.recv((vr + mask + tree_root) % n, tmp.data.get(), bytes)) return rc;
      combine_above(r, acc, tmp, count);
    }
  }
  if (tree_root == root) return MPI_SUCCESS;
  if (ch.rank() == tree_root) return ch.send(root, acc.data.get(), bytes);
  if (ch.rank() == root) return ch.recv(tree_root, acc.data.get(), bytes);
  return MPI_SUCCESS;
}

int reduce_linear(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count,
                  int root) {
  const int n = ch.size();
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  if (ch.rank() != root) return ch.send(root, acc.data.get(), bytes);
  // From the highest rank down: result = x_r op result.
  Staging mine = std::move(acc), result, in;
  result.allocate(bytes);
  in.allocate(bytes);
  for (int q = n - 1; q >= 0; --q) {
    char* target = q == n - 1 ? result.data.get() : in.data.get();
    if (q == root) {
      std::memcpy(target, mine.data.get(), bytes);
    } else if (int rc = ch.recv(q, target, bytes)) {
      return rc;
    }
    if (q != n - 1) reduce_packed(r, in.data.get(), result.data.get(), count);
  }
  acc = std::move(result);
  return MPI_SUCCESS;
}

}  // namespace

int reduce_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count, int root,
                 ReduceAlgo algo) {
  if (ch.size() == 1) return MPI_SUCCESS;
  if (algo == ReduceAlgo::linear) return reduce_linear(ch, r, acc, count, root);
  return reduce_binomial(ch, r, acc, count, root);
}

}  // namespace mpi
