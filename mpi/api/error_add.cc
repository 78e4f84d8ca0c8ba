// MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string and MPI
// 4.1's MPI_Remove_error_class/_code/_string (also under MPICH 4.0's names,
// MPIX_Delete_error_*, for programs built against MPICH): error classes and
// codes of the program's own (mpi/internal/user_errors.hpp).
#include <cstring>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/user_errors.hpp"

using namespace mpi;

extern "C" int MPI_Add_error_class(int* errorclass) {
  const ApiCall call("MPI_Add_error_class");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Add_error_class";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(errorclass, "errorclass")) return raise(nullptr, kFn, rc);
  *errorclass = add_user_class();
  return MPI_SUCCESS;
}

extern "C" int MPI_Add_error_code(int errorclass, int* errorcode) {
  const ApiCall call("MPI_Add_error_code");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Add_error_code";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(errorcode, "errorcode")) return raise(nullptr, kFn, rc);
  if (!add_user_code(errorclass, *errorcode)) {
    return raise(nullptr, kFn,
                 fail(MPI_ERR_ARG, "errorclass={} is not an error class", errorclass));
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_Add_error_string(int errorcode, const char* string) {
  const ApiCall call("MPI_Add_error_string");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Add_error_string";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(string, "string");
  if (rc == MPI_SUCCESS && !is_user_code(errorcode)) {
    rc = fail(MPI_ERR_ARG,
              "errorcode={} was not added by MPI_Add_error_class/_code (predefined strings "
              "cannot change)",
              errorcode);
  }
  if (rc == MPI_SUCCESS && strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING) {
    rc = fail(MPI_ERR_ARG, "string is longer than MPI_MAX_ERROR_STRING - 1 ({})",
              MPI_MAX_ERROR_STRING - 1);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  set_user_code_string(errorcode, string);
  return MPI_SUCCESS;
}

namespace {

// The removals share everything but the argument's name and what goes.
int remove_error(const ApiCall& call, const char* arg, int value, const char* (*remove)(int)) {
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_running(call.name())) return rc;
  if (const char* why = remove(value)) {
    return raise(nullptr, call.name(), fail(MPI_ERR_ARG, "{}={} {}", arg, value, why));
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Remove_error_class(int errorclass) {
  const ApiCall call("MPI_Remove_error_class");
  return remove_error(call, "errorclass", errorclass, remove_user_class);
}

extern "C" int MPI_Remove_error_code(int errorcode) {
  const ApiCall call("MPI_Remove_error_code");
  return remove_error(call, "errorcode", errorcode, remove_user_code);
}

extern "C" int MPI_Remove_error_string(int errorcode) {
  const ApiCall call("MPI_Remove_error_string");
  return remove_error(call, "errorcode", errorcode, remove_user_string);
}

// MPICH 4.0's names of the same calls (their PMPIX_ names: mpi/pmpi.py).
extern "C" int MPIX_Delete_error_class(int errorclass) {
  const ApiCall call("MPIX_Delete_error_class");
  return remove_error(call, "errorclass", errorclass, remove_user_class);
}

extern "C" int MPIX_Delete_error_code(int errorcode) {
  const ApiCall call("MPIX_Delete_error_code");
  return remove_error(call, "errorcode", errorcode, remove_user_code);
}

extern "C" int MPIX_Delete_error_string(int errorcode) {
  const ApiCall call("MPIX_Delete_error_string");
  return remove_error(call, "errorcode", errorcode, remove_user_string);
}

