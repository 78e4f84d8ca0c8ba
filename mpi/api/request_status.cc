// MPI_Request_get_status and MPI 4.1's _any, _all and _some forms: Test's
// answers without completing anything — every request stays as it was, to
// be waited on, tested or freed later.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/partitioned.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/request_sweeps.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

using namespace mpi;

namespace {

// One live request's state, without completing it: `done`, and when done its
// status and error class (the communicator to raise it on in `comm`).
int status_of(Request& r, bool& done, MPI_Status* status, CommPtr& comm) {
  done = true;
  if (awaiting_pready(r)) [[unlikely]] {
    done = false;
    return MPI_SUCCESS;
  }
  if ((r.persistent && !r.active) || r.engine == nullptr) {
    if (r.kind == RequestKind::null_proc && r.active) {
      fill_proc_null_status(status);
    } else {
      set_empty_status(status);
    }
    return MPI_SUCCESS;
  }
  mpcpi::Status es;
  mpcpi::Errc err = engine().peek(r.engine, done, &es);
  if (r.comm) comm = r.comm.share();
  if (!done) return err == mpcpi::Errc::success ? MPI_SUCCESS : engine_error(err);
  if (err == mpcpi::Errc::any_source_failed && r.kind == RequestKind::recv) {
    done = false;  // ULFM: still active, as MPI_Test answers (request.cc)
    (void)engine_error(err);
    return MPIX_ERR_PROC_FAILED_PENDING;
  }
  if (r.kind == RequestKind::grequest) {
    // Its status is the program's: query_fn says it (free_fn waits for completion).
    set_empty_status(status);
    if (r.greq->error != MPI_SUCCESS || r.greq->query == nullptr || !wants_status(status))
      return r.greq->error;
    return r.greq->query(r.greq->extra_state, status);
  }
  // The data must be in the user's buffer once the flag says so.
  if (r.kind == RequestKind::recv && r.unpack && !es.cancelled) {
    unpack(*r.type, r.buf, r.count, r.staging.data.get(), static_cast<std::int64_t>(es.bytes));
    r.unpack = false;
  }
  int cls = err == mpcpi::Errc::success
                ? MPI_SUCCESS
                : describe_failure(err, *r.comm, es, r.peer, r.tag, r.count, r.type.get());
  fill_request_status(status, r, es, cls);
  return cls;
}

// status_of for the sweeps (request_sweeps.hpp).
int peek(int, Request& r, bool& done, MPI_Status* status, CommPtr& comm) {
  return status_of(r, done, status, comm);
}

}  // namespace

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
  bool done = false;
  CommPtr comm;
  rc = status_of(*r, done, status, comm);
  *flag = done ? 1 : 0;
  return raise(comm.get(), kFn, rc);
}

extern "C" int MPI_Request_get_status_any(int count, const MPI_Request reqs[], int* index,
                                          int* flag, MPI_Status* status) {
  const ApiCall call("MPI_Request_get_status_any");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  const char* fn = call.name();
  if (int rc = check_running(fn)) return rc;
  int rc = check_request_array(count, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(index, "index");
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  poll_detached();
  return sweep_any(fn, count, reqs, index, flag, status, peek);
}

extern "C" int MPI_Request_get_status_all(int count, const MPI_Request reqs[], int* flag,
                                          MPI_Status statuses[]) {
  const ApiCall call("MPI_Request_get_status_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  const char* fn = call.name();
  if (int rc = check_running(fn)) return rc;
  int rc = check_request_array(count, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  poll_detached();
  // The statuses say something only when every request is complete.
  return sweep_all(
      fn, count, reqs, flag, statuses,
      [](int, Request& r, bool& done) {
        CommPtr comm;
        (void)status_of(r, done, MPI_STATUS_IGNORE, comm);  // its error: in the statuses
        return MPI_SUCCESS;
      },
      peek);
}

extern "C" int MPI_Request_get_status_some(int incount, const MPI_Request reqs[], int* outcount,
                                           int indices[], MPI_Status statuses[]) {
  const ApiCall call("MPI_Request_get_status_some");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  const char* fn = call.name();
  if (int rc = check_running(fn)) return rc;
  int rc = check_request_array(incount, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(outcount, "outcount");
  if (rc == MPI_SUCCESS && incount > 0) rc = check_not_null(indices, "array_of_indices");
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  poll_detached();
  return sweep_some(fn, incount, reqs, outcount, indices, statuses, peek);
}
