#include "mpi/internal/topology.hpp"

#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

int Topology::cart_size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> Topology::coords_of(int rank) const {
  std::vector<int> coords(dims.size());
  for (int d = ndims() - 1; d >= 0; --d) {
    coords[d] = rank % dims[d];
    rank /= dims[d];
  }
  return coords;
}

int Topology::rank_of(const int* coords) const {
  int rank = 0;
  for (int d = 0; d < ndims(); ++d) {
    int c = coords[d];
    if (c < 0 || c >= dims[d]) {
      if (!periods[d]) return -1;
      c %= dims[d];
      if (c < 0) c += dims[d];
    }
    rank = rank * dims[d] + c;
  }
  return rank;
}

void Topology::shift(int rank, int dim, int disp, int& source, int& dest) const {
  std::vector<int> coords = coords_of(rank);
  const int here = coords[dim];
  // Wrap in 64 bits: disp may be near INT_MAX.
  auto neighbour = [&](long long to) {
    if (!periods[dim] && (to < 0 || to >= dims[dim])) return MPI_PROC_NULL;
    long long wrapped = to % dims[dim];
    if (wrapped < 0) wrapped += dims[dim];
    coords[dim] = static_cast<int>(wrapped);
    return rank_of(coords.data());
  };
  dest = neighbour(static_cast<long long>(here) + disp);
  source = neighbour(static_cast<long long>(here) - disp);
}

std::vector<int> Topology::graph_neighbors(int rank) const {
  const int begin = rank == 0 ? 0 : index[rank - 1];
  return {edges.begin() + begin, edges.begin() + index[rank]};
}

Neighborhood neighborhood(const Topology& topo, int rank) {
  Neighborhood n;
  switch (topo.kind) {
    case TopoKind::cart:
      for (int d = 0; d < topo.ndims(); ++d) {
        int minus, plus;
        topo.shift(rank, d, 1, minus, plus);
        n.sources.push_back(minus);
        n.sources.push_back(plus);
        n.send_order.push_back(2 * d + 1);
        n.send_order.push_back(2 * d);
      }
      n.destinations = n.sources;
      return n;
    case TopoKind::graph:
      n.sources = topo.graph_neighbors(rank);
      n.destinations = n.sources;
      break;
    case TopoKind::dist_graph:
      n.sources = topo.sources;
      n.destinations = topo.destinations;
      break;
  }
  for (int i = 0; i < static_cast<int>(n.destinations.size()); ++i) n.send_order.push_back(i);
  return n;
}

int check_topology(const Comm& comm, const Topology*& out) {
  if (!comm.topo) return fail(MPI_ERR_TOPOLOGY, "comm has no topology");
  out = comm.topo.get();
  return MPI_SUCCESS;
}

int check_topology(const Comm& comm, TopoKind kind, const Topology*& out) {
  static constexpr const char* kNames[] = {"", "graph", "Cartesian", "distributed graph"};
  if (!comm.topo || comm.topo->kind != kind) {
    return fail(MPI_ERR_TOPOLOGY, "comm has no {} topology", kNames[static_cast<int>(kind)]);
  }
  out = comm.topo.get();
  return MPI_SUCCESS;
}

int create_topo_comm(const Comm& parent, bool member, std::vector<int> members,
                     std::shared_ptr<const Topology> topo, MPI_Comm* out) {
  std::vector<CreateEntry> all;
  int slot = -1;
  if (int rc = exchange_and_agree(parent, member ? 0 : MPI_UNDEFINED, parent.rank, all, slot)) {
    return rc;
  }
  if (!member) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  if (int rc = register_comm(parent, std::move(members), slot, out)) return rc;
  (*state().comms.find(*out))->topo = std::move(topo);
  return MPI_SUCCESS;
}

}  // namespace mpi
