#include "mpi/internal/p2p_post.hpp"

#include "mpi/internal/bsend_buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/p2p_fast.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
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

// A request for the call's arguments (validated; f's table slots set), or null when the handle
// space is exhausted.
Request* new_request(const PostArgs& a, const FastP2p& f, bool persistent, MPI_Request& h) {
  Request* r = requests().acquire(h);
  if (r == nullptr) return nullptr;
  r->kind = a.peer == MPI_PROC_NULL ? RequestKind::null_proc : a.kind;
  r->persistent = persistent;
  r->comm.assign(*f.comm_slot, resolved_is_predefined(a.comm));
  r->type.assign(*f.type_slot, resolved_is_predefined(a.datatype));
  r->buf = a.buf;
  r->count = a.count;
  r->peer = a.peer;
  r->tag = a.tag;
  r->mode = a.mode;
  return r;
}

int too_many_requests(const char* function, const FastP2p& f) {
  return raise(f.comm_slot->get(), function, fail(MPI_ERR_INTERN, "too many requests"));
}

// A send or receive of contiguous data with a rank (fast_post_args): the engine first, so that
// a send that completes inside the call needs no request of ours either — it gets the shared
// completed handle (request_table.hpp), and MPI_Wait on it costs a compare.
int post_contiguous(const char* function, const PostArgs& a, const FastP2p& f, MPI_Request* request) {
  const Comm& c = *f.comm;
  const std::uint32_t context = c.context(ContextKind::p2p);
  mpcpi::Request* pending = nullptr;
  mpcpi::Errc e;
  if (a.kind == RequestKind::send) {
    bool done_now = false;
    e = engine_isend(c, f.data, f.bytes, c.peer_world_of(a.peer), a.tag, a.mode, pending, &done_now);
    if (e == mpcpi::Errc::success && done_now) {
      *request = RequestTable<Request>::kCompletedHandle;
      return MPI_SUCCESS;
    }
  } else {
    e = engine().irecv(f.data, f.bytes, engine_source(c, a.peer), engine_tag(a.tag), context, pending,
                       true);
  }
  if (e != mpcpi::Errc::success) [[unlikely]] return raise(f.comm, function, engine_error(e));
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = new_request(a, f, false, h);
  if (r == nullptr) [[unlikely]] {
    // A receive must not land later, unwatched; a send still completes.
    if (a.kind == RequestKind::recv) (void)engine().cancel(pending);
    (void)engine().request_free(pending);
    return too_many_requests(function, f);
  }
  r->engine = pending;
  r->active = true;
  *request = h;
  return MPI_SUCCESS;
}

// The request for validated arguments (f's table slots set), started unless persistent.
int post_new_request(const char* function, const PostArgs& a, const FastP2p& f, bool persistent,
                     MPI_Request* request) {
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = new_request(a, f, persistent, h);
  if (r == nullptr) return too_many_requests(function, f);
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

}  // namespace

int post_request(const char* function, const PostArgs& args, bool persistent, MPI_Request* request) {
  FastP2p f;
  if (fast_post_args(args, request, f)) [[likely]] {
    if (!persistent) [[likely]] return post_contiguous(function, args, f, request);
    return post_new_request(function, args, f, persistent, request);
  }
  if (int rc = validate_post_args(function, args, request)) return rc;
  PostArgs a = args;
  a.datatype = p2p_datatype(a.datatype, a.peer);
  f.comm_slot = state().comms.find(a.comm);
  f.type_slot = state().types.find(a.datatype);
  return post_new_request(function, a, f, persistent, request);
}

}  // namespace mpi
