// Datatype commit, free and queries.
#include <climits>
#include <cstring>
#include <initializer_list>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/type_attributes.hpp"

using namespace mpi;

namespace {

// An output argument of a query, checked to be non-null.
struct Output {
  const void* ptr;
  const char* name;
};

// A query's checks: running, a valid datatype, non-null outputs. Returns
// the error class already raised, or MPI_SUCCESS.
// (A raw pointer: a query runs in a loop in some programs, MPICH's dtpools
// calls MPI_Type_size per element, and a shared_ptr copy's two atomic
// updates were half its cost.)
int query(const char* fn, MPI_Datatype datatype, const Datatype*& t,
          std::initializer_list<Output> outputs) {
  if (int rc = check_running(fn)) return rc;
  int rc = lookup_type(datatype, t, false);
  for (const Output& out : outputs) {
    if (rc == MPI_SUCCESS) rc = check_not_null(out.ptr, out.name);
  }
  return raise(nullptr, fn, rc);
}

// MPI_Type_commit and MPI_Type_free take the handle by pointer.
int lookup_type_at(const MPI_Datatype* datatype, TypePtr& t) {
  int rc = check_not_null(datatype, "datatype");
  if (rc == MPI_SUCCESS) rc = lookup_type(*datatype, t, false);
  return rc;
}

int clamp_int(std::int64_t v) { return v > INT_MAX ? MPI_UNDEFINED : static_cast<int>(v); }

}  // namespace

extern "C" int MPI_Type_commit(MPI_Datatype* datatype) {
  const ApiCall call("MPI_Type_commit");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_commit";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = lookup_type_at(datatype, t);
  if (rc == MPI_SUCCESS) rc = commit_type(*t);
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Type_free(MPI_Datatype* datatype) {
  const ApiCall call("MPI_Type_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_free";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = lookup_type_at(datatype, t);
  const bool f90 = rc == MPI_SUCCESS && t->envelope != nullptr &&
                   (t->envelope->combiner == MPI_COMBINER_F90_REAL ||
                    t->envelope->combiner == MPI_COMBINER_F90_COMPLEX ||
                    t->envelope->combiner == MPI_COMBINER_F90_INTEGER);
  if (rc == MPI_SUCCESS && (state().types.is_predefined(*datatype) || f90)) {
    rc = fail(MPI_ERR_TYPE, "datatype {} is predefined and cannot be freed", t->name);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  return raise(nullptr, kFn, release_type(datatype));
}

extern "C" int MPI_Type_size(MPI_Datatype datatype, int* size) {
  const ApiCall call("MPI_Type_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_size";
  const Datatype* t = nullptr;
  if (int rc = query(kFn, datatype, t, {{size, "size"}})) return rc;
  *size = clamp_int(t->size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  const ApiCall call("MPI_Type_size_x");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_size_x";
  const Datatype* t = nullptr;
  if (int rc = query(kFn, datatype, t, {{size, "size"}})) return rc;
  *size = t->size();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  const ApiCall call("MPI_Type_get_extent");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_extent";
  const Datatype* t = nullptr;
  if (int rc = query(kFn, datatype, t, {{lb, "lb"}, {extent, "extent"}})) return rc;
  *lb = t->lb();
  *extent = t->extent();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const ApiCall call("MPI_Type_get_extent_x");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Type_get_extent(datatype, lb, extent);
}

extern "C" int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                        MPI_Aint* true_extent) {
  const ApiCall call("MPI_Type_get_true_extent");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_true_extent";
  const Datatype* t = nullptr;
  if (int rc = query(kFn, datatype, t, {{true_lb, "true_lb"}, {true_extent, "true_extent"}})) {
    return rc;
  }
  *true_lb = t->true_lb();
  *true_extent = t->true_extent();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                          MPI_Count* true_extent) {
  const ApiCall call("MPI_Type_get_true_extent_x");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Type_get_true_extent(datatype, true_lb, true_extent);
}

extern "C" int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  const ApiCall call("MPI_Type_set_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_set_name";
  const Datatype* t = nullptr;
  if (int rc = query(kFn, datatype, t, {{type_name, "type_name"}})) return rc;
  // The name is descriptive only; renaming does not change the layout.
  const_cast<Datatype*>(t)->name.assign(type_name,
                                        strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const ApiCall call("MPI_Type_get_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_name";
  if (datatype == MPI_DATATYPE_NULL) {
    return raise(nullptr, kFn, name_of_null_handle("MPI_DATATYPE_NULL", type_name, "type_name", resultlen));
  }
  const Datatype* t = nullptr;
  if (int rc = query(kFn, datatype, t, {{type_name, "type_name"}, {resultlen, "resultlen"}})) {
    return rc;
  }
  std::size_t n = std::min<std::size_t>(t->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, t->name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

// For mpi_f08's array sections (mpi/fortran/f08_choice.c): the size of `datatype` when its
// instances are dense (no gaps, lower bounds 0), else 0 — also for an invalid datatype, which
// the call the section is for then reports under its own name.
extern "C" MPI_Count lapis_f_type_dense_size(MPI_Datatype datatype) {
  const ApiCall call("MPI_Type_size_x");
  if (call.overlaps()) [[unlikely]] return 0;
  const Datatype* t = nullptr;  // raw, as in query(): this runs per Fortran call
  if (state().phase != Phase::running || lookup_type(datatype, t, false) != MPI_SUCCESS) return 0;
  const bool dense = t->size() > 0 && t->lb() == 0 && t->true_lb() == 0 && t->extent() == t->size() &&
                     t->true_extent() == t->size();
  return dense ? t->size() : 0;
}

// MPI 4.1: the predefined value-index pair type (the kind MPI_MINLOC and
// MPI_MAXLOC reduce) of a value type and an index type; MPI_DATATYPE_NULL
// when MPI predefines none for the combination.
extern "C" int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                        MPI_Datatype* pair_type) {
  const ApiCall call("MPI_Type_get_value_index");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_running(call.name())) return rc;
  const Datatype* value = nullptr;
  const Datatype* index = nullptr;
  int rc = lookup_type(value_type, value, false, "value_type");
  if (rc == MPI_SUCCESS) rc = lookup_type(index_type, index, false, "index_type");
  if (rc == MPI_SUCCESS) rc = check_not_null(pair_type, "pair_type");
  if (rc != MPI_SUCCESS) return raise(nullptr, call.name(), rc);
  struct Pair {
    MPI_Datatype value, index, pair;
  };
  static constexpr Pair kPairs[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
  };
  *pair_type = MPI_DATATYPE_NULL;
  for (const Pair& p : kPairs) {
    if (p.value == value_type && p.index == index_type) *pair_type = p.pair;
  }
  return MPI_SUCCESS;
}
