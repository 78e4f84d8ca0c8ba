// MPI_Test and its multi-request forms, MPI_Request_get_status.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/partitioned.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

using namespace mpi;

namespace {

bool is_live(MPI_Request h) {
  if (h == MPI_REQUEST_NULL) return false;
  Request* r = requests().find(h);
  return r != nullptr && !(r->persistent && !r->active);
}

}  // namespace

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const ApiCall call("MPI_Test");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Test";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_ptr(request);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  bool done = false;
  CommPtr comm;
  rc = test_request(request, done, status, comm);
  if (rc == MPI_SUCCESS || comm) *flag = done ? 1 : 0;  // not for an invalid handle
  return raise(comm.get(), kFn, rc);
}

extern "C" int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  const ApiCall call("MPI_Testall");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Testall";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_array(count, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  // Either every request completes now or none is touched (MPI's rule).
  for (int i = 0; i < count; ++i) {
    bool done = false;
    if (int e = peek_request(reqs[i], done)) return raise(nullptr, kFn, e);
    if (!done) {
      *flag = 0;
      (void)engine().progress();
      return MPI_SUCCESS;
    }
  }
  int first_error = MPI_SUCCESS;
  CommPtr error_comm;
  for (int i = 0; i < count; ++i) {
    bool done = false;
    CommPtr comm;
    int e = test_request(&reqs[i], done, status_at(statuses, i), comm);
    if (e != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = e;
      error_comm = comm;
    }
  }
  *flag = 1;
  if (first_error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(error_comm.get(), kFn, MPI_ERR_IN_STATUS);
}

extern "C" int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag,
                           MPI_Status* status) {
  const ApiCall call("MPI_Testany");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Testany";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_array(count, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(index, "index");
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  bool any_live = false;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] != MPI_REQUEST_NULL && requests().find(reqs[i]) == nullptr) {
      return raise(nullptr, kFn,
                   fail(MPI_ERR_REQUEST, "array_of_requests[{}]={:#x} is not a request", i,
                        reqs[i]));
    }
    if (!is_live(reqs[i])) continue;
    any_live = true;
    bool done = false;
    CommPtr comm;
    int e = test_request(&reqs[i], done, status, comm);
    if (done) {
      *index = i;
      *flag = 1;
      return raise(comm.get(), kFn, e);
    }
  }
  *index = MPI_UNDEFINED;
  *flag = any_live ? 0 : 1;
  if (!any_live) set_empty_status(status);
  return MPI_SUCCESS;
}

extern "C" int MPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  const ApiCall call("MPI_Testsome");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Testsome";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_array(incount, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(outcount, "outcount");
  if (rc == MPI_SUCCESS && incount > 0) rc = check_not_null(indices, "array_of_indices");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  int n = 0;
  bool any_live = false;
  int first_error = MPI_SUCCESS;
  CommPtr error_comm;
  for (int i = 0; i < incount; ++i) {
    if (reqs[i] != MPI_REQUEST_NULL && requests().find(reqs[i]) == nullptr) {
      return raise(nullptr, kFn,
                   fail(MPI_ERR_REQUEST, "array_of_requests[{}]={:#x} is not a request", i,
                        reqs[i]));
    }
    if (!is_live(reqs[i])) continue;
    any_live = true;
    bool done = false;
    CommPtr comm;
    int e = test_request(&reqs[i], done, status_at(statuses, n), comm);
    if (!done) continue;
    indices[n++] = i;
    if (e != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = e;
      error_comm = comm;
    }
  }
  *outcount = any_live ? n : MPI_UNDEFINED;
  if (first_error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(error_comm.get(), kFn, MPI_ERR_IN_STATUS);
}

extern "C" int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  const ApiCall call("MPI_Request_get_status");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Request_get_status";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  Request* r = requests().find(request);
  if (r == nullptr) {
    return raise(nullptr, kFn, fail(MPI_ERR_REQUEST, "request={:#x} is not a request", request));
  }
  if (awaiting_pready(*r)) [[unlikely]] {
    *flag = 0;
    return MPI_SUCCESS;
  }
  if ((r->persistent && !r->active) || r->engine == nullptr) {
    *flag = 1;
    if (r->kind == RequestKind::null_proc && r->active) {
      fill_proc_null_status(status);
    } else {
      set_empty_status(status);
    }
    return MPI_SUCCESS;
  }
  bool done = false;
  mpcpi::Status es;
  mpcpi::Errc err = engine().peek(r->engine, done, &es);
  *flag = done ? 1 : 0;
  if (!done) return err == mpcpi::Errc::success ? MPI_SUCCESS : raise(r->comm.get(), kFn, engine_error(err));
  // The data must be in the user's buffer once the flag says so.
  if (r->kind == RequestKind::recv && r->unpack && !es.cancelled) {
    unpack(*r->type, r->buf, r->count, r->staging.data.get(), static_cast<std::int64_t>(es.bytes));
    r->unpack = false;
  }
  int cls = err == mpcpi::Errc::success
                ? MPI_SUCCESS
                : describe_failure(err, *r->comm, es, r->peer, r->tag, r->count, r->type.get());
  if (r->kind == RequestKind::recv) {
    fill_status(status, *r->comm, es, es.bytes, cls);
  } else if (wants_status(status)) {
    set_empty_status(status);
    status->MPI_ERROR = cls;
    set_status_cancelled(*status, es.cancelled);
  }
  return raise(r->comm.get(), kFn, cls);
}
