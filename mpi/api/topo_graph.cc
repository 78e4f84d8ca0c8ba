// Graph and distributed-graph topologies: MPI_Graph_create/get/neighbors/
// neighbors_count/map, MPI_Graphdims_get, MPI_Dist_graph_create(_adjacent),
// MPI_Dist_graph_neighbors(_count). Ranks are never reordered.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/topology.hpp"

using namespace mpi;

namespace {

// index non-decreasing from 0, edges inside 0..nnodes-1.
int check_graph(int nnodes, const int* index, const int* edges, int size) {
  if (nnodes < 0) return fail(MPI_ERR_ARG, "nnodes={} is negative", nnodes);
  if (nnodes > size) {
    return fail(MPI_ERR_ARG, "nnodes={} is more than the communicator's {} ranks", nnodes, size);
  }
  if (nnodes == 0) return MPI_SUCCESS;
  if (int rc = check_not_null(index, "index")) return rc;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < (i == 0 ? 0 : index[i - 1])) {
      return fail(MPI_ERR_ARG, "index[{}]={} is less than the entry before it (or negative)", i,
                  index[i]);
    }
  }
  if (index[nnodes - 1] > 0) {
    if (int rc = check_not_null(edges, "edges")) return rc;
  }
  for (int e = 0; e < index[nnodes - 1]; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      return fail(MPI_ERR_ARG, "edges[{}]={} is not a node (0..{})", e, edges[e], nnodes - 1);
    }
  }
  return MPI_SUCCESS;
}

// Ranks (MPI_PROC_NULL not allowed) and weights (>= 0) of a dist graph.
int check_adjacent(const Comm& c, int degree, const int* ranks, const int* weights,
                   const char* degree_arg, const char* ranks_arg, const char* weights_arg) {
  if (degree < 0) return fail(MPI_ERR_ARG, "{}={} is negative", degree_arg, degree);
  if (degree > 0) {
    if (int rc = check_not_null(ranks, ranks_arg)) return rc;
    if (int rc = check_not_null(weights, weights_arg)) return rc;
    if (weights == MPI_WEIGHTS_EMPTY) {
      return fail(MPI_ERR_ARG, "{} is MPI_WEIGHTS_EMPTY but {}={}", weights_arg, degree_arg,
                  degree);
    }
  }
  for (int i = 0; i < degree; ++i) {
    if (ranks[i] < 0 || ranks[i] >= c.size()) {
      return fail(MPI_ERR_RANK, "{}[{}]={} is not a rank of comm_old", ranks_arg, i, ranks[i]);
    }
    if (weights != MPI_UNWEIGHTED && weights[i] < 0) {
      return fail(MPI_ERR_ARG, "{}[{}]={} is negative", weights_arg, i, weights[i]);
    }
  }
  return MPI_SUCCESS;
}

// A dist graph communicator over all of comm_old's ranks.
int create_dist_graph(Comm& c, std::shared_ptr<Topology> topo, MPI_Comm* out) {
  topo->kind = TopoKind::dist_graph;
  return create_topo_comm(c, true, c.group->members(), std::move(topo), out);
}

}  // namespace

