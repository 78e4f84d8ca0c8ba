// MPI_Test and its multi-request forms (MPI_Request_get_status and its
// forms, which leave requests as they are, are in request_status.cc).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/partitioned.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/request_sweeps.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

using namespace mpi;

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
  return sweep_all(
      kFn, count, reqs, flag, statuses,
      [](int, Request& r, bool& done) { return peek_request(r, done); },
      [reqs](int i, Request&, bool& done, MPI_Status* st, CommPtr& comm) {
        return test_request(&reqs[i], done, st, comm);
      });
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
  return sweep_any(kFn, count, reqs, index, flag, status,
                   [reqs](int i, Request&, bool& done, MPI_Status* st, CommPtr& comm) {
                     return test_request(&reqs[i], done, st, comm);
                   });
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
  return sweep_some(kFn, incount, reqs, outcount, indices, statuses,
                    [reqs](int i, Request&, bool& done, MPI_Status* st, CommPtr& comm) {
                      return test_request(&reqs[i], done, st, comm);
                    });
}
