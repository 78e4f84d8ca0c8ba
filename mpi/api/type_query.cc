// Datatype commit, free and queries.
#include <climits>
#include <cstring>

#include "mpi.h"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// Looks up a type for a query: running, valid handle, non-null output.
int query(const char* fn, MPI_Datatype datatype, const void* out, const char* out_name,
          TypePtr& t) {
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(out, out_name);
  return rc == MPI_SUCCESS ? rc : raise(nullptr, fn, rc);
}

int clamp_int(std::int64_t v) { return v > INT_MAX ? MPI_UNDEFINED : static_cast<int>(v); }

}  // namespace

extern "C" int MPI_Type_commit(MPI_Datatype* datatype) {
  constexpr const char* kFn = "MPI_Type_commit";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = check_not_null(datatype, "datatype");
  if (rc == MPI_SUCCESS) rc = lookup_type(*datatype, t, false);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  t->commit();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_free(MPI_Datatype* datatype) {
  constexpr const char* kFn = "MPI_Type_free";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = check_not_null(datatype, "datatype");
  if (rc == MPI_SUCCESS) rc = lookup_type(*datatype, t, false);
  if (rc == MPI_SUCCESS && state().types.is_predefined(*datatype)) {
    rc = fail(MPI_ERR_TYPE, "datatype {} is predefined and cannot be freed", t->name);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  // Pending operations and derived types keep their own reference.
  state().types.erase(*datatype);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_size(MPI_Datatype datatype, int* size) {
  constexpr const char* kFn = "MPI_Type_size";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  if (int rc = query(kFn, datatype, size, "size", t)) return rc;
  *size = clamp_int(t->size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  constexpr const char* kFn = "MPI_Type_size_x";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  if (int rc = query(kFn, datatype, size, "size", t)) return rc;
  *size = t->size();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  constexpr const char* kFn = "MPI_Type_get_extent";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  if (int rc = query(kFn, datatype, lb, "lb", t)) return rc;
  if (int rc = check_not_null(extent, "extent")) return raise(nullptr, kFn, rc);
  *lb = t->lb();
  *extent = t->extent();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return MPI_Type_get_extent(datatype, lb, extent);
}

extern "C" int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                        MPI_Aint* true_extent) {
  constexpr const char* kFn = "MPI_Type_get_true_extent";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  if (int rc = query(kFn, datatype, true_lb, "true_lb", t)) return rc;
  if (int rc = check_not_null(true_extent, "true_extent")) return raise(nullptr, kFn, rc);
  *true_lb = t->true_lb();
  *true_extent = t->true_extent();
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                          MPI_Count* true_extent) {
  return MPI_Type_get_true_extent(datatype, true_lb, true_extent);
}

extern "C" int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  constexpr const char* kFn = "MPI_Type_set_name";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  if (int rc = query(kFn, datatype, type_name, "type_name", t)) return rc;
  // The name is descriptive only; renaming does not change the layout.
  std::const_pointer_cast<Datatype>(t)->name.assign(type_name,
                                                    strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  constexpr const char* kFn = "MPI_Type_get_name";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  if (int rc = query(kFn, datatype, type_name, "type_name", t)) return rc;
  if (int rc = check_not_null(resultlen, "resultlen")) return raise(nullptr, kFn, rc);
  std::size_t n = std::min<std::size_t>(t->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, t->name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
