// Reading and setting the fields of a status: its count, and (MPI 4.1) its
// source, tag and error.
#include <algorithm>
#include <climits>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/status_fields.hpp"

using namespace mpi;

namespace {

int status_and_type(const MPI_Status* status, MPI_Datatype datatype, TypePtr& t) {
  if (!wants_status(status)) return fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = commit_type(*t);  // element counts need the flattened form
  return rc;
}

// Checks of the count readers (MPI_Get_count, MPI_Get_elements[_x]):
// running, a real status, a valid datatype, somewhere to write. Returns
// the error class already raised, or MPI_SUCCESS.
int validate_count_query(const char* fn, const MPI_Status* status, MPI_Datatype datatype,
                         const void* count, TypePtr& t) {
  if (int rc = check_running(fn)) return rc;
  int rc = status_and_type(status, datatype, t);
  if (rc == MPI_SUCCESS) rc = check_not_null(count, "count");
  return raise(nullptr, fn, rc);
}

MPI_Count count_of(const MPI_Status* status, const Datatype& t) {
  MPI_Count bytes = status_count(*status);
  if (t.size() == 0) return 0;
  if (bytes % t.size() != 0) return MPI_UNDEFINED;
  return bytes / t.size();
}

// Basic elements in the status' bytes; MPI_UNDEFINED when they end inside
// one.
MPI_Count elements_of(const MPI_Status* status, const Datatype& t) {
  std::int64_t n = elements_in(t, status_count(*status));
  return n < 0 ? MPI_UNDEFINED : n;
}

int to_int(MPI_Count v) { return v > INT_MAX ? MPI_UNDEFINED : static_cast<int>(v); }

}  // namespace

extern "C" int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const ApiCall call("MPI_Get_count");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_count";
  TypePtr t;
  if (int rc = validate_count_query(kFn, status, datatype, count, t)) return rc;
  *count = to_int(count_of(status, *t));
  return MPI_SUCCESS;
}

extern "C" int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const ApiCall call("MPI_Get_count_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_count_c";
  TypePtr t;
  if (int rc = validate_count_query(kFn, status, datatype, count, t)) return rc;
  *count = count_of(status, *t);
  return MPI_SUCCESS;
}

extern "C" int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype,
                                  MPI_Count* count) {
  const ApiCall call("MPI_Get_elements_x");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_elements_x";
  TypePtr t;
  if (int rc = validate_count_query(kFn, status, datatype, count, t)) return rc;
  *count = elements_of(status, *t);
  return MPI_SUCCESS;
}

extern "C" int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const ApiCall call("MPI_Get_elements");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_elements";
  TypePtr t;
  if (int rc = validate_count_query(kFn, status, datatype, count, t)) return rc;
  *count = to_int(elements_of(status, *t));
  return MPI_SUCCESS;
}

extern "C" int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype,
                                         MPI_Count count) {
  const ApiCall call("MPI_Status_set_elements_x");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Status_set_elements_x";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = status_and_type(status, datatype, t);
  if (rc == MPI_SUCCESS && count < 0) rc = fail(MPI_ERR_COUNT, "count={} is negative", count);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  // Whole instances, then the leading elements of one more.
  std::int64_t per = t->elements_per_instance();
  std::int64_t bytes = per == 0 ? 0 : (count / per) * t->size();
  std::int64_t rest = per == 0 ? 0 : count % per;
  // Whole rows of the element runs, then the leading runs of a part row.
  const FlatType& flat = t->flat();
  if (per != 0) {
    const std::int64_t row_elements = per / flat.element_reps;
    bytes += rest / row_elements * (t->size() / flat.element_reps);
    rest %= row_elements;
  }
  for (const ElementRun& run : flat.elements) {
    if (rest == 0) break;
    std::int64_t take = std::min(rest, run.count);
    bytes += take * run.elem_size;
    rest -= take;
  }
  set_status_count(*status, bytes);
  return MPI_SUCCESS;
}

extern "C" int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  const ApiCall call("MPI_Status_set_elements");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Status_set_elements_x(status, datatype, count);
}

extern "C" int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  const ApiCall call("MPI_Status_set_cancelled");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Status_set_cancelled";
  if (int rc = check_running(kFn)) return rc;
  if (!wants_status(status)) {
    return raise(nullptr, kFn, fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE"));
  }
  set_status_cancelled(*status, flag != 0);
  return MPI_SUCCESS;
}

// MPI 4.1's accessors of the public fields (MPI_SOURCE, MPI_TAG, MPI_ERROR),
// for languages that reach a C struct's members with difficulty.
namespace {

int get_field(const ApiCall& call, const MPI_Status* status, int MPI_Status::*field, int* out,
              const char* out_name) {
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_running(call.name())) return rc;
  int rc = wants_status(status) ? check_not_null(out, out_name)
                                : fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  if (rc != MPI_SUCCESS) return raise(nullptr, call.name(), rc);
  *out = status->*field;
  return MPI_SUCCESS;
}

int set_field(const ApiCall& call, MPI_Status* status, int MPI_Status::*field, int value) {
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_running(call.name())) return rc;
  if (!wants_status(status)) {
    return raise(nullptr, call.name(), fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE"));
  }
  status->*field = value;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Status_get_source(const MPI_Status* status, int* source) {
  const ApiCall call("MPI_Status_get_source");
  return get_field(call, status, &MPI_Status::MPI_SOURCE, source, "source");
}

extern "C" int MPI_Status_get_tag(const MPI_Status* status, int* tag) {
  const ApiCall call("MPI_Status_get_tag");
  return get_field(call, status, &MPI_Status::MPI_TAG, tag, "tag");
}

extern "C" int MPI_Status_get_error(const MPI_Status* status, int* error) {
  const ApiCall call("MPI_Status_get_error");
  return get_field(call, status, &MPI_Status::MPI_ERROR, error, "error");
}

extern "C" int MPI_Status_set_source(MPI_Status* status, int source) {
  const ApiCall call("MPI_Status_set_source");
  return set_field(call, status, &MPI_Status::MPI_SOURCE, source);
}

extern "C" int MPI_Status_set_tag(MPI_Status* status, int tag) {
  const ApiCall call("MPI_Status_set_tag");
  return set_field(call, status, &MPI_Status::MPI_TAG, tag);
}

extern "C" int MPI_Status_set_error(MPI_Status* status, int error) {
  const ApiCall call("MPI_Status_set_error");
  return set_field(call, status, &MPI_Status::MPI_ERROR, error);
}