extern "C" int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
                                int reorder, MPI_Comm* comm_graph) {
  const ApiCall call("MPI_Graph_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Graph_create";
  (void)reorder;
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm_old, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(comm_graph, "comm_graph");
  if (rc == MPI_SUCCESS) rc = check_graph(nnodes, indx, edges, c->size());
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  auto topo = std::make_shared<Topology>();
  topo->kind = TopoKind::graph;
  if (nnodes > 0) {
    topo->index.assign(indx, indx + nnodes);
    topo->edges.assign(edges, edges + indx[nnodes - 1]);
  }
  std::vector<int> members;
  for (int r = 0; r < nnodes; ++r) members.push_back(c->world_of(r));
  return raise(c, kFn,
               create_topo_comm(*c, c->rank < nnodes, std::move(members), topo, comm_graph));
}

extern "C" int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const ApiCall call("MPI_Graphdims_get");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Graphdims_get";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::graph, t);
  if (rc == MPI_SUCCESS) rc = check_not_null(nnodes, "nnodes");
  if (rc == MPI_SUCCESS) rc = check_not_null(nedges, "nedges");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *nnodes = static_cast<int>(t->index.size());
  *nedges = static_cast<int>(t->edges.size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[]) {
  const ApiCall call("MPI_Graph_get");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Graph_get";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::graph, t);
  if (rc == MPI_SUCCESS && (maxindex < static_cast<int>(t->index.size()) ||
                            maxedges < static_cast<int>(t->edges.size()))) {
    rc = fail(MPI_ERR_ARG, "maxindex={} or maxedges={} is less than the graph's {} nodes, {} edges",
              maxindex, maxedges, t->index.size(), t->edges.size());
  }
  if (rc == MPI_SUCCESS && !t->index.empty()) rc = check_not_null(indx, "indx");
  if (rc == MPI_SUCCESS && !t->edges.empty()) rc = check_not_null(edges, "edges");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::copy(t->index.begin(), t->index.end(), indx);
  std::copy(t->edges.begin(), t->edges.end(), edges);
  return MPI_SUCCESS;
}

extern "C" int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const ApiCall call("MPI_Graph_neighbors_count");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Graph_neighbors_count";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::graph, t);
  if (rc == MPI_SUCCESS && (rank < 0 || rank >= c->size())) {
    rc = fail(MPI_ERR_RANK, "rank={} is not in 0..{}", rank, c->size() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(nneighbors, "nneighbors");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *nneighbors = static_cast<int>(t->graph_neighbors(rank).size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const ApiCall call("MPI_Graph_neighbors");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Graph_neighbors";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::graph, t);
  if (rc == MPI_SUCCESS && (rank < 0 || rank >= c->size())) {
    rc = fail(MPI_ERR_RANK, "rank={} is not in 0..{}", rank, c->size() - 1);
  }
  std::vector<int> n;
  if (rc == MPI_SUCCESS) n = t->graph_neighbors(rank);
  if (rc == MPI_SUCCESS && maxneighbors < static_cast<int>(n.size())) {
    rc = fail(MPI_ERR_ARG, "maxneighbors={} is less than rank {}'s {} neighbours", maxneighbors,
              rank, n.size());
  }
  if (rc == MPI_SUCCESS && !n.empty()) rc = check_not_null(neighbors, "neighbors");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::copy(n.begin(), n.end(), neighbors);
  return MPI_SUCCESS;
}

extern "C" int MPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[],
                             int* newrank) {
  const ApiCall call("MPI_Graph_map");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Graph_map";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_graph(nnodes, indx, edges, c->size());
  if (rc == MPI_SUCCESS) rc = check_not_null(newrank, "newrank");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

extern "C" int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                              const int sourceweights[], int outdegree,
                                              const int destinations[], const int destweights[],
                                              MPI_Info info, int reorder,
                                              MPI_Comm* comm_dist_graph) {
  const ApiCall call("MPI_Dist_graph_create_adjacent");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Dist_graph_create_adjacent";
  (void)reorder;
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm_old, c);
  if (rc == MPI_SUCCESS) {
    rc = check_adjacent(*c, indegree, sources, sourceweights, "indegree", "sources",
                        "sourceweights");
  }
  if (rc == MPI_SUCCESS) {
    rc = check_adjacent(*c, outdegree, destinations, destweights, "outdegree", "destinations",
                        "destweights");
  }
  if (rc == MPI_SUCCESS && (sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED)) {
    rc = fail(MPI_ERR_ARG, "sourceweights and destweights must both be MPI_UNWEIGHTED or neither");
  }
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc == MPI_SUCCESS) rc = check_not_null(comm_dist_graph, "comm_dist_graph");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  auto topo = std::make_shared<Topology>();
  topo->weighted = sourceweights != MPI_UNWEIGHTED;
  topo->sources.assign(sources, sources + indegree);
  topo->destinations.assign(destinations, destinations + outdegree);
  if (topo->weighted) {
    topo->source_weights.assign(sourceweights, sourceweights + indegree);
    topo->destination_weights.assign(destweights, destweights + outdegree);
  }
  return raise(c, kFn, create_dist_graph(*c, topo, comm_dist_graph));
}

