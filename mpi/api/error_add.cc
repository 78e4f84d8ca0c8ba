// MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string: error
// classes and codes of the program's own (mpi/internal/user_errors.hpp).
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
