#include "mpi/internal/p2p_post.hpp"

#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

int post_request(const char* function, const PostArgs& a, bool persistent, MPI_Request* request) {
  if (int rc = check_running(function)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = a.kind == RequestKind::send
               ? validate_send(a.buf, a.count, a.datatype, a.peer, a.tag, a.comm, c, t)
               : validate_recv(a.buf, a.count, a.datatype, a.peer, a.tag, a.comm, c, t);
  if (rc == MPI_SUCCESS) rc = check_request_ptr(request);
  if (rc != MPI_SUCCESS) return raise(c, function, rc);

  Request r;
  r.kind = a.peer == MPI_PROC_NULL ? RequestKind::null_proc : a.kind;
  r.persistent = persistent;
  CommPtr* cp = state().comms.find(a.comm);
  TypePtr* tp = state().types.find(a.datatype);
  r.comm = *cp;
  r.type = *tp;
  r.buf = a.buf;
  r.count = a.count;
  r.peer = a.peer;
  r.tag = a.tag;
  r.mode = a.mode;
  MPI_Request h = requests().insert(std::move(r));
  if (h == MPI_REQUEST_NULL) return raise(c, function, fail(MPI_ERR_INTERN, "too many requests"));
  if (!persistent) {
    rc = start_request(*requests().find(h));
    if (rc != MPI_SUCCESS) {
      requests().erase(h);
      return raise(c, function, rc);
    }
  }
  *request = h;
  return MPI_SUCCESS;
}

}  // namespace mpi
