#pragma once
// Virtual topologies attached to a communicator (MPI 3.1 chapter 7):
// Cartesian grids, graphs (every rank knows the whole graph) and distributed
// graphs (every rank knows only its own edges). A Topology is immutable once
// made and shared by MPI_Comm_dup's copies (Comm::topo).

#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/comm.hpp"

namespace mpi {

enum class TopoKind { cart = MPI_CART, graph = MPI_GRAPH, dist_graph = MPI_DIST_GRAPH };

struct Topology {
  TopoKind kind = TopoKind::cart;
  // Cartesian: extent and periodicity (0/1) of each dimension, row-major
  // ranks (the last dimension varies fastest).
  std::vector<int> dims;
  std::vector<int> periods;
  // Graph: MPI_Graph_create's index and edges arrays, as given.
  std::vector<int> index;
  std::vector<int> edges;
  // Distributed graph: this rank's in- and out-edges in the order given
  // (weights empty when unweighted).
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;

  int ndims() const { return static_cast<int>(dims.size()); }
  // Number of ranks the grid holds (1 for zero dimensions).
  int cart_size() const;
  // Coordinates of grid rank `rank` (0 <= rank < cart_size()).
  std::vector<int> coords_of(int rank) const;
  // Grid rank of `coords`, periodic dimensions wrapped; -1 when a
  // coordinate of a non-periodic dimension is outside the grid.
  int rank_of(const int* coords) const;
  // MPI_Cart_shift: source and destination of a shift by `disp` along
  // `dim` (MPI_PROC_NULL off a non-periodic edge).
  void shift(int rank, int dim, int disp, int& source, int& dest) const;
  // A graph rank's neighbours (edges[index[rank-1] .. index[rank]]).
  std::vector<int> graph_neighbors(int rank) const;
};

// Where a rank's neighbourhood collectives receive from and send to, in
// buffer-block order (MPI 3.1 section 7.6): Cartesian: for each dimension
// the -1 then the +1 neighbour (MPI_PROC_NULL off a non-periodic edge);
// graph: its neighbours; distributed graph: its sources and destinations.
struct Neighborhood {
  std::vector<int> sources;
  std::vector<int> destinations;
  // The order the sends are posted in (indices into destinations). With a
  // Cartesian topology a peer can be both the -1 and the +1 neighbour (a
  // periodic dimension of size 1 or 2); posting +1 before -1 on each
  // dimension while receives are posted -1 before +1 makes each message
  // match the receive of the opposite direction (messages between two
  // ranks match in order).
  std::vector<int> send_order;
};
Neighborhood neighborhood(const Topology& topo, int rank);

// MPI_ERR_TOPOLOGY unless the communicator has a topology (of `kind`, when
// given); names the function's need in the message.
int check_topology(const Comm& comm, const Topology*& out);
int check_topology(const Comm& comm, TopoKind kind, const Topology*& out);

// Collective over `parent`: a new communicator of `members` (world ids, in
// rank order) carrying `topo`; ranks not `member` get MPI_COMM_NULL (and
// still take part). Returns an MPI class with detail on failure.
int create_topo_comm(const Comm& parent, bool member, std::vector<int> members,
                     std::shared_ptr<const Topology> topo, MPI_Comm* out);

}  // namespace mpi
