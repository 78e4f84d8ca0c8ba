#include "mpi/internal/p2p_post.hpp"

#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/p2p_fast.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

// The inline checks of the blocking calls (p2p_fast.hpp) for a request:
// true when the arguments are certainly valid; false sends the call
// through the full validation, which names what is wrong.
bool fast_post_args(const PostArgs& a, const MPI_Request* request, FastP2p& f) {
  if (request == nullptr) return false;
  if (a.kind == RequestKind::send)
    return fast_send_args(a.buf, a.count, a.datatype, a.peer, a.tag, a.comm, f);
  return fast_recv_args(a.buf, a.count, a.datatype, a.peer, a.tag, a.comm, MPI_STATUS_IGNORE, f);
}

int validate_post_args(const char* function, const PostArgs& a, const MPI_Request* request) {
  if (int rc = check_running(function)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = a.kind == RequestKind::send
               ? validate_send(a.buf, a.count, a.datatype, a.peer, a.tag, a.comm, c, t)
               : validate_recv(a.buf, a.count, a.datatype, a.peer, a.tag, a.comm, c, t);
  if (rc == MPI_SUCCESS) rc = check_request_ptr(request);
  return rc == MPI_SUCCESS ? MPI_SUCCESS : raise(c, function, rc);
}

}  // namespace

int post_request(const char* function, const PostArgs& a, bool persistent, MPI_Request* request) {
  FastP2p f;
  if (!fast_post_args(a, request, f)) [[unlikely]] {
    if (int rc = validate_post_args(function, a, request)) return rc;
    f.comm_slot = state().comms.find(a.comm);
    f.type_slot = state().types.find(a.datatype);
  }
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = requests().acquire(h);
  if (r == nullptr) {
    return raise(f.comm_slot->get(), function, fail(MPI_ERR_INTERN, "too many requests"));
  }
  r->kind = a.peer == MPI_PROC_NULL ? RequestKind::null_proc : a.kind;
  r->persistent = persistent;
  r->comm.assign(*f.comm_slot, state().comms.is_predefined(a.comm));
  r->type.assign(*f.type_slot, state().types.is_predefined(a.datatype));
  r->buf = a.buf;
  r->count = a.count;
  r->peer = a.peer;
  r->tag = a.tag;
  r->mode = a.mode;
  if (!persistent) {
    if (int rc = start_request(*r); rc != MPI_SUCCESS) [[unlikely]] {
      CommPtr comm = r->comm.release();
      requests().release(h);
      return raise(comm.get(), function, rc);
    }
  }
  *request = h;
  return MPI_SUCCESS;
}

}  // namespace mpi
