#pragma once
// Collectives through shared memory on a node: blocking MPI_Barrier,
// MPI_Bcast, MPI_Reduce and MPI_Allreduce of up to kNodeSlotBytes on an
// intra-communicator whose ranks all map each other's memory (the core's
// alloc_registered + map_remote: one host, checksums off).
//
// Each rank owns a segment: two flag words and two data slots, mapped by
// every other rank. Collective number g on the communicator (every rank
// counts the same) writes slot g % 2, publishes `arrive = g`, waits for
// the arrivals it needs, reads, then publishes `done = g`. A rank writes a
// slot again only once every rank's done has reached g - 2, so a slow
// reader never sees its data overwritten, and a rank that is one
// collective ahead does not wait for the others to finish. Reductions run
// in rank order from the same slots on every rank: an Allreduce is
// bit-identical everywhere (and any op, commutative or not, is applied in
// rank order).
//
// Waiting spins, drives progress now and then (nonblocking collectives and
// point-to-point of this rank must keep moving) and yields: at once when
// the node has more ranks than cores, after a few microseconds otherwise.
//
// LAPIS_COLL_SHM=off forces the point-to-point algorithms (README's table),
// and so does forcing a collective's own algorithm (LAPIS_COLL_BCAST=...).
// Either must be the same on every rank.

#include <cstddef>
#include <cstdint>

#include "mpi/internal/comm.hpp"
#include "mpi/internal/coll/ops.hpp"

namespace mpi {

inline constexpr std::size_t kNodeSlotBytes = 16 * 1024;

// True when a blocking collective of `bytes` packed bytes on `comm` runs
// through the node segment. The first call on a communicator that could
// (every rank makes it, in the same collective: the choice depends only on
// what every rank knows alike) sets the segment up, collectively; a
// communicator that cannot map it is marked and never tries again.
// algorithm_forced: the collective's LAPIS_COLL_<NAME> forces a
// point-to-point algorithm (select.hpp: coll_forced), which then runs.
bool node_collective(Comm& comm, std::size_t bytes, bool algorithm_forced = false);

int node_barrier(Comm& comm);
// data: bytes packed; the root's input, every other rank's output.
int node_bcast(Comm& comm, void* data, std::size_t bytes, int root);
// acc: this rank's packed input; on return the result (root only, or every
// rank for the allreduce).
int node_reduce(Comm& comm, const Reduction& r, void* acc, std::int64_t count, int root);
int node_allreduce(Comm& comm, const Reduction& r, void* acc, std::int64_t count);

// MPI_Finalize, before the core stops: releases every segment (a freed
// communicator's segment is kept until then, see node.cc).
void node_collectives_shutdown();

}  // namespace mpi
