#pragma once
// Which algorithm a collective runs: chosen by message and communicator
// size, or forced with a LAPIS_COLL_<NAME> variable (read once per process;
// "auto" or unset = by size). Defaults and names: mpi/README.md.

#include <cstddef>

#include "mpi/internal/coll/ops.hpp"

namespace mpi {

enum class BcastAlgo { binomial, scatter_allgather };
enum class ReduceAlgo { binomial, linear };
enum class AllreduceAlgo { recursive_doubling, rabenseifner, reduce_bcast };
enum class AllgatherAlgo { recursive_doubling, ring };
enum class AlltoallAlgo { linear, pairwise };

// Switch points of the automatic choice (bytes of packed data).
// Bcast: scatter + ring allgather while the whole message would go by
// rendezvous (the MPI eager limit, 128 KiB) and its n pieces would not.
// Measured on 3, 4 and 8 ranks of a 2-core host: pieces of 128 KiB and
// more, each a rendezvous in a ring of oversubscribed ranks, lose to the
// binomial tree (8 ranks, 1 MiB: 968-1064 against 420-431 us; 4 ranks,
// 512 KiB: 178-227 against 111-117), smaller ones win (4 ranks, 192 KiB:
// 29 against 72-112 us).
inline constexpr std::size_t kBcastScatterMin = 128 * 1024;       // whole message
inline constexpr std::size_t kBcastScatterPieceMax = 128 * 1024;  // bytes / ranks
inline constexpr std::size_t kAllreduceRabenseifnerMin = 16 * 1024;
inline constexpr std::size_t kAllgatherRingMin = 64 * 1024;     // whole result
// All-to-all: pairwise from 32 KiB per peer (n - 1 rounds, one partner at a
// time: bounded memory and no contention), but never on a host with more
// tasks than cores. There a pairwise round waits for its one partner to be
// scheduled, while linear's posted exchanges finish with whichever peer runs:
// 2 cores, 2026-11-28, us per call, forced, 3 runs each: 4 ranks 32 KiB
// 16-17 (linear) against 20-23 (pairwise), 256 KiB 190-194 / 225-261, 2 MiB
// 2215-2314 / 2295-3231; 8 ranks 256 KiB 1179-1268 / 1705-1989, 2 MiB
// 10420-10674 / 12229-12453. (NPB IS, an Alltoallv of 2 MiB per peer at 4
// ranks, moved within its run-to-run spread.)
inline constexpr std::size_t kAlltoallPairwiseMin = 32 * 1024;  // per peer

// Each returns MPI_SUCCESS or MPI_ERR_ARG naming the variable when it holds
// an unknown name. Algorithms that cannot run here (Rabenseifner for a
// non-commutative op) fall back to one that can.
int choose_bcast(std::size_t bytes, int comm_size, BcastAlgo& out);
int choose_reduce(ReduceAlgo& out);
int choose_allreduce(std::size_t bytes, std::int64_t count, int comm_size, const Op& op,
                     AllreduceAlgo& out);
int choose_allgather(std::size_t total_bytes, int comm_size, AllgatherAlgo& out);
int choose_alltoall(std::size_t bytes_per_peer, AlltoallAlgo& out);

// More tasks of the job on this host than cores online (every task of a host gets the same
// answer; tasks of other hosts may not, which the collectives above tolerate).
bool host_oversubscribed();

// Whether `variable` (LAPIS_COLL_<NAME>) forces an algorithm (set, not
// "auto"): the node collectives (node.hpp) then leave that collective to it.
bool coll_forced(const char* variable);

// LAPIS_COLL_SHM: `enabled` unless it is "off"; MPI_ERR_ARG naming the
// variable for any value but auto/off (checked by MPI_Init, so a misspelt
// value stops the job rather than quietly meaning auto).
int read_coll_shm(bool& enabled);

// Largest power of two <= n (n >= 1).
int floor_pow2(int n);

}  // namespace mpi
