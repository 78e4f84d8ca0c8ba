#pragma once
// The loops MPI_Testall/any/some and MPI_Request_get_status_all/any/some share:
// the same skipping of null and inactive requests, the same answers when
// none is live, the same error reporting; `visit` is what each does to a
// live request — complete it (Test) or only look (get_status):
//   int visit(int i, Request& r, bool& done, MPI_Status* status, CommPtr& comm)
// returns the request's error class; `comm` is the communicator to raise it on.

#include "mpi.h"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

namespace mpi {

// The request behind array_of_requests[i], or null for MPI_REQUEST_NULL and
// inactive persistent requests (the forms skip them); an unknown handle
// sets `rc`.
inline Request* live_request_at(const MPI_Request reqs[], int i, int& rc) {
  if (reqs[i] == MPI_REQUEST_NULL) return nullptr;
  Request* r = requests().find(reqs[i]);
  if (r == nullptr) {
    rc = fail(MPI_ERR_REQUEST, "array_of_requests[{}]={:#x} is not a request", i, reqs[i]);
    return nullptr;
  }
  return r->persistent && !r->active ? nullptr : r;
}

// The first live request `visit` finds done: its index and status; *flag 1
// with MPI_UNDEFINED when none is live.
template <class Visit>
int sweep_any(const char* fn, int count, const MPI_Request reqs[], int* index, int* flag,
              MPI_Status* status, Visit visit) {
  bool any_live = false;
  for (int i = 0; i < count; ++i) {
    int rc = MPI_SUCCESS;
    Request* r = live_request_at(reqs, i, rc);
    if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
    if (r == nullptr) continue;
    any_live = true;
    bool done = false;
    CommPtr comm;
    int e = visit(i, *r, done, status, comm);
    if (done || e == MPIX_ERR_PROC_FAILED_PENDING) {  // ULFM: pending names its request, flag 0
      *index = i;
      *flag = done ? 1 : 0;
      return raise(comm.get(), fn, e);
    }
  }
  *index = MPI_UNDEFINED;
  *flag = any_live ? 0 : 1;
  if (!any_live) set_empty_status(status);
  return MPI_SUCCESS;
}

// Every live request `visit` finds done, in order; *outcount MPI_UNDEFINED
// when none is live, MPI_ERR_IN_STATUS when one of them failed.
template <class Visit>
int sweep_some(const char* fn, int incount, const MPI_Request reqs[], int* outcount,
               int indices[], MPI_Status statuses[], Visit visit) {
  int n = 0;
  bool any_live = false;
  int first_error = MPI_SUCCESS;
  CommPtr error_comm;
  for (int i = 0; i < incount; ++i) {
    int rc = MPI_SUCCESS;
    Request* r = live_request_at(reqs, i, rc);
    if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
    if (r == nullptr) continue;
    any_live = true;
    bool done = false;
    CommPtr comm;
    int e = visit(i, *r, done, status_at(statuses, n), comm);
    if (!done && e != MPIX_ERR_PROC_FAILED_PENDING) continue;  // ULFM: listed, still active
    indices[n++] = i;
    if (e != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = e;
      error_comm = comm;
    }
  }
  *outcount = any_live ? n : MPI_UNDEFINED;
  if (first_error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(error_comm.get(), fn, MPI_ERR_IN_STATUS);
}

// All or nothing: when `ready` finds every live request done, `visit` gives
// each its status (null and inactive ones an empty status) and *flag is 1;
// otherwise nothing is touched and *flag is 0. An error `ready` returns is
// the call's.
//   int ready(int i, Request& r, bool& done)
template <class Ready, class Visit>
int sweep_all(const char* fn, int count, const MPI_Request reqs[], int* flag,
              MPI_Status statuses[], Ready ready, Visit visit) {
  for (int i = 0; i < count; ++i) {
    int rc = MPI_SUCCESS;
    Request* r = live_request_at(reqs, i, rc);
    if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
    if (r == nullptr) continue;
    bool done = false;
    if (int e = ready(i, *r, done)) return raise(nullptr, fn, e);
    if (!done) {
      *flag = 0;
      (void)engine().progress();
      return MPI_SUCCESS;
    }
  }
  int first_error = MPI_SUCCESS;
  CommPtr error_comm;
  for (int i = 0; i < count; ++i) {
    int rc = MPI_SUCCESS;
    Request* r = live_request_at(reqs, i, rc);
    if (r == nullptr) {
      if (statuses != MPI_STATUSES_IGNORE) set_empty_status(&statuses[i]);
      continue;
    }
    bool done = false;
    CommPtr comm;
    int e = visit(i, *r, done, status_at(statuses, i), comm);
    if (e != MPI_SUCCESS && first_error == MPI_SUCCESS) {
      first_error = e;
      error_comm = comm;
    }
  }
  *flag = 1;
  if (first_error == MPI_SUCCESS) return MPI_SUCCESS;
  return raise(error_comm.get(), fn, MPI_ERR_IN_STATUS);
}

}  // namespace mpi
