// MPI_Wait and its multi-request forms.
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/error_classes.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/partitioned.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;

namespace mpi {

int check_request_array(int count, const MPI_Request* reqs) {
  int rc = check_count(count);
  if (rc == MPI_SUCCESS && count > 0) rc = check_not_null(reqs, "array_of_requests");
  return rc;
}

}  // namespace mpi

namespace {

// Requests of `reqs` that need the engine to complete: their positions and
// engine handles. One that needs no engine (MPI_PROC_NULL, a send that
// completed inside isend) is returned in `ready`.
struct Pending {
  std::vector<int> index;
  std::vector<mpcpi::Request*> engine_reqs;
  int ready = -1;
  int bad = -1;  // position of an invalid handle
};

Pending collect(int count, const MPI_Request reqs[]) {
  Pending p;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    Request* r = requests().find(reqs[i]);
    if (r == nullptr) {
      p.bad = i;
      return p;
    }
    if (r->persistent && !r->active) continue;
    // A partitioned send waiting for MPI_Pready cannot complete during
    // this call (partitioned.hpp): passed over like an inactive request.
    if (awaiting_pready(*r)) [[unlikely]] continue;
    if (r->engine == nullptr) {  // MPI_PROC_NULL, or a send done at once
      if (p.ready < 0) p.ready = i;
      continue;
    }
    p.index.push_back(i);
    p.engine_reqs.push_back(r->engine);
  }
  return p;
}

}  // namespace

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const ApiCall call("MPI_Wait");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Wait";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_ptr(request);
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  CommPtr comm;
  rc = wait_request(request, status, comm);
  return raise(comm.get(), kFn, rc);
}

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  const ApiCall call("MPI_Waitall");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Waitall";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_request_array(count, reqs)) return raise(nullptr, kFn, rc);
  poll_detached();
  int first_error = MPI_SUCCESS;
  CommPtr error_comm;
  std::string detail;
  for (int i = 0; i < count; ++i) {
    CommPtr comm;
    int rc = wait_request(&reqs[i], status_at(statuses, i), comm);
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = rc;
      error_comm = comm;
      detail = fmt::format("array_of_requests[{}]: {}: {}", i, error_class_name(rc), error_detail());
    }
  }
  if (first_error == MPI_SUCCESS) return MPI_SUCCESS;
  set_error_detail(detail);
  return raise(error_comm.get(), kFn, MPI_ERR_IN_STATUS);
}

extern "C" int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  const ApiCall call("MPI_Waitany");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Waitany";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_array(count, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(index, "index");
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  Pending p = collect(count, reqs);
  if (p.bad >= 0) {
    return raise(nullptr, kFn,
                 fail(MPI_ERR_REQUEST, "array_of_requests[{}]={:#x} is not a request", p.bad,
                      reqs[p.bad]));
  }
  CommPtr comm;
  if (p.ready >= 0) {
    *index = p.ready;
    rc = wait_request(&reqs[p.ready], status, comm);
    return raise(comm.get(), kFn, rc);
  }
  if (p.engine_reqs.empty()) {
    *index = MPI_UNDEFINED;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  std::size_t which = 0;
  mpcpi::Status es;
  mpcpi::Errc err = engine().wait_any(p.engine_reqs, which, &es);
  if (which >= p.engine_reqs.size()) return raise(nullptr, kFn, engine_error(err));
  int i = p.index[which];
  *index = i;
  rc = finish_request(&reqs[i], *requests().find(reqs[i]), es, err, status, comm);
  return raise(comm.get(), kFn, rc);
}

extern "C" int MPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                            MPI_Status statuses[]) {
  const ApiCall call("MPI_Waitsome");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Waitsome";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_request_array(incount, reqs);
  if (rc == MPI_SUCCESS) rc = check_not_null(outcount, "outcount");
  if (rc == MPI_SUCCESS && incount > 0) rc = check_not_null(indices, "array_of_indices");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  poll_detached();
  Pending p = collect(incount, reqs);
  if (p.bad >= 0) {
    return raise(nullptr, kFn,
                 fail(MPI_ERR_REQUEST, "array_of_requests[{}]={:#x} is not a request", p.bad,
                      reqs[p.bad]));
  }
  if (p.ready < 0 && p.engine_reqs.empty()) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  int n = 0;
  int first_error = MPI_SUCCESS;
  CommPtr error_comm;
  auto record = [&](int i, int code, CommPtr& comm) {
    indices[n] = i;
    if (code != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = code;
      error_comm = comm;
    }
    ++n;
  };
  if (p.ready < 0) {
    // Block until one completes, then sweep up whatever else is done.
    std::size_t which = 0;
    mpcpi::Status es;
    mpcpi::Errc err = engine().wait_any(p.engine_reqs, which, &es);
    if (which >= p.engine_reqs.size()) return raise(nullptr, kFn, engine_error(err));
    int i = p.index[which];
    CommPtr comm;
    int code = finish_request(&reqs[i], *requests().find(reqs[i]), es, err,
                              status_at(statuses, n), comm);
    record(i, code, comm);
  }
  for (int i = 0; i < incount; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    Request* r = requests().find(reqs[i]);
    if (r == nullptr || (r->persistent && !r->active)) continue;
    bool done = false;
    CommPtr comm;
    int code = test_request(&reqs[i], done, status_at(statuses, n), comm);
    if (done) record(i, code, comm);
  }
  *outcount = n;
  if (first_error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(error_comm.get(), kFn, MPI_ERR_IN_STATUS);
}
