#pragma once
// The regular (non-v) gather, scatter, allgather and all-to-all through the
// node segment (node.hpp): the user's layouts packed into blocks of equal
// size and back, once node_exchange_fits() said yes.

#include <cstddef>
#include <vector>

#include "mpi/internal/coll/exchange.hpp"
#include "mpi/internal/comm.hpp"

namespace mpi {

enum class NodeExchange { gather, scatter, allgather, alltoall };

// Whether a blocking collective whose blocks are `block` bytes (0: not a
// regular form here) runs through the segment: what a slot then holds (all
// n blocks for a scatter root and all-to-all) fits, or a gather's block of
// any size in chunks, and node_collective() agrees. `forced`: the collective's LAPIS_COLL_<NAME>.
bool node_exchange_fits(Comm& comm, NodeExchange kind, std::size_t block, bool forced = false);

// `block`: the bytes of one rank's block, as every rank computes it alike
// (the receive side where it is significant everywhere, else this rank's).
int node_allgather_run(Comm& comm, const AllgatherArgs& a, std::size_t block);
int node_gather_run(Comm& comm, const GatherArgs& a, std::size_t block);
int node_scatter_run(Comm& comm, const ScatterArgs& a, std::size_t block);
int node_alltoall_run(Comm& comm, const std::vector<Part>& sends, const std::vector<Part>& recvs,
                      std::size_t block);
// Any all-to-all (v, w, or regular blocks larger than a slot) through
// node_alltoallv, once node_alltoallv_fits() said yes; not in place.
int node_alltoallv_run(Comm& comm, const std::vector<Part>& sends, const std::vector<Part>& recvs);

}  // namespace mpi
