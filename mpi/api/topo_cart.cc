// Cartesian topologies: MPI_Cart_create/coords/rank/shift/sub/get/map,
// MPI_Cartdim_get, MPI_Dims_create, and MPI_Topo_test for every kind.
// Ranks are never reordered (`reorder` is allowed to be ignored).
#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/topology.hpp"

using namespace mpi;

namespace {

// ndims >= 0, dims[i] > 0, periods present; the grid's size in *n (64-bit:
// a product over INT_MAX is an error, not an overflow).
int check_grid(int ndims, const int* dims, const int* periods, long long& n) {
  if (ndims < 0) return fail(MPI_ERR_DIMS, "ndims={} is negative", ndims);
  if (ndims > 0) {
    if (int rc = check_not_null(dims, "dims")) return rc;
    if (int rc = check_not_null(periods, "periods")) return rc;
  }
  n = 1;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] <= 0) return fail(MPI_ERR_DIMS, "dims[{}]={} is not positive", d, dims[d]);
    n *= dims[d];
    if (n > INT_MAX) return fail(MPI_ERR_DIMS, "the grid has more than INT_MAX ranks");
  }
  return MPI_SUCCESS;
}

int check_cart_rank(const Comm& c, int rank) {
  if (rank < 0 || rank >= c.size()) {
    return fail(MPI_ERR_RANK, "rank={} is not in 0..{}", rank, c.size() - 1);
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                               int reorder, MPI_Comm* comm_cart) {
  const ApiCall call("MPI_Cart_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_create";
  (void)reorder;
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  long long n = 0;
  int rc = lookup_comm(comm_old, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(comm_cart, "comm_cart");
  if (rc == MPI_SUCCESS) rc = check_grid(ndims, dims, periods, n);
  if (rc == MPI_SUCCESS && n > c->size()) {
    rc = fail(MPI_ERR_DIMS, "the grid has {} ranks, more than comm_old's {}", n, c->size());
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  auto topo = std::make_shared<Topology>();
  topo->kind = TopoKind::cart;
  topo->dims.assign(dims, dims + ndims);
  for (int d = 0; d < ndims; ++d) topo->periods.push_back(periods[d] != 0);
  std::vector<int> members;
  for (int r = 0; r < n; ++r) members.push_back(c->world_of(r));
  return raise(c, kFn, create_topo_comm(*c, c->rank < n, std::move(members), topo, comm_cart));
}

extern "C" int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const ApiCall call("MPI_Cartdim_get");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cartdim_get";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::cart, t);
  if (rc == MPI_SUCCESS) rc = check_not_null(ndims, "ndims");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *ndims = t->ndims();
  return MPI_SUCCESS;
}

extern "C" int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const ApiCall call("MPI_Cart_get");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_get";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::cart, t);
  if (rc == MPI_SUCCESS && maxdims < t->ndims()) {
    rc = fail(MPI_ERR_ARG, "maxdims={} is less than the topology's {} dimensions", maxdims,
              t->ndims());
  }
  if (rc == MPI_SUCCESS && t->ndims() > 0) {
    rc = check_not_null(dims, "dims");
    if (rc == MPI_SUCCESS) rc = check_not_null(periods, "periods");
    if (rc == MPI_SUCCESS) rc = check_not_null(coords, "coords");
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  const std::vector<int> mine = t->coords_of(c->rank);
  for (int d = 0; d < t->ndims(); ++d) {
    dims[d] = t->dims[d];
    periods[d] = t->periods[d];
    coords[d] = mine[d];
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const ApiCall call("MPI_Cart_coords");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_coords";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::cart, t);
  if (rc == MPI_SUCCESS) rc = check_cart_rank(*c, rank);
  if (rc == MPI_SUCCESS && maxdims < t->ndims()) {
    rc = fail(MPI_ERR_ARG, "maxdims={} is less than the topology's {} dimensions", maxdims,
              t->ndims());
  }
  if (rc == MPI_SUCCESS && t->ndims() > 0) rc = check_not_null(coords, "coords");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  const std::vector<int> v = t->coords_of(rank);
  std::copy(v.begin(), v.end(), coords);
  return MPI_SUCCESS;
}

extern "C" int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const ApiCall call("MPI_Cart_rank");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_rank";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::cart, t);
  if (rc == MPI_SUCCESS && t->ndims() > 0) rc = check_not_null(coords, "coords");
  if (rc == MPI_SUCCESS) rc = check_not_null(rank, "rank");
  for (int d = 0; rc == MPI_SUCCESS && d < t->ndims(); ++d) {
    if (!t->periods[d] && (coords[d] < 0 || coords[d] >= t->dims[d])) {
      rc = fail(MPI_ERR_ARG, "coords[{}]={} is outside non-periodic dimension {} (0..{})", d,
                coords[d], d, t->dims[d] - 1);
    }
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *rank = t->rank_of(coords);
  return MPI_SUCCESS;
}

extern "C" int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source,
                              int* rank_dest) {
  const ApiCall call("MPI_Cart_shift");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_shift";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::cart, t);
  if (rc == MPI_SUCCESS && (direction < 0 || direction >= t->ndims())) {
    rc = fail(MPI_ERR_ARG, "direction={} is not a dimension (0..{})", direction, t->ndims() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(rank_source, "rank_source");
  if (rc == MPI_SUCCESS) rc = check_not_null(rank_dest, "rank_dest");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  t->shift(c->rank, direction, disp, *rank_source, *rank_dest);
  return MPI_SUCCESS;
}

extern "C" int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const ApiCall call("MPI_Cart_sub");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_sub";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, TopoKind::cart, t);
  if (rc == MPI_SUCCESS && t->ndims() > 0) rc = check_not_null(remain_dims, "remain_dims");
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // The sub-grid holding this rank: the ranks whose coordinates in the
  // dropped dimensions equal mine, in rank order (row-major in the kept ones).
  auto sub = std::make_shared<Topology>();
  sub->kind = TopoKind::cart;
  for (int d = 0; d < t->ndims(); ++d) {
    if (remain_dims[d]) {
      sub->dims.push_back(t->dims[d]);
      sub->periods.push_back(t->periods[d]);
    }
  }
  const std::vector<int> mine = t->coords_of(c->rank);
  std::vector<int> members;
  for (int r = 0; r < c->size(); ++r) {
    const std::vector<int> theirs = t->coords_of(r);
    bool same = true;
    for (int d = 0; d < t->ndims() && same; ++d) same = remain_dims[d] || theirs[d] == mine[d];
    if (same) members.push_back(c->world_of(r));
  }
  return raise(c, kFn, create_topo_comm(*c, true, std::move(members), sub, newcomm));
}

extern "C" int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                            int* newrank) {
  const ApiCall call("MPI_Cart_map");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Cart_map";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  long long n = 0;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_grid(ndims, dims, periods, n);
  if (rc == MPI_SUCCESS) rc = check_not_null(newrank, "newrank");
  if (rc == MPI_SUCCESS && n > c->size()) {
    rc = fail(MPI_ERR_DIMS, "the grid has {} ranks, more than comm's {}", n, c->size());
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

// Balanced factors: nnodes / (product of the fixed dims) is split into
// prime factors, the largest first, each given to the free dimension with
// the smallest product so far; the free dimensions are then sorted into
// non-increasing order (MPI 3.1 section 7.5.2).
extern "C" int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const ApiCall call("MPI_Dims_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Dims_create";
  if (int rc = check_running(kFn)) return rc;
  int rc = MPI_SUCCESS;
  if (nnodes <= 0) rc = fail(MPI_ERR_ARG, "nnodes={} is not positive", nnodes);
  if (rc == MPI_SUCCESS && ndims < 0) rc = fail(MPI_ERR_DIMS, "ndims={} is negative", ndims);
  if (rc == MPI_SUCCESS && ndims > 0) rc = check_not_null(dims, "dims");
  long long fixed = 1;
  std::vector<int> free_dims;
  for (int d = 0; rc == MPI_SUCCESS && d < ndims; ++d) {
    if (dims[d] < 0) {
      rc = fail(MPI_ERR_DIMS, "dims[{}]={} is negative", d, dims[d]);
    } else if (dims[d] == 0) {
      free_dims.push_back(d);
    } else {
      fixed *= dims[d];
      if (fixed > nnodes) fixed = static_cast<long long>(nnodes) + 1;  // cannot divide
    }
  }
  if (rc == MPI_SUCCESS && nnodes % fixed != 0) {
    rc = fail(MPI_ERR_DIMS, "nnodes={} is not a multiple of the fixed dims' product {}", nnodes,
              fixed);
  }
  int rest = rc == MPI_SUCCESS ? static_cast<int>(nnodes / fixed) : 1;
  if (rc == MPI_SUCCESS && free_dims.empty() && rest != 1) {
    rc = fail(MPI_ERR_DIMS, "the fixed dims' product {} is not nnodes={}", fixed, nnodes);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  if (free_dims.empty()) return MPI_SUCCESS;
  std::vector<int> primes;
  for (int p = 2; static_cast<long long>(p) * p <= rest; ++p) {
    while (rest % p == 0) {
      primes.push_back(p);
      rest /= p;
    }
  }
  if (rest > 1) primes.push_back(rest);
  std::vector<long long> sizes(free_dims.size(), 1);
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) {
    *std::min_element(sizes.begin(), sizes.end()) *= *it;
  }
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  for (std::size_t i = 0; i < free_dims.size(); ++i)
    dims[free_dims[i]] = static_cast<int>(sizes[i]);
  return MPI_SUCCESS;
}

extern "C" int MPI_Topo_test(MPI_Comm comm, int* status) {
  const ApiCall call("MPI_Topo_test");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Topo_test";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(status, "status");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *status = c->topo ? static_cast<int>(c->topo->kind) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
