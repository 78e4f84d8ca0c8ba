#pragma once
// Neighbourhood collectives (MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall
// (v,w) and their nonblocking forms) on validated arguments: every receive
// from a source and every send to a destination posted at once, then all
// completed. MPI_PROC_NULL peers are skipped (their receive blocks are left
// untouched). Messages between two ranks match in posting order, which is
// what pairs a Cartesian rank's +1 block with its neighbour's -1 receive
// (see Neighborhood::send_order).

#include <cstdint>
#include <vector>

#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/datatype.hpp"

namespace mpi {

// One block of a neighbourhood collective: `count` instances of `type` at
// `buf`, to or from communicator rank `peer`.
struct NeighborPart {
  int peer;
  char* buf;
  std::int64_t count;
  const Datatype* type;
};

// recvs and sends in posting order.
int neighbor_run(CollChannel& ch, const std::vector<NeighborPart>& sends,
                 const std::vector<NeighborPart>& recvs);

}  // namespace mpi
