// MPI_Request_free, MPI_Cancel, MPI_Test_cancelled.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

using namespace mpi;

namespace {

int lookup_request(const MPI_Request* request, Request*& r) {
  r = nullptr;
  if (int rc = check_request_ptr(request)) return rc;
  if (*request == MPI_REQUEST_NULL) return fail(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
  r = requests().find(*request);
  if (r == nullptr) return fail(MPI_ERR_REQUEST, "request={:#x} is not a request", *request);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Request_free(MPI_Request* request) {
  const ApiCall call("MPI_Request_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Request_free";
  if (int rc = check_running(kFn)) return rc;
  Request* r = nullptr;
  if (int rc = lookup_request(request, r)) return raise(nullptr, kFn, rc);
  // An active operation still completes; it just can no longer be waited on.
  int rc = r->kind == RequestKind::grequest ? free_grequest(*r->greq) : MPI_SUCCESS;
  if (r->active) detach_request(std::move(*r));
  requests().release(*request);
  *request = MPI_REQUEST_NULL;
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Cancel(MPI_Request* request) {
  const ApiCall call("MPI_Cancel");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Cancel";
  if (int rc = check_running(kFn)) return rc;
  Request* r = nullptr;
  if (int rc = lookup_request(request, r)) return raise(nullptr, kFn, rc);
  if (r->kind == RequestKind::coll) {
    return raise(r->comm.get(), kFn,
                 fail(MPI_ERR_REQUEST, "request={:#x} is a collective's, which cannot be cancelled",
                      *request));
  }
  if (r->kind == RequestKind::grequest) {
    // The program's cancel_fn decides; `complete` tells it whether
    // MPI_Grequest_complete was already called.
    int rc = r->greq->cancel ? r->greq->cancel(r->greq->extra_state, r->greq->completed ? 1 : 0)
                             : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) set_error_detail("the request's cancel_fn failed");
    return raise(nullptr, kFn, rc);
  }
  if (!r->active || r->kind == RequestKind::null_proc || r->engine == nullptr) return MPI_SUCCESS;
  return raise(r->comm.get(), kFn, engine_error(engine().cancel(r->engine)));
}

extern "C" int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  const ApiCall call("MPI_Test_cancelled");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Test_cancelled";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS && !wants_status(status)) {
    rc = fail(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *flag = status_cancelled(*status) ? 1 : 0;
  return MPI_SUCCESS;
}
