// The large-count forms' shared narrowing (large_count.hpp).
#include "mpi/internal/large_count.hpp"

#include <memory>

#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/rma/window.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/topology.hpp"

namespace mpi {

int run_of(MPI_Count count, const TypePtr& old, MPI_Datatype old_handle, const char* count_arg,
           MPI_Datatype& out) {
  TypePtr t = Datatype::contiguous(count, old);
  if (t == nullptr) {
    return fail(MPI_ERR_COUNT, "{}={} instances of a type of extent {} do not fit in 2^61 bytes",
                count_arg, count, old->extent());
  }
  Envelope env{MPI_COMBINER_CONTIGUOUS, {}, {}, {old_handle}, {old}};
  env.counts = {count};
  std::const_pointer_cast<Datatype>(t)->envelope = std::make_shared<const Envelope>(std::move(env));
  if (int rc = commit_type(*t)) return rc;
  const MPI_Datatype h = state().types.insert(std::move(t));
  if (h == MPI_DATATYPE_NULL) return fail(MPI_ERR_INTERN, "too many datatypes");
  out = h;
  return MPI_SUCCESS;
}

Narrowed::~Narrowed() {
  if (owned_ != MPI_DATATYPE_NULL) MPI_Type_free(&owned_);
}

int Narrowed::set(MPI_Count count, MPI_Datatype type, const char* count_arg, const char* type_arg) {
  type_ = type;
  if (count <= INT_MAX) {
    count_ = small_count(count);
    return MPI_SUCCESS;
  }
  TypePtr t;
  if (int rc = lookup_type(type, t, true, type_arg)) return rc;
  if (int rc = run_of(count, t, type, count_arg, owned_)) return rc;
  type_ = owned_;
  count_ = 1;
  return MPI_SUCCESS;
}

int Narrowed::set_reduction(MPI_Count count, MPI_Datatype type, MPI_Op op, const char* count_arg) {
  if (count > INT_MAX) {
    const Op* o = nullptr;
    if (int rc = lookup_op(op, o)) return rc;
    if (o->kind == OpKind::user) {
      return fail(MPI_ERR_COUNT,
                  "{}={} exceeds INT_MAX with a user-defined op: only the blocking reductions "
                  "take larger counts with user ops (not yet)",
                  count_arg, count);
    }
  }
  return set(count, type, count_arg, "datatype");
}

int fits_int(std::int64_t value, const char* arg, std::int64_t index, const char* why,
             int error_class) {
  if (value >= INT_MIN && value <= INT_MAX) return MPI_SUCCESS;
  const char* bound = value > INT_MAX ? "exceeds INT_MAX" : "is below INT_MIN";
  if (index < 0) return fail(error_class, "{}={} {}: {}", arg, value, bound, why);
  return fail(error_class, "{}[{}]={} {}: {}", arg, index, value, bound, why);
}

int IntArray::set(const std::int64_t* values, std::int64_t n, const char* arg, const char* why) {
  ints_.reset();
  if (values == nullptr || n < 0) return MPI_SUCCESS;
  auto ints = std::make_shared<std::vector<int>>(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if (int rc = fits_int(values[i], arg, i, why)) return rc;
    (*ints)[static_cast<std::size_t>(i)] = static_cast<int>(values[i]);
  }
  ints_ = std::move(ints);
  return MPI_SUCCESS;
}

void keep_with_request(MPI_Request request,
                       std::initializer_list<std::shared_ptr<const void>> storage) {
  Request* r = requests().find(request);
  if (r == nullptr || r->coll == nullptr) return;
  for (const auto& s : storage) {
    if (s != nullptr) r->coll->keep.push_back(s);
  }
}

int raise_on(MPI_Comm comm, const char* fn, int rc) {
  CommPtr* c = state().comms.find(comm);
  return raise(c != nullptr ? c->get() : nullptr, fn, rc);
}

int raise_on_win(MPI_Win win, const char* fn, int rc) {
  return rma::raise_win(rma::find_window(win), fn, rc);
}

std::int64_t blocks_of(MPI_Comm comm, Blocks which) {
  CommPtr* found = state().comms.find(comm);
  if (found == nullptr || *found == nullptr) return -1;
  const Comm& c = **found;
  if (which == Blocks::local) return c.size();
  if (which == Blocks::group) return c.is_inter() ? c.remote_group->size() : c.size();
  if (c.topo == nullptr || c.is_inter()) return -1;
  const Neighborhood hood = neighborhood(*c.topo, c.rank);
  return static_cast<std::int64_t>(which == Blocks::neighbor_in ? hood.sources.size()
                                                                : hood.destinations.size());
}

bool is_root(MPI_Comm comm, int root) {
  CommPtr* found = state().comms.find(comm);
  if (found == nullptr || *found == nullptr) return false;
  const Comm& c = **found;
  return c.is_inter() ? root == MPI_ROOT : root == c.rank;
}

}  // namespace mpi
