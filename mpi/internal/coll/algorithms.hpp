#pragma once
// The collective algorithms, on packed bytes (the API layer packs and
// unpacks user datatypes around them). Each returns an MPI error class
// (detail recorded) or MPI_SUCCESS, and is called by every rank of the
// channel's communicator with matching arguments.
//
// Reductions keep rank order: whenever two partial results meet, the one
// covering lower ranks is the `in` operand, so non-commutative ops are
// right and every rank computes a value from the same operands in the same
// order (an Allreduce is bit-identical everywhere).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi/internal/buffers.hpp"
#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/coll/ops.hpp"
#include "mpi/internal/coll/select.hpp"

namespace mpi {

// Every rank reaches it before any leaves.
int barrier_run(CollChannel& ch);

// `bytes` at `data` travel from root to every rank.
int bcast_bytes(CollChannel& ch, char* data, std::size_t bytes, int root, BcastAlgo algo);

// Block r of `all` is [offsets[r], offsets[r + 1]); each rank holds its own
// block and ends with all of them.
int allgather_bytes(CollChannel& ch, char* all, const std::vector<std::size_t>& offsets,
                    AllgatherAlgo algo);

// `acc` holds this rank's `count` packed instances; at root it ends with the
// reduction over all ranks (elsewhere its contents are scratch). May swap
// acc's storage with scratch of its own.
int reduce_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count, int root,
                 ReduceAlgo algo);

// Binomial reduce from `src`, read in place, into root's `dst` (may be src;
// ignored elsewhere): for contiguous user buffers, no packing.
int reduce_into(CollChannel& ch, const Reduction& r, const char* src, char* dst, std::int64_t count, int root);

// Every rank ending with the result: from `src` (read in place) into `dst`
// (may be src).
int allreduce_into(CollChannel& ch, const Reduction& r, const char* src, char* dst, std::int64_t count,
                   AllreduceAlgo algo);

// Same, every rank ending with the result.
int allreduce_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count,
                    AllreduceAlgo algo);

// Prefix reductions: `acc` holds this rank's contribution and ends with the
// reduction over ranks 0..rank (inclusive) or 0..rank-1 (exclusive; rank 0's
// result is undefined and `acc` is then left as scratch).
int scan_bytes(CollChannel& ch, const Reduction& r, Staging& acc, std::int64_t count,
               bool exclusive);

}  // namespace mpi
