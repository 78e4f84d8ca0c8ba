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

// Binomial tree from the input `src` (read where it lies: a leaf sends it
// as is); partial results alternate between two buffers, the root's output
// `dst` (when it is not the input) and scratch, arranged so that the root's
// last one is dst (in place, the result is copied once). Combining keeps rank order:
// the partial result of the ranks just above is the `inout` operand, and
// the new partial result lands in it.
int reduce_binomial(CollChannel& ch, const Reduction& r, const char* src, char* dst, std::int64_t count,
                    int root) {
  const int n = ch.size();
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  const int tree_root = r.op->commutative ? root : 0;
  const int vr = (ch.rank() - tree_root + n) % n;
  const bool am_root = ch.rank() == root;
  // The receives this rank makes, so that the root's last one lands in dst.
  int receives = 0;
  for (int mask = 1; mask < n && !(vr & mask); mask <<= 1) receives += vr + mask < n;
  const int dst_slot = (receives - 1) & 1;
  Staging first, second;
  char* spare[2] = {nullptr, nullptr};
  auto buffer = [&](int k) {
    if (spare[k] == nullptr) {
      Staging& s = k == 0 ? first : second;
      if (k == dst_slot && am_root && dst != src) {
        spare[k] = dst;
      } else {
        s.allocate(bytes);
        spare[k] = s.data.get();
      }
    }
    return spare[k];
  };
  const char* mine = src;
  int next = 0;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      if (int rc = ch.send((vr - mask + tree_root) % n, mine, bytes)) return rc;
      break;
    }
    if (vr + mask < n) {
      char* theirs = buffer(next);
      if (int rc = ch.recv((vr + mask + tree_root) % n, theirs, bytes)) return rc;
      reduce_packed(r, mine, theirs, count);
      mine = theirs;
      next ^= 1;
    }
  }
  if (tree_root != root) {
    if (ch.rank() == tree_root) return ch.send(root, mine, bytes);
    if (am_root) return ch.recv(tree_root, dst, bytes);
  }
  if (am_root && mine != dst) std::memcpy(dst, mine, bytes);
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

int reduce_into(CollChannel& ch, const Reduction& r, const char* src, char* dst, std::int64_t count, int root) {
  if (ch.size() == 1) {
    if (src != dst) std::memcpy(dst, src, static_cast<std::size_t>(count * r.type->size()));
    return MPI_SUCCESS;
  }
  return reduce_binomial(ch, r, src, dst, count, root);
}

int reduce_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count, int root,
                 ReduceAlgo algo) {
  if (ch.size() == 1) return MPI_SUCCESS;
  if (algo == ReduceAlgo::linear) return reduce_linear(ch, r, acc, count, root);
  if (ch.rank() != root) return reduce_binomial(ch, r, acc.data.get(), nullptr, count, root);
  Staging out;  // the root's result, then acc's
  out.allocate(static_cast<std::size_t>(count * r.type->size()));
  const int rc = reduce_binomial(ch, r, acc.data.get(), out.data.get(), count, root);
  std::swap(acc, out);
  return rc;
}

}  // namespace mpi
