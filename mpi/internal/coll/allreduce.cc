// Allreduce: recursive doubling (log2 n exchanges of the whole vector; any
// op), Rabenseifner's reduce-scatter by recursive halving + allgather by
// recursive doubling (each rank reduces 1/n of the vector; commutative ops,
// count >= the power of two below n), or reduce + broadcast.
//
// Each works from the input `src` into `dst` (the same buffer in place),
// which may be the user's own buffers for a contiguous type: the input is
// read where it lies and the result written where it goes, rather than
// packed into scratch and unpacked again (two whole-vector copies). Only
// what the first reduction would overwrite is copied.
//
// With n not a power of two, the first 2 * rem ranks pair up first (even
// rank hands its vector to the odd one above it), leaving a power of two of
// participants that each cover consecutive ranks; the even ones get the
// result back at the end.
#include <cstring>
#include <utility>

#include "mpi.h"
#include "mpi/internal/coll/algorithms.hpp"

namespace mpi {
namespace {

struct Fold {
  int pof2 = 1;
  int rem = 0;
  int newrank = -1;  // -1: sits out the middle phase

  // Communicator rank of participant `nr`.
  int real(int nr) const { return nr < rem ? nr * 2 + 1 : nr + rem; }
};

// Pairs up the first 2 * rem ranks; the odd rank keeps x_{2k} op x_{2k+1}
// in acc (which must hold its input already).
int fold_in(CollChannel& ch, const Reduction& r, char* acc, char* tmp, std::int64_t count, Fold& f) {
  const int n = ch.size(), me = ch.rank();
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  f.pof2 = floor_pow2(n);
  f.rem = n - f.pof2;
  if (me < 2 * f.rem) {
    if (me % 2 == 0) {
      f.newrank = -1;
      return ch.send(me + 1, acc, bytes);
    }
    if (int rc = ch.recv(me - 1, tmp, bytes)) return rc;
    reduce_packed(r, tmp, acc, count);
    f.newrank = me / 2;
  } else {
    f.newrank = me - f.rem;
  }
  return MPI_SUCCESS;
}

int fold_out(CollChannel& ch, char* acc, std::size_t bytes, const Fold& f) {
  const int me = ch.rank();
  if (me >= 2 * f.rem) return MPI_SUCCESS;
  if (me % 2 == 1) return ch.send(me - 1, acc, bytes);
  return ch.recv(me + 1, acc, bytes);
}

void copy_in(const char* src, char* dst, std::size_t bytes) {
  if (src != dst && bytes != 0) std::memcpy(dst, src, bytes);
}

int allreduce_recursive_doubling(CollChannel& ch, const Reduction& r, const char* src, char* dst,
                                 std::int64_t count) {
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  Staging scratch;
  scratch.allocate(bytes);
  char* acc = dst;
  char* tmp = scratch.data.get();
  copy_in(src, dst, bytes);
  Fold f;
  if (int rc = fold_in(ch, r, acc, tmp, count, f)) return rc;
  if (f.newrank >= 0) {
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      const int newpeer = f.newrank ^ mask;
      const int peer = f.real(newpeer);
      if (int rc = ch.sendrecv(peer, acc, bytes, peer, tmp, bytes)) return rc;
      // Lower ranks' part first, at every rank (so that every rank's result is
      // bit-identical): the sum may end in tmp, copied at the end.
      if (newpeer < f.newrank) {
        reduce_packed(r, tmp, acc, count);
      } else {
        reduce_packed(r, acc, tmp, count);
        std::swap(acc, tmp);
      }
    }
  }
  copy_in(acc, dst, bytes);
  return fold_out(ch, dst, bytes, f);
}

int allreduce_rabenseifner(CollChannel& ch, const Reduction& r, const char* src, char* dst,
                           std::int64_t count) {
  const std::int64_t size = r.type->size();
  const std::size_t bytes = static_cast<std::size_t>(count * size);
  Staging scratch;
  scratch.allocate(bytes);
  char* acc = dst;
  char* tmp = scratch.data.get();
  Fold f;
  f.pof2 = floor_pow2(ch.size());
  // Folding sends and reduces the whole vector: it starts from a copy. Otherwise
  // the first halving step sends its half straight from src.
  if (ch.size() != f.pof2) copy_in(src, dst, bytes);
  const char* first = ch.size() != f.pof2 ? acc : src;
  if (int rc = fold_in(ch, r, acc, tmp, count, f)) return rc;
  if (f.newrank >= 0) {
    const int pof2 = f.pof2;
    // Instance counts and first instances of the pof2 segments.
    std::vector<std::int64_t> cnt(pof2), disp(pof2 + 1, 0);
    for (int i = 0; i < pof2; ++i) {
      cnt[i] = count / pof2 + (i < count % pof2 ? 1 : 0);
      disp[i + 1] = disp[i] + cnt[i];
    }
    auto at = [&](char* base, int seg) { return base + disp[seg] * size; };
    auto span = [&](int from, int to) { return disp[to] - disp[from]; };
    // Reduce-scatter by recursive halving: keep the half of the current
    // range on this side of the peer, send the other half.
    int send_idx = 0, recv_idx = 0, last_idx = pof2;
    int mask = 1;
    for (; mask < pof2; mask <<= 1) {
      const int newpeer = f.newrank ^ mask;
      const int peer = f.real(newpeer);
      std::int64_t send_cnt, recv_cnt;
      if (f.newrank < newpeer) {
        send_idx = recv_idx + pof2 / (mask * 2);
        send_cnt = span(send_idx, last_idx);
        recv_cnt = span(recv_idx, send_idx);
      } else {
        recv_idx = send_idx + pof2 / (mask * 2);
        send_cnt = span(send_idx, recv_idx);
        recv_cnt = span(recv_idx, last_idx);
      }
      const char* from = mask == 1 ? first : acc;
      if (int rc = ch.sendrecv(peer, from + disp[send_idx] * size, send_cnt * size, peer, at(tmp, recv_idx),
                               recv_cnt * size)) {
        return rc;
      }
      // The half kept: its input, then (commutative ops only) the received part folded in.
      if (mask == 1) copy_in(first + disp[recv_idx] * size, at(acc, recv_idx), static_cast<std::size_t>(recv_cnt * size));
      reduce_packed(r, at(tmp, recv_idx), at(acc, recv_idx), recv_cnt);
      send_idx = recv_idx;
      if (mask * 2 < pof2) last_idx = recv_idx + pof2 / (mask * 2);
    }
    // Allgather by recursive doubling, retracing the halving steps.
    for (mask >>= 1; mask > 0; mask >>= 1) {
      const int newpeer = f.newrank ^ mask;
      const int peer = f.real(newpeer);
      std::int64_t send_cnt, recv_cnt;
      if (f.newrank < newpeer) {
        if (mask != pof2 / 2) last_idx += pof2 / (mask * 2);
        recv_idx = send_idx + pof2 / (mask * 2);
        send_cnt = span(send_idx, recv_idx);
        recv_cnt = span(recv_idx, last_idx);
      } else {
        recv_idx = send_idx - pof2 / (mask * 2);
        send_cnt = span(send_idx, last_idx);
        recv_cnt = span(recv_idx, send_idx);
      }
      if (int rc = ch.sendrecv(peer, at(acc, send_idx), send_cnt * size, peer, at(acc, recv_idx),
                               recv_cnt * size)) {
        return rc;
      }
      if (f.newrank > newpeer) send_idx = recv_idx;
    }
  }
  return fold_out(ch, acc, bytes, f);
}

}  // namespace

int allreduce_into(CollChannel& ch, const Reduction& r, const char* src, char* dst, std::int64_t count,
                   AllreduceAlgo algo) {
  const std::size_t bytes = static_cast<std::size_t>(count * r.type->size());
  if (ch.size() == 1) {
    copy_in(src, dst, bytes);
    return MPI_SUCCESS;
  }
  switch (algo) {
    case AllreduceAlgo::rabenseifner:
      return allreduce_rabenseifner(ch, r, src, dst, count);
    case AllreduceAlgo::reduce_bcast: {
      if (int rc = reduce_into(ch, r, src, dst, count, 0)) return rc;
      return bcast_bytes(ch, dst, bytes, 0, BcastAlgo::binomial);
    }
    default:
      return allreduce_recursive_doubling(ch, r, src, dst, count);
  }
}

int allreduce_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count,
                    AllreduceAlgo algo) {
  return allreduce_into(ch, r, acc.data.get(), acc.data.get(), count, algo);
}

}  // namespace mpi
