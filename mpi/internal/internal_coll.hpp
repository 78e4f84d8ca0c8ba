#pragma once
// The few collectives the MPI layer itself needs (communicator creation,
// MPI_Barrier), built on mpcpi point-to-point over the communicator's
// collective context. Tags at kInternalTagBase and above on that context are
// reserved for these; the collectives module uses lower tags.
//
// Not on a hot path except barrier: the gathers are linear through rank 0.

#include <cstddef>
#include <vector>

#include "mpi/internal/comm.hpp"

namespace mpi {

inline constexpr int kInternalTagBase = 0x7fff0000;
inline constexpr int kTagBarrier = kInternalTagBase + 0;      // + round (< 64)
inline constexpr int kTagAllgather = kInternalTagBase + 0x100;
inline constexpr int kTagAllgatherBcast = kInternalTagBase + 0x101;
inline constexpr int kTagBcast = kInternalTagBase + 0x102;
// Inter-communicators (intercomm.hpp): the leaders' exchange.
inline constexpr int kTagBridge = kInternalTagBase + 0x200;

// Dissemination barrier: ceil(log2 n) rounds of zero-byte messages.
int internal_barrier(const Comm& comm);

// Every rank contributes `bytes` bytes; out receives size() * bytes, rank r's
// at offset r * bytes. Returns an MPI class with detail on failure.
int internal_allgather(const Comm& comm, const void* mine, std::size_t bytes,
                       std::vector<char>& out);

// `bytes` at `data` go from comm rank `root` to every rank (linear).
int internal_bcast(const Comm& comm, int root, void* data, std::size_t bytes);

}  // namespace mpi
