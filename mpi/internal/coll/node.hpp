#pragma once
// Collectives through shared memory on a node: blocking MPI_Barrier,
// MPI_Bcast, MPI_Reduce, MPI_Allreduce and the regular (non-v) MPI_Gather
// and MPI_Allgather of any size (in slot-sized chunks), the regular
// MPI_Alltoall of any size (in rounds of a slot's n-th of every block),
// MPI_Alltoallv/w (node_alltoallv, where ranks write into each other's
// memory), and the regular MPI_Scatter whose slot data (all blocks) fits in
// kNodeSlotBytes, on an
// intra-communicator whose ranks all map each other's memory (the core's
// alloc_registered + map_remote: one host, checksums off), in polling mode
// (interrupt mode keeps point-to-point: see set_up in node.cc).
//
// Each rank owns a segment of kNodeFlags flag lines, kNodeSlots data slots
// and a `done` word, mapped by every other rank. Collective number g on the
// communicator (every rank counts the same) writes its data and then flag
// line g % kNodeFlags (`gen = g`); readers wait for that flag, read, and
// set their `done = g`. Data of up to 48 bytes sits in the flag's own line,
// so a small collective moves one line per reader; larger data goes in
// slot g % kNodeSlots. A line or slot is written again only once every
// rank's done passed its previous use (g - kNodeFlags for a line, g -
// kNodeSlots for a slot; looked up only when the last look does not tell),
// so a slow reader never sees its data overwritten, and a rank may run
// that many collectives ahead: 64 small ones, 8 large ones. Small ones
// need the depth when ranks outnumber cores: a rank that must wait yields
// its core, and that switch is paid once per window (4 ranks on 2 cores,
// 8 B Bcast: 0.49 us per call with a window of 8, 0.12-0.15 us with 64).
// Reductions
// are a left fold in rank order on every rank: an Allreduce is
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

// 64 KiB: from 16 to 64 KiB the segment beats the point-to-point
// algorithms (2 ranks, MPI_Bcast 64 KiB 2.3-2.9 -> 1.1 us; 4 ranks on 2
// cores, MPI_Reduce 64 KiB 242-256 -> 16 us, MPI_Allgather 28 -> 13-14),
// Allreduce included (kNodeAllreduceFoldBytes).
inline constexpr std::size_t kNodeSlotBytes = 64 * 1024;
// MPI_Allreduce: up to kNodeAllreduceFoldBytes every rank folds every
// slot (one collective); above, each folds 1/n of the vector and the parts
// are then gathered (two collectives, but each rank reads the vector twice
// rather than n times). Measured with each forced, ranks pinned: folding
// wins to 4 KiB (4 ranks, 1 KiB: 4.2-4.6 against 6.2-6.4 us), ties at
// 8 KiB up to 4 ranks, and loses from 16 KiB (8 ranks: 46 against 28-29).
// The split form beats point-to-point Rabenseifner up to the slot size
// (8 ranks, 64 KiB: 53-54 against 199 us; 2 ranks: 7.6-9.4 against 12.6).
inline constexpr std::size_t kNodeAllreduceFoldBytes = 4 * 1024;
// Slots per rank: a rank may run this many collectives ahead of the
// slowest reader (a Bcast root, a Reduce sender) before it waits.
inline constexpr std::size_t kNodeSlots = 8;
// Flag lines per rank: how far ahead a rank may run on small collectives.
inline constexpr std::size_t kNodeFlags = 64;

// True when a blocking collective of `bytes` packed bytes on `comm` runs
// through the node segment. The first call on a communicator that could
// (every rank makes it, in the same collective: the choice depends only on
// what every rank knows alike) sets the segment up, collectively; a
// communicator that cannot map it is marked and never tries again.
// algorithm_forced: the collective's LAPIS_COLL_<NAME> forces a
// point-to-point algorithm (select.hpp: coll_forced), which then runs.
bool node_collective(Comm& comm, std::size_t bytes, bool algorithm_forced = false);

