// Generalized requests: MPI_Grequest_start, MPI_Grequest_complete
// (mpi/internal/grequest.hpp).
#include <memory>
#include <vector>

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
// Live requests with a poll_fn (MPIX_Grequest_start), in start order.
std::vector<std::shared_ptr<GRequest>> g_polled;
bool g_polling = false;  // poll_fn may call Wait/Test, which would poll again

std::uint32_t self_context() {
  return (*state().comms.find(MPI_COMM_SELF))->context(ContextKind::reserved2);
}

// The zero-byte message that completes the request's receive (see grequest.hpp).
int complete_grequest(GRequest& g) {
  g.completed = true;
  mpcpi::Request* req = nullptr;
  bool done = false;
  mpcpi::Errc e = engine().isend(nullptr, 0, state().world_rank, g.tag, self_context(),
                                 mpcpi::SendMode::standard, req, &done);
  if (e == mpcpi::Errc::success && !done) (void)engine().request_free(req);
  return engine_error(e);
}

// A poll_fn or wait_fn that failed ends its request with that error.
[[gnu::cold, gnu::noinline]] void fail_grequest(GRequest& g, int rc, const char* callback) {
  g.error = rc;
  set_error_detail(fmt::format("the request's {} failed", callback));
  if (!g.completed) (void)complete_grequest(g);
}

bool live(const GRequest& g) { return !g.completed && !g.freed; }

}  // namespace

int start_grequest(const char* function, std::shared_ptr<GRequest> g, MPI_Request* request) {
  if (int rc = check_running(function)) return rc;
  return raise(nullptr, function, open_grequest(std::move(g), request));
}

int open_grequest(std::shared_ptr<GRequest> g, MPI_Request* request) {
  if (int rc = check_request_ptr(request)) return rc;
  g->tag = kGrequestTagBase + g_next_tag;
  g_next_tag = (g_next_tag + 1) & 0x3fffffff;
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = requests().acquire(h);
  if (r == nullptr) return fail(MPI_ERR_INTERN, "too many requests");
  r->kind = RequestKind::grequest;
  mpcpi::Errc e = engine().irecv(nullptr, 0, state().world_rank, g->tag, self_context(), r->engine);
  if (e != mpcpi::Errc::success) {
    requests().release(h);
    return engine_error(e);
  }
  if (g->poll != nullptr || g->ready != nullptr) {
    // Below MPI_THREAD_MULTIPLE the engine has an idle hook only while such a
    // request lives (without one, blocking waits may sleep in lapi); one
    // thread is in MPI, so setting it races with no wait.
    if (g_polled.empty() && state().thread_level != MPI_THREAD_MULTIPLE)
      engine().set_idle_hook(&idle_in_wait);
    g_polled.push_back(g);
  }
  r->greq = std::move(g);
  r->active = true;
  *request = h;
  return MPI_SUCCESS;
}

void poll_grequests() {
  if (g_polled.empty() || g_polling) return;
  g_polling = true;
  // By index: a poll_fn may start another request, which appends.
  for (std::size_t i = 0; i < g_polled.size(); ++i) {
    std::shared_ptr<GRequest> g = g_polled[i];
    if (!live(*g)) continue;
    if (g->ready != nullptr) {
      if (g->ready(g->extra_state)) (void)complete_grequest(*g);
      continue;
    }
    MPI_Status scratch;
    set_empty_status(&scratch);
    if (int rc = g->poll(g->extra_state, &scratch); rc != MPI_SUCCESS)
      fail_grequest(*g, rc, "poll_fn");
  }
  std::erase_if(g_polled, [](const std::shared_ptr<GRequest>& g) { return !live(*g); });
  // The last one gone: waits may sleep in lapi again (MULTIPLE keeps its hook).
  if (g_polled.empty() && state().thread_level != MPI_THREAD_MULTIPLE)
    engine().set_idle_hook(nullptr);
  g_polling = false;
}

void wait_grequest(GRequest& g) {
  if (g.wait == nullptr || !live(g)) return;
  void* state = g.extra_state;
  MPI_Status scratch;
  set_empty_status(&scratch);
  // A timeout of 0 asks wait_fn to block until the request completes, as MPICH's Waitall does.
  if (int rc = g.wait(1, &state, 0.0, &scratch); rc != MPI_SUCCESS) fail_grequest(g, rc, "wait_fn");
}

void idle_in_wait() {
  ApiCall::release_for_idle();
  poll_grequests();
}

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
  int rc = g.error;
  if (rc == MPI_SUCCESS && g.query != nullptr) {
    rc = g.query(g.extra_state, &local);
    if (rc != MPI_SUCCESS) set_error_detail("the request's query_fn failed");
  }
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
  auto g = std::make_shared<GRequest>();
  g->query = query_fn;
  g->free = free_fn;
  g->cancel = cancel_fn;
  g->extra_state = extra_state;
  return start_grequest(call.name(), std::move(g), request);
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
  return raise(nullptr, kFn, complete_grequest(*r->greq));
}