// Every rank's edges go to every rank (an allgather of the counts, then of
// the edges padded to the largest count); each keeps the edges that end or
// start at itself, in (contributing rank, position) order.
extern "C" int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                     const int degrees[], const int destinations[],
                                     const int weights[], MPI_Info info, int reorder,
                                     MPI_Comm* comm_dist_graph) {
  const ApiCall call("MPI_Dist_graph_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Dist_graph_create";
  (void)reorder;
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm_old, c);
  if (rc == MPI_SUCCESS && n < 0) rc = fail(MPI_ERR_ARG, "n={} is negative", n);
  if (rc == MPI_SUCCESS && n > 0) rc = check_not_null(sources, "sources");
  if (rc == MPI_SUCCESS && n > 0) rc = check_not_null(degrees, "degrees");
  struct Edge {
    int from, to, weight;
  };
  std::vector<Edge> mine;
  long long total = 0;
  for (int i = 0; rc == MPI_SUCCESS && i < n; ++i) {
    if (sources[i] < 0 || sources[i] >= c->size()) {
      rc = fail(MPI_ERR_RANK, "sources[{}]={} is not a rank of comm_old", i, sources[i]);
    } else if (degrees[i] < 0) {
      rc = fail(MPI_ERR_ARG, "degrees[{}]={} is negative", i, degrees[i]);
    }
    total += degrees[i];
  }
  if (rc == MPI_SUCCESS && total > 0) {
    rc = check_not_null(destinations, "destinations");
    if (rc == MPI_SUCCESS) rc = check_not_null(weights, "weights");
    if (rc == MPI_SUCCESS && weights == MPI_WEIGHTS_EMPTY) {
      rc = fail(MPI_ERR_ARG, "weights is MPI_WEIGHTS_EMPTY but there are {} edges", total);
    }
  }
  for (int i = 0, e = 0; rc == MPI_SUCCESS && i < n; ++i) {
    for (int k = 0; rc == MPI_SUCCESS && k < degrees[i]; ++k, ++e) {
      if (destinations[e] < 0 || destinations[e] >= c->size()) {
        rc =
            fail(MPI_ERR_RANK, "destinations[{}]={} is not a rank of comm_old", e, destinations[e]);
      } else if (weights != MPI_UNWEIGHTED && weights[e] < 0) {
        rc = fail(MPI_ERR_ARG, "weights[{}]={} is negative", e, weights[e]);
      } else {
        mine.push_back({sources[i], destinations[e], weights == MPI_UNWEIGHTED ? 1 : weights[e]});
      }
    }
  }
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc == MPI_SUCCESS) rc = check_not_null(comm_dist_graph, "comm_dist_graph");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // Weighted unless MPI_UNWEIGHTED was given (MPI 3.1 7.5.5): weights,
  // MPI_WEIGHTS_EMPTY or any array with no edges all make a weighted graph.
  // The standard makes MPI_UNWEIGHTED all-or-none; should only some ranks
  // pass it, every rank still sees the same answer (unweighted).
  const int my_kind = weights == MPI_UNWEIGHTED ? 0 : 1;
  int header[2] = {static_cast<int>(mine.size()), my_kind};
  std::vector<char> bytes;
  rc = internal_allgather(*c, header, sizeof header, bytes);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::vector<int> headers(2 * c->size());
  std::memcpy(headers.data(), bytes.data(), bytes.size());
  int most = 0;
  bool weighted = true;
  for (int r = 0; r < c->size(); ++r) {
    most = std::max(most, headers[2 * r]);
    weighted = weighted && headers[2 * r + 1] == 1;
  }
  mine.resize(std::max<std::size_t>(most, 1));
  rc = internal_allgather(*c, mine.data(), mine.size() * sizeof(Edge), bytes);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  const std::size_t stride = mine.size();
  const Edge* all = reinterpret_cast<const Edge*>(bytes.data());
  auto topo = std::make_shared<Topology>();
  topo->weighted = weighted;
  for (int r = 0; r < c->size(); ++r) {
    for (int k = 0; k < headers[2 * r]; ++k) {
      const Edge& e = all[r * stride + k];
      if (e.to == c->rank) {
        topo->sources.push_back(e.from);
        if (weighted) topo->source_weights.push_back(e.weight);
      }
      if (e.from == c->rank) {
        topo->destinations.push_back(e.to);
        if (weighted) topo->destination_weights.push_back(e.weight);
      }
    }
  }
  return raise(c, kFn, create_dist_graph(*c, topo, comm_dist_graph));
}

extern "C" int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree,
                                              int* weighted) {
  const ApiCall call("MPI_Dist_graph_neighbors_count");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Dist_graph_neighbors_count";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::dist_graph, t);
  if (rc == MPI_SUCCESS) rc = check_not_null(indegree, "indegree");
  if (rc == MPI_SUCCESS) rc = check_not_null(outdegree, "outdegree");
  if (rc == MPI_SUCCESS) rc = check_not_null(weighted, "weighted");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *indegree = static_cast<int>(t->sources.size());
  *outdegree = static_cast<int>(t->destinations.size());
  *weighted = t->weighted;
  return MPI_SUCCESS;
}

extern "C" int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                        int sourceweights[], int maxoutdegree, int destinations[],
                                        int destweights[]) {
  const ApiCall call("MPI_Dist_graph_neighbors");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Dist_graph_neighbors";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::dist_graph, t);
  const int in = t ? static_cast<int>(t->sources.size()) : 0;
  const int out = t ? static_cast<int>(t->destinations.size()) : 0;
  if (rc == MPI_SUCCESS && (maxindegree < in || maxoutdegree < out)) {
    rc = fail(MPI_ERR_ARG, "maxindegree={} or maxoutdegree={} is less than the degrees {}, {}",
              maxindegree, maxoutdegree, in, out);
  }
  if (rc == MPI_SUCCESS && in > 0) rc = check_not_null(sources, "sources");
  if (rc == MPI_SUCCESS && out > 0) rc = check_not_null(destinations, "destinations");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::copy(t->sources.begin(), t->sources.end(), sources);
  std::copy(t->destinations.begin(), t->destinations.end(), destinations);
  // Weights only where the caller gave room for them.
  if (t->weighted && sourceweights != nullptr && sourceweights != MPI_UNWEIGHTED) {
    std::copy(t->source_weights.begin(), t->source_weights.end(), sourceweights);
  }
  if (t->weighted && destweights != nullptr && destweights != MPI_UNWEIGHTED) {
    std::copy(t->destination_weights.begin(), t->destination_weights.end(), destweights);
  }
  return MPI_SUCCESS;
}
