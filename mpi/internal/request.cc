#include "mpi/internal/request.hpp"

#include <algorithm>
#include <vector>

#include "mpi/internal/api_call.hpp"
#include "mpi/internal/bsend_buffers.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/partitioned.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

namespace mpi {
namespace {

std::vector<Request> g_detached;
// Receives from any source reported MPIX_ERR_PROC_FAILED_PENDING, posted
// again (revive_any_source looks at them when the failure is acknowledged).
// Handles are checked when used: one may have completed or been reused.
std::vector<MPI_Request> g_pending_any_source;

// The shared request behind RequestTable::kCompletedHandle.
Request completed_send() {
  Request r;
  r.active = true;  // started, and done without the engine (engine null)
  return r;
}

}  // namespace

void fill_request_status(MPI_Status* status, const Request& r, const mpcpi::Status& es, int cls) {
  if (r.kind == RequestKind::recv) {
    fill_status(status, *r.comm, es, es.bytes, cls);
  } else if (wants_status(status)) {
    set_empty_status(status);
    status->MPI_ERROR = cls;
    set_status_cancelled(*status, es.cancelled);
  }
}

RequestTable<Request> g_requests(completed_send());

void set_empty_status(MPI_Status* status) {
  if (!wants_status(status)) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
}

int start_request(Request& r) {
  if (r.part) [[unlikely]] return start_partitioned(r);
  if (r.kind == RequestKind::coll) return start_collective(r);
  if (r.kind == RequestKind::null_proc) {
    r.active = true;
    return MPI_SUCCESS;
  }
  if (r.kind == RequestKind::send) {
    const Comm& c = *r.comm;
    SendBytes sb = prepare_send(r.buf, r.count, *r.type, r.staging);
    // A send that completes inside isend leaves r.engine null: like an
    // MPI_PROC_NULL request, it then completes without the engine.
    bool done_now = false;
    const mpcpi::Errc e = engine_isend(c, sb.data, sb.bytes, c.peer_world_of(r.peer), r.tag, r.mode,
                                       r.engine, &done_now);
    if (e != mpcpi::Errc::success) return engine_error(e);
  } else if (int rc = post_engine_recv(r)) {
    return rc;
  }
  r.active = true;
  return MPI_SUCCESS;
}

int post_engine_recv(Request& r) {
  const Comm& c = *r.comm;
  RecvBytes rb = prepare_recv(r.buf, r.count, *r.type, r.staging);
  r.unpack = rb.unpack;
  return engine_error(engine().irecv(rb.data, rb.capacity, engine_source(c, r.peer), engine_tag(r.tag),
                                     c.context(ContextKind::p2p), r.engine, true));
}

namespace {

// ULFM: a receive from any source that a member's unacknowledged failure
// stopped (mpcpi's any_source_failed) is not complete: it stays active, is
// posted again (which fails at once while the failure is unacknowledged,
// so every Wait or Test answers MPIX_ERR_PROC_FAILED_PENDING), and
// revive_any_source posts it for real once MPIX_Comm_failure_ack
// acknowledged the failure; a message that arrives meanwhile matches it.
// False if the engine refused to post it (it then completes with the failure).
[[gnu::cold, gnu::noinline]] bool keep_pending(MPI_Request handle, Request& r) {
  r.engine = nullptr;  // the caller releases the stopped one
  if (post_engine_recv(r) != MPI_SUCCESS) return false;
  if (std::find(g_pending_any_source.begin(), g_pending_any_source.end(), handle) == g_pending_any_source.end())
    g_pending_any_source.push_back(handle);
  return true;
}

// Whether r's engine request is a receive from any source stopped by an
// unacknowledged failure.
bool stopped_any_source(const Request& r) {
  if (r.kind != RequestKind::recv || r.engine == nullptr) return false;
  bool done = false;
  mpcpi::Status es;
  const mpcpi::Errc err = engine().peek(r.engine, done, &es);
  return done && err == mpcpi::Errc::any_source_failed;
}

}  // namespace

void revive_any_source(const Comm& c) {
  std::vector<MPI_Request> still;
  for (MPI_Request h : g_pending_any_source) {
    Request* r = requests().find(h);
    if (r == nullptr || !r->active || !stopped_any_source(*r)) continue;  // completed, freed or reused
    if (r->comm.get() != &c) {  // another communicator's
      still.push_back(h);
      continue;
    }
    engine().release_done(r->engine);
    r->engine = nullptr;
    if (post_engine_recv(*r) != MPI_SUCCESS || stopped_any_source(*r)) still.push_back(h);
  }
  g_pending_any_source = std::move(still);
}

int finish_request(MPI_Request* handle, Request& r, const mpcpi::Status& es, mpcpi::Errc err,
                   MPI_Status* status, CommPtr& comm_out) {
  int cls;
  if (r.kind == RequestKind::grequest) {
    cls = err == mpcpi::Errc::success ? finish_grequest(*r.greq, status) : engine_error(err);
    comm_out = r.comm.release();
    requests().release_found(*handle, &r);
    *handle = MPI_REQUEST_NULL;
    return cls;
  }
  if (err == mpcpi::Errc::any_source_failed && r.kind == RequestKind::recv && keep_pending(*handle, r))
      [[unlikely]] {
    (void)describe_failure(err, *r.comm, es, r.peer, r.tag, r.count, r.type.get());  // the detail
    cls = MPIX_ERR_PROC_FAILED_PENDING;
    fill_request_status(status, r, es, cls);
    comm_out = r.comm.share();
    return cls;
  }
  if (r.kind == RequestKind::coll) {
    cls = collective_result(*r.coll, err);
  } else {
    cls = err == mpcpi::Errc::success
              ? MPI_SUCCESS
              : describe_failure(err, *r.comm, es, r.peer, r.tag, r.count, r.type.get());
  }
  if (r.kind == RequestKind::recv && r.unpack && !es.cancelled) {
    unpack(*r.type, r.buf, r.count, r.staging.data.get(), static_cast<std::int64_t>(es.bytes));
  }
  if (r.kind == RequestKind::null_proc) {
    fill_proc_null_status(status);
  } else if (r.kind == RequestKind::coll && r.coll->status && wants_status(status)) {
    *status = *r.coll->status;  // MPI_Isendrecv: its receive's
    status->MPI_ERROR = cls;
  } else {
    fill_request_status(status, r, es, cls);
  }
  // Only an error's handler needs the communicator: a success takes no
  // shared_ptr (a copy and a release per request in an MPI_Waitall).
  if (cls != MPI_SUCCESS) comm_out = r.comm.share();
  if (r.persistent) {
    r.engine = nullptr;
    r.active = false;
  } else {
    requests().release_found(*handle, &r);
    *handle = MPI_REQUEST_NULL;
  }
  return cls;
}

namespace {

// Null handle, inactive persistent request or unknown handle: the answers
// that need no engine. Returns true when `rc` is final.
bool trivial_completion(MPI_Request* handle, MPI_Status* status, Request*& r, int& rc) {
  rc = MPI_SUCCESS;
  if (*handle == RequestTable<Request>::kCompletedHandle) {
    set_empty_status(status);  // a send's: no error, not cancelled
    *handle = MPI_REQUEST_NULL;
    return true;
  }
  if (*handle == MPI_REQUEST_NULL) {
    set_empty_status(status);
    return true;
  }
  r = requests().find(*handle);
  if (r == nullptr) {
    rc = fail(MPI_ERR_REQUEST, "request={:#x} is not a request", *handle);
    return true;
  }
  if (r->persistent && !r->active) {
    set_empty_status(status);
    return true;
  }
  return false;
}

// A nonpersistent send or receive of contiguous data, waited for in place:
// the status goes from the engine's request straight into *status, and a
// success takes none of finish_request's turns (the common MPI_Waitall).
int wait_plain(MPI_Request* handle, Request& r, MPI_Status* status, CommPtr& comm_out) {
  mpcpi::Request* const done = r.engine;  // r is reset when its slot goes back
  const mpcpi::Status& es = engine().wait_in_place(done);
  if (es.error != mpcpi::Errc::success) [[unlikely]] {
    const int rc = finish_request(handle, r, es, es.error, status, comm_out);
    engine().release_done(done);
    return rc;
  }
  fill_request_status(status, r, es, MPI_SUCCESS);
  engine().release_done(done);
  requests().release_found(*handle, &r);
  *handle = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

// A partitioned send whose partitions are not all ready: under
// MPI_THREAD_MULTIPLE other threads may still mark them (MPI_Pready), so
// the wait drives progress and lets them in (the MPI lock dropped between
// checks, as mpcpi's waits do) until the last one posts the send. At lower
// levels no other thread can call MPI while this one waits: refused, since
// the wait could never return. `r` is looked up again after each drop
// (another thread's calls may move the request table).
[[gnu::noinline]] int wait_for_pready(MPI_Request* handle, Request*& r) {
  if (!detail::g_multiple) {
    return fail(MPI_ERR_REQUEST,
                "request={:#x} is a partitioned send with partitions not marked ready "
                "(MPI_Pready): waiting for it would never return",
                *handle);
  }
  while (awaiting_pready(*r)) {
    (void)engine().progress();
    ApiCall::release_for_idle();
    r = requests().find(*handle);
    if (r == nullptr) return fail(MPI_ERR_REQUEST, "request={:#x} was freed while waited for", *handle);
  }
  return MPI_SUCCESS;
}

}  // namespace

int wait_request(MPI_Request* handle, MPI_Status* status, CommPtr& comm_out) {
  Request* r = nullptr;
  int rc;
  if (trivial_completion(handle, status, r, rc)) return rc;
  if (r->engine != nullptr && !r->persistent && !r->unpack &&
      (r->kind == RequestKind::recv || r->kind == RequestKind::send)) [[likely]] {
    return wait_plain(handle, *r, status, comm_out);
  }
  // Partitioned requests are persistent: never on the plain path above.
  if (awaiting_pready(*r)) [[unlikely]] {
    if (int rc = wait_for_pready(handle, r)) return rc;
  }
  if (r->kind == RequestKind::grequest) [[unlikely]] wait_grequest(*r->greq);
  mpcpi::Status es;
  mpcpi::Errc err = mpcpi::Errc::success;
  if (r->engine != nullptr) err = engine().wait(r->engine, &es);
  return finish_request(handle, *r, es, err, status, comm_out);
}

int test_request(MPI_Request* handle, bool& done, MPI_Status* status, CommPtr& comm_out) {
  Request* r = nullptr;
  int rc;
  done = true;
  if (trivial_completion(handle, status, r, rc)) return rc;
  if (awaiting_pready(*r)) [[unlikely]] {
    done = false;
    return MPI_SUCCESS;
  }
  mpcpi::Status es;
  mpcpi::Errc err = mpcpi::Errc::success;
  if (r->engine != nullptr) {
    err = engine().test(r->engine, done, &es);
    if (!done) return err == mpcpi::Errc::success ? MPI_SUCCESS : engine_error(err);
  }
  rc = finish_request(handle, *r, es, err, status, comm_out);
  if (rc == MPIX_ERR_PROC_FAILED_PENDING) done = false;  // still active (keep_pending)
  return rc;
}

int peek_request(const Request& r, bool& done) {
  done = true;
  if (awaiting_pready(r)) [[unlikely]] {
    done = false;
    return MPI_SUCCESS;
  }
  if ((r.persistent && !r.active) || r.engine == nullptr) return MPI_SUCCESS;
  mpcpi::Status es;
  mpcpi::Errc err = engine().peek(r.engine, done, &es);
  if (!done && err != mpcpi::Errc::success) return engine_error(err);
  return MPI_SUCCESS;
}

void detach_request(Request&& r) {
  if (r.kind == RequestKind::null_proc || !r.active || r.engine == nullptr) return;
  if (!r.unpack && r.staging.size == 0) {
    // Nothing of ours to keep alive: the engine releases it when done.
    (void)engine().request_free(r.engine);
    return;
  }
  g_detached.push_back(std::move(r));
  poll_detached();
}

void poll_detached() {
  poll_grequests();
  if (g_detached.empty()) return;
  for (std::size_t i = 0; i < g_detached.size();) {
    Request& r = g_detached[i];
    bool done = false;
    mpcpi::Status es;
    (void)engine().test(r.engine, done, &es);
    if (!done) {
      ++i;
      continue;
    }
    if (r.kind == RequestKind::recv && r.unpack && !es.cancelled) {
      unpack(*r.type, r.buf, r.count, r.staging.data.get(), static_cast<std::int64_t>(es.bytes));
    }
    g_detached[i] = std::move(g_detached.back());
    g_detached.pop_back();
  }
}

void drain_detached_on(const Comm& comm) {
  // Taken out first: a wait may give up the MPI lock, and another thread's
  // poll_detached() then reorders g_detached.
  std::vector<Request> mine;
  for (std::size_t i = 0; i < g_detached.size();) {
    if (g_detached[i].comm.get() != &comm) {
      ++i;
      continue;
    }
    mine.push_back(std::move(g_detached[i]));
    g_detached[i] = std::move(g_detached.back());
    g_detached.pop_back();
  }
  for (Request& r : mine) {
    mpcpi::Status es;
    (void)engine().wait(r.engine, &es);
    if (r.kind == RequestKind::recv && r.unpack && !es.cancelled) {
      unpack(*r.type, r.buf, r.count, r.staging.data.get(), static_cast<std::int64_t>(es.bytes));
    }
  }
}

void drain_detached() {
  for (Request& r : g_detached) {
    mpcpi::Status es;
    (void)engine().wait(r.engine, &es);
    if (r.kind == RequestKind::recv && r.unpack && !es.cancelled) {
      unpack(*r.type, r.buf, r.count, r.staging.data.get(), static_cast<std::int64_t>(es.bytes));
    }
  }
  g_detached.clear();
}

}  // namespace mpi