// Bcast, Reduce and Allreduce larger than a slot go through the segment in
// slot-sized chunks (whole instances for the reductions), one segment
// collective each: a writer runs up to kNodeSlots chunks ahead of its
// slowest reader, so the chunks pipeline. What one chunk holds of a
// collective of `bytes` in indivisible units of `unit` bytes (1 for a
// Bcast, the type's size for a reduction): the bytes themselves up to a
// slot, else the most whole units a slot holds; 0 when a unit is larger
// than a slot (then not through the segment). node_collective() is asked
// about that chunk.
std::size_t node_chunk_bytes(std::size_t bytes, std::size_t unit);

int node_barrier(Comm& comm);
// data: bytes packed; the root's input, every other rank's output.
int node_bcast(Comm& comm, void* data, std::size_t bytes, int root);
// in: this rank's packed input (each chunk copied to its slot first, so
// `out` may be the same buffer); out: the result, packed (root only for
// the reduce).
int node_reduce(Comm& comm, const Reduction& r, const void* in, void* out, std::int64_t count,
                int root);
int node_allreduce(Comm& comm, const Reduction& r, const void* in, void* out, std::int64_t count);

// Blocks of `bytes` packed bytes, every rank's of the same size (the
// regular forms: MPI requires matching type signatures).
// Gather: every rank's `mine`, in rank order, into `all` (n blocks) at the
// root; root < 0: at every rank (allgather). `mine` may lie inside `all`.
// Blocks larger than a slot go in slot-sized chunks. `have`: the bytes this
// rank's own arguments make, when they differ from `bytes` (an erroneous
// program; `mine` is then padded or cut to `bytes`): announced in the
// segment, so the readers report the mismatch rather than take the block.
int node_gather(Comm& comm, const void* mine, std::size_t bytes, void* all, int root,
                std::size_t have = SIZE_MAX);
// Scatter: block r of the root's `all` (n blocks) into rank r's `mine`
// (the root copies its own block itself).
int node_scatter(Comm& comm, const void* all, std::size_t bytes, void* mine, int root);
// All-to-all: block r of every rank q's `out` into block q of rank r's `in`
// (a rank's own block copied straight across). When the n - 1 others'
// blocks exceed a slot, in rounds of node_alltoall_chunk() bytes of every
// block (2 ranks, 1 MiB per peer: 105-116 us, against 121-139 by
// point-to-point with single-copy CMA, before the own block skipped the slot).
int node_alltoall(Comm& comm, const void* out, std::size_t bytes, void* in);
// The bytes of each block one round moves: all of them when the n - 1
// blocks for the others fit a slot, else a slot's (n - 1)-th in whole cache
// lines (0: too many ranks, not through the segment).
std::size_t node_alltoall_chunk(std::size_t bytes, std::size_t ranks);

// One rank's piece of an all-to-all for rank r (NodeSend) or from it (NodeRecv), packed.
struct NodeSend {
  const std::byte* at;
  std::size_t bytes;
};
struct NodeRecv {
  std::byte* at;
  std::size_t bytes;  // room
};
// Whether node_alltoallv runs on comm: it has a segment (node_collective)
// and every rank writes into every other's memory (Context::write_near),
// which all ranks know alike.
bool node_alltoallv_fits(Comm& comm, bool forced);
// All-to-all of pieces of any size (MPI_Alltoallv/w, and MPI_Alltoall whose
// blocks exceed a slot), out[r] to rank r, in[r] from it; out and in
// n pieces each, not overlapping. A rank whose pieces for the others fit
// its slot copies them there and its receivers copy them out (one segment
// collective); otherwise it writes each straight into its receiver's
// buffer, whose address that receiver published in its slot, and a second
// collective says every write has landed: one copy per byte, and two
// waits per call whatever the size, where the rounds of node_alltoall
// wait for every rank once per slot's worth (4 ranks on 2 cores yield
// their core at each).
int node_alltoallv(Comm& comm, const NodeSend* out, const NodeRecv* in);

// Before the core stops (the last of MPI_Finalize and MPI_Session_finalize):
// releases every segment (a freed communicator's segment is kept until
// then, see node.cc) once every task is there. Collective over the job.
void node_collectives_shutdown();
// The library starts (again, after a shutdown: sessions): segments may be
// set up.
void node_collectives_start();

}  // namespace mpi
