#pragma once
// The regular (non-v) gather, scatter, allgather and all-to-all through the
// node segment (node.hpp): the user's layouts packed into blocks of equal
// size and back. The caller has checked node_collective() with the bytes a
// slot holds (node_slot_bytes).

#include <cstddef>
#include <vector>

#include "mpi/internal/coll/exchange.hpp"
#include "mpi/internal/comm.hpp"

namespace mpi {

enum class NodeExchange { gather, scatter, allgather, alltoall };

// What one rank's slot holds for a collective whose blocks are `block`
// bytes: one block, or all n of them (scatter's root, all-to-all).
std::size_t node_slot_bytes(NodeExchange kind, std::size_t block, int comm_size);

// `block`: the bytes of one rank's block, as every rank computes it alike
// (the receive side where it is significant everywhere, else this rank's).
int node_allgather_run(Comm& comm, const AllgatherArgs& a, std::size_t block);
int node_gather_run(Comm& comm, const GatherArgs& a, std::size_t block);
int node_scatter_run(Comm& comm, const ScatterArgs& a, std::size_t block);
int node_alltoall_run(Comm& comm, const std::vector<Part>& sends, const std::vector<Part>& recvs,
                      std::size_t block);

}  // namespace mpi
