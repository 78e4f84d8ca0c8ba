// Generalized requests: MPI_Grequest_start, MPI_Grequest_complete
// (mpi/internal/grequest.hpp).
#include <memory>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/status_fields.hpp"

using namespace mpi;

namespace mpi {
namespace {

int g_next_tag = 0;

std::uint32_t self_context() {
  return (*state().comms.find(MPI_COMM_SELF))->context(ContextKind::reserved2);
}

}  // namespace

int free_grequest(GRequest& g) {
  if (g.freed) return MPI_SUCCESS;
  g.freed = true;
  int rc = g.free ? g.free(g.extra_state) : MPI_SUCCESS;
  if (rc != MPI_SUCCESS) set_error_detail("the request's free_fn failed");
  return rc;
}

int finish_grequest(GRequest& g, MPI_Status* status) {
  MPI_Status local;
  set_empty_status(&local);
  int rc = g.query ? g.query(g.extra_state, &local) : MPI_SUCCESS;
  if (rc != MPI_SUCCESS) set_error_detail("the request's query_fn failed");
  if (wants_status(status)) *status = local;
  int rc2 = free_grequest(g);
  return rc != MPI_SUCCESS ? rc : rc2;
}

}  // namespace mpi

extern "C" int MPI_Grequest_start(MPI_Grequest_query_function* query_fn,
                                  MPI_Grequest_free_function* free_fn,
                                  MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                  MPI_Request* request) {
  const ApiCall call("MPI_Grequest_start");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Grequest_start";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_request_ptr(request)) return raise(nullptr, kFn, rc);
  auto g = std::make_shared<GRequest>();
  g->query = query_fn;
  g->free = free_fn;
  g->cancel = cancel_fn;
  g->extra_state = extra_state;
  g->tag = kGrequestTagBase + g_next_tag;
  g_next_tag = (g_next_tag + 1) & 0x3fffffff;
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = requests().acquire(h);
  if (r == nullptr) return raise(nullptr, kFn, fail(MPI_ERR_INTERN, "too many requests"));
  r->kind = RequestKind::grequest;
  mpcpi::Errc e = engine().irecv(nullptr, 0, state().world_rank, g->tag, self_context(), r->engine);
  if (e != mpcpi::Errc::success) {
    requests().release(h);
    return raise(nullptr, kFn, engine_error(e));
  }
  r->greq = std::move(g);
  r->active = true;
  *request = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Grequest_complete(MPI_Request request) {
  const ApiCall call("MPI_Grequest_complete");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Grequest_complete";
  if (int rc = check_running(kFn)) return rc;
  Request* r = request == MPI_REQUEST_NULL ? nullptr : requests().find(request);
  int rc = MPI_SUCCESS;
  if (r == nullptr || r->kind != RequestKind::grequest) {
    rc = fail(MPI_ERR_REQUEST, "request={:#x} is not a generalized request", request);
  } else if (r->greq->completed) {
    rc = fail(MPI_ERR_REQUEST, "request={:#x} is already complete", request);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  r->greq->completed = true;
  mpcpi::Request* req = nullptr;
  bool done = false;
  mpcpi::Errc e = engine().isend(nullptr, 0, state().world_rank, r->greq->tag, self_context(),
                                 mpcpi::SendMode::standard, req, &done);
  if (e == mpcpi::Errc::success && !done) (void)engine().request_free(req);
  return raise(nullptr, kFn, engine_error(e));
}
