#pragma once
// MPI requests: what the engine's request does not know (communicator for
// rank translation and error handler, datatype and staging buffer for
// non-contiguous data, persistent arguments).

#include <cstdint>
#include <memory>

#include "mpcpi/mpcpi.hpp"
#include "mpi.h"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/handles.hpp"
#include "mpi/internal/object_ref.hpp"
#include "mpi/internal/request_table.hpp"

namespace mpi {

enum class RequestKind : std::uint8_t {
  send,
  recv,
  null_proc,  // MPI_PROC_NULL peer: complete at once with an empty status
  coll,       // a nonblocking or persistent collective (coll/nonblocking.hpp)
  grequest,   // a generalized request (grequest.hpp)
};

struct CollOp;
struct GRequest;
struct Partitioned;

struct Request {
  RequestKind kind = RequestKind::send;
  bool persistent = false;
  bool active = false;  // started and not yet completed
  // The engine's request while the operation is pending in the engine; null
  // for MPI_PROC_NULL and for sends that completed inside isend (both
  // complete without the engine).
  mpcpi::Request* engine = nullptr;
  ObjectRef<Comm> comm;
  ObjectRef<const Datatype> type;
  void* buf = nullptr;
  int count = 0;
  Staging staging;
  bool unpack = false;  // recv landed in staging
  // Persistent requests keep their arguments for MPI_Start.
  int peer = MPI_PROC_NULL;  // communicator rank: dest or source
  int tag = 0;
  mpcpi::SendMode mode = mpcpi::SendMode::standard;
  std::shared_ptr<CollOp> coll;  // kind coll
  std::shared_ptr<GRequest> greq;  // kind grequest
  std::shared_ptr<Partitioned> part;  // MPI_Psend_init / MPI_Precv_init (partitioned.hpp)

  // Back to the default state (RequestTable::release), touching only what
  // is held: `*this = Request{}` built and tore down every member, about 60
  // instructions on every MPI_Wait of a point-to-point request.
  void reset() {
    kind = RequestKind::send;
    persistent = false;
    active = false;
    engine = nullptr;
    comm.reset();
    type.reset();
    buf = nullptr;
    count = 0;
    if (staging.data) staging = Staging{};
    unpack = false;
    peer = MPI_PROC_NULL;
    tag = 0;
    mode = mpcpi::SendMode::standard;
    if (coll) coll.reset();
    if (greq) greq.reset();
    if (part) part.reset();
  }
};
static_assert(sizeof(Request) == 160, "a new member of Request needs its line in Request::reset()");

extern RequestTable<Request> g_requests;
inline RequestTable<Request>& requests() { return g_requests; }


// Posts r's operation (r.kind, peer, tag, mode, buf, count, type, comm set).
// Marks it active. Returns an MPI class with detail on failure.
[[gnu::noinline]] int start_request(Request& r);

// Posts the engine's part of receive request r (start_request; a receive
// from any source again after a failure, request.cc). An MPI class.
int post_engine_recv(Request& r);
// MPIX_Comm_failure_ack on c: its receives from any source that answered
// MPIX_ERR_PROC_FAILED_PENDING wait normally again.
void revive_any_source(const Comm& c);

// The status of a request that completed without data (MPI_PROC_NULL,
// inactive, null).
void set_empty_status(MPI_Status* status);

// Completes an active request (`r`, the table's request that *handle names;
// never the shared completed one) whose engine part reported completion: unpacks,
// fills *status (may be MPI_STATUS_IGNORE), then frees a non-persistent
// request (handle becomes MPI_REQUEST_NULL) or deactivates a persistent one.
// Returns the operation's MPI class; on an error, `comm_out` names the
// communicator whose handler should see it (left alone on success).
int finish_request(MPI_Request* handle, Request& r, const mpcpi::Status& es, mpcpi::Errc err,
                   MPI_Status* status, CommPtr& comm_out);

// Blocking and non-blocking completion of one handle. A null handle or an
// inactive persistent request completes at once with an empty status.
int wait_request(MPI_Request* handle, MPI_Status* status, CommPtr& comm_out);
int test_request(MPI_Request* handle, bool& done, MPI_Status* status, CommPtr& comm_out);
// Whether a live request (not null, as Testall's sweep finds it) is done,
// without completing or releasing anything.
int peek_request(const Request& r, bool& done);
// The status of a finished receive (source, tag, count, error), or of a
// send or collective (only the error and cancellation).
void fill_request_status(MPI_Status* status, const Request& r, const mpcpi::Status& es, int cls);

// MPI_Request_free on an active request: it completes in the background.
void detach_request(Request&& r);
// Completes detached requests that are done, and polls generalized requests
// that have a poll_fn (grequest.hpp); cheap when there are none. The
// Wait/Test family calls it on entry.
void poll_detached();
// Waits for all detached requests (MPI_Finalize).
void drain_detached();
// Waits for the detached requests on `comm` (MPI_Comm_disconnect).
void drain_detached_on(const Comm& comm);

}  // namespace mpi
