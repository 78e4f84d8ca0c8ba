// Error handlers, MPI_Error_string, MPI_Error_class.
#include <cstdio>
#include <cstring>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/error_classes.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/user_errors.hpp"

using namespace mpi;

extern "C" int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  const ApiCall call("MPI_Comm_set_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_set_errhandler";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, kFn, rc);
  if (int rc = lookup_errhandler(errhandler, c->errhandler)) return raise(c, kFn, rc);
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Comm_get_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_get_errhandler";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  *errhandler = errhandler_handle_for(c->errhandler);
  return MPI_SUCCESS;
}

MPI_Errhandler mpi::errhandler_handle_for(const ErrhandlerPtr& h) {
  switch (h->kind) {
    case Errhandler::Kind::fatal: return MPI_ERRORS_ARE_FATAL;
    case Errhandler::Kind::return_codes: return MPI_ERRORS_RETURN;
    case Errhandler::Kind::cxx_exceptions: return MPIR_ERRORS_THROW_EXCEPTIONS;
    case Errhandler::Kind::user: break;
  }
  State& s = state();
  MPI_Errhandler live = MPI_ERRHANDLER_NULL;
  s.errhandlers.for_each_user([&](int handle, const ErrhandlerPtr& p) {
    if (p == h && live == MPI_ERRHANDLER_NULL) live = handle;
  });
  if (live == MPI_ERRHANDLER_NULL) return s.errhandlers.insert(h);
  ++s.errhandler_gets[live];
  return live;
}

bool mpi::settle_errhandler_get(MPI_Errhandler handle) {
  auto& gets = state().errhandler_gets;
  auto it = gets.find(handle);
  if (it == gets.end()) return false;
  if (--it->second == 0) gets.erase(it);
  return true;
}

extern "C" int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                                          MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Comm_create_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_create_errhandler";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(reinterpret_cast<const void*>(function), "function");
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *errhandler = state().errhandlers.insert(
      std::make_shared<const Errhandler>(Errhandler{Errhandler::Kind::user, function}));
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  const ApiCall call("MPI_Comm_call_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_call_errhandler";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, kFn, rc);
  set_error_detail("raised by the program");
  raise(c, kFn, errorcode);
  return MPI_SUCCESS;
}

extern "C" int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Errhandler_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Errhandler_free";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(errhandler, "errhandler")) return raise(nullptr, kFn, rc);
  State& s = state();
  if (s.errhandlers.is_predefined(*errhandler)) {
    // Freeing a predefined handler is allowed and has no effect (MPI 3.1).
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
  }
  ErrhandlerPtr found;
  if (int rc = lookup_errhandler(*errhandler, found)) return raise(nullptr, kFn, rc);
  if (!settle_errhandler_get(*errhandler)) s.errhandlers.erase(*errhandler);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

// Both work before MPI_Init and after MPI_Finalize.
extern "C" int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  constexpr const char* kFn = "MPI_Error_string";
  int rc = check_not_null(string, "string");
  if (rc == MPI_SUCCESS) rc = check_not_null(resultlen, "resultlen");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const char* name = error_class_name(errorcode);
  if (name == nullptr && is_user_code(errorcode)) {  // MPI_Add_error_code/_string
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", user_code_string(errorcode).c_str());
    *resultlen = static_cast<int>(std::strlen(string));
    return MPI_SUCCESS;
  }
  if (name == nullptr) {
    std::snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
    *resultlen = static_cast<int>(std::strlen(string));
    return raise(nullptr, kFn, fail(MPI_ERR_ARG, "errorcode={} is not an error code", errorcode));
  }
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, error_class_text(errorcode));
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}

extern "C" int MPI_Error_class(int errorcode, int* errorclass) {
  constexpr const char* kFn = "MPI_Error_class";
  if (int rc = check_not_null(errorclass, "errorclass")) return raise(nullptr, kFn, rc);
  if (error_class_name(errorcode) == nullptr && is_user_code(errorcode)) {
    *errorclass = user_code_class(errorcode);
    return MPI_SUCCESS;
  }
  if (error_class_name(errorcode) == nullptr) {
    return raise(nullptr, kFn, fail(MPI_ERR_ARG, "errorcode={} is not an error code", errorcode));
  }
  *errorclass = errorcode;  // codes are their classes
  return MPI_SUCCESS;
}
