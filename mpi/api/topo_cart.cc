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
  if (rc != MPI_SUCCESS) {
    // No communicator: say so in comm_cart too (MPICH's errors/topo/cartsmall checks it).
    if (comm_cart != nullptr) *comm_cart = MPI_COMM_NULL;
    return raise(c, kFn, rc);
  }
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

namespace {

// The most balanced split of `n` into `k` factors (MPI 3.1 7.5.2: "as
// close to each other as possible"): the smallest spread (largest minus
// smallest); among equally spread ones the lexicographically largest when
// read from the smallest factor up. That is MPICH's answer for every n up to
// 6000 in 2 to 5 dims (checked against MPICH 4.0's MPI_Dims_create); a
// largest-prime-first greedy is not balanced (72 in 2 dims: 12 x 6, not 9 x 8).
class BalancedSplit {
 public:
  // Non-increasing; k >= 1, n >= 1.
  static std::vector<int> of(int n, int k) {
    BalancedSplit s;
    for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
      if (n % d != 0) continue;
      s.divisors_.push_back(d);
      if (d != n / d) s.divisors_.push_back(n / d);
    }
    std::sort(s.divisors_.begin(), s.divisors_.end());
    // Beyond the number of prime factors every extra dim is a 1: search
    // that many slots only (depth stays <= 31), counting the 1s as the
    // smallest factor.
    int primes = 0;
    for (int m = n, p = 2; m > 1; p = (static_cast<long long>(p) * p > m) ? m : p + 1) {
      while (m % p == 0) m /= p, ++primes;
    }
    const int slots = std::max(1, std::min(k, primes));
    s.floor_one_ = slots < k;
    s.search(n, slots, 1);
    std::vector<int> dims(static_cast<std::size_t>(k), 1);
    std::copy(s.best_.rbegin(), s.best_.rend(), dims.begin());
    return dims;
  }

 private:
  // trial_ holds the factors chosen so far, non-decreasing; `left` slots
  // remain for `q`, each factor at least `lo`.
  void search(int q, int left, int lo) {
    if (left == 1) {
      if (q >= lo) consider(q);
      return;
    }
    for (int d : divisors_) {
      if (d < lo || q % d != 0) continue;
      if (pow_exceeds(d, left, q)) break;  // the rest would be >= d: too large
      const int smallest = floor_one_ ? 1 : (trial_.empty() ? d : trial_.front());
      if (found_ && d - smallest > best_spread_) break;  // d is a lower bound on the largest
      trial_.push_back(d);
      search(q / d, left - 1, d);
      trial_.pop_back();
    }
  }

  void consider(int last) {
    trial_.push_back(last);
    const int smallest = floor_one_ ? 1 : trial_.front();
    const int spread = last - smallest;
    if (!found_ || spread < best_spread_ ||
        (spread == best_spread_ &&
         std::lexicographical_compare(best_.begin(), best_.end(), trial_.begin(), trial_.end()))) {
      found_ = true;
      best_spread_ = spread;
      best_ = trial_;
    }
    trial_.pop_back();
  }

  static bool pow_exceeds(long long d, int e, long long limit) {
    long long v = 1;
    for (int i = 0; i < e; ++i) {
      v *= d;
      if (v > limit) return true;
    }
    return false;
  }

  std::vector<int> divisors_;  // of n, ascending
  std::vector<int> trial_, best_;
  int best_spread_ = 0;
  bool found_ = false;
  bool floor_one_ = false;  // more dims than prime factors: the smallest is a 1
};

}  // namespace

// Fixed dims (> 0) stay; nnodes / their product is split over the free
// (zero) dims by BalancedSplit, placed in order (non-increasing).
extern "C" int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const ApiCall call("MPI_Dims_create");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Dims_create";
  if (int rc = check_running(kFn)) return rc;
  int rc = MPI_SUCCESS;
  // 0 is a multiple of any product, but no grid of positive dims has 0
  // nodes: refused rather than left undefined.
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
  const int rest = rc == MPI_SUCCESS ? static_cast<int>(nnodes / fixed) : 1;
  if (rc == MPI_SUCCESS && free_dims.empty() && rest != 1) {
    rc = fail(MPI_ERR_DIMS, "the fixed dims' product {} is not nnodes={}", fixed, nnodes);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  if (free_dims.empty()) return MPI_SUCCESS;
  const std::vector<int> sizes = BalancedSplit::of(rest, static_cast<int>(free_dims.size()));
  for (std::size_t i = 0; i < free_dims.size(); ++i) dims[free_dims[i]] = sizes[i];
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
