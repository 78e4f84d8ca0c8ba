// Probe, matched probe and matched receive.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/message.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

HandleTable<MatchedMessage>& messages() {
  static HandleTable<MatchedMessage> table = [] {
    HandleTable<MatchedMessage> t{HandleKind::message};
    t.insert_at(MPI_MESSAGE_NO_PROC, MatchedMessage{});
    return t;
  }();
  return table;
}

}  // namespace mpi

using namespace mpi;

namespace {

// The four probe calls differ in two ways only: whether they wait for a
// message (MPI_Probe, MPI_Mprobe) or report through `flag` whether one is
// there (MPI_Iprobe, MPI_Improbe), and whether they take the message out of
// matching into an MPI_Message for MPI_(I)mrecv (MPI_Mprobe, MPI_Improbe).
struct ProbeCall {
  const char* fn;
  bool waits;
  bool matches;
};

// Arguments the call uses: flag only when it does not wait, message only
// when it matches.
int validate_probe(const ProbeCall& call, int source, int tag, MPI_Comm comm, const int* flag,
                   const MPI_Message* message, const MPI_Status* status, Comm*& c) {
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_source(*c, source);
  if (rc == MPI_SUCCESS) rc = check_recv_tag(tag);
  if (rc == MPI_SUCCESS && !call.waits) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS && call.matches) rc = check_not_null(message, "message");
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  return rc;
}

// The engine's probe of that kind. `found`: a message is there (always, once
// a waiting call returns); `msg`: the message a matching call took.
int engine_probe(const ProbeCall& call, const Comm& c, int source, int tag, bool& found,
                 mpcpi::Message*& msg, mpcpi::Status& es) {
  const int src = engine_source(c, source);
  const int etag = engine_tag(tag);
  const std::uint32_t context = c.context(ContextKind::p2p);
  mpcpi::Errc code;
  if (call.matches) {
    code = call.waits ? engine().mprobe(src, etag, context, msg, &es)
                      : engine().improbe(src, etag, context, msg, &es);
    found = call.waits || msg != nullptr;
  } else if (call.waits) {
    code = engine().probe(src, etag, context, &es);
    found = true;
  } else {
    code = engine().iprobe(src, etag, context, found, &es);
  }
  return engine_error(code);
}

int store_message(mpcpi::Message* msg, Comm* c, MPI_Message* message) {
  CommPtr* cp = state().comms.find(c->handle);
  MPI_Message h = messages().insert(MatchedMessage{msg, *cp});
  if (h == MPI_MESSAGE_NULL) return fail(MPI_ERR_INTERN, "too many matched messages");
  *message = h;
  return MPI_SUCCESS;
}

// `flag` and `message` are written only by the calls that have them.
int probe(const ProbeCall& call, int source, int tag, MPI_Comm comm, int* flag,
          MPI_Message* message, MPI_Status* status) {
  if (int rc = check_running(call.fn)) return rc;
  Comm* c = nullptr;
  int rc = validate_probe(call, source, tag, comm, flag, message, status, c);
  if (rc != MPI_SUCCESS) return raise(c, call.fn, rc);
  if (source == MPI_PROC_NULL) {
    if (!call.waits) *flag = 1;
    if (call.matches) *message = MPI_MESSAGE_NO_PROC;
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mpcpi::Status es;
  mpcpi::Message* msg = nullptr;
  bool found = false;
  rc = engine_probe(call, *c, source, tag, found, msg, es);
  if (rc == MPI_SUCCESS && call.matches && found) rc = store_message(msg, c, message);
  if (rc != MPI_SUCCESS) return raise(c, call.fn, rc);
  if (!call.waits) *flag = found ? 1 : 0;
  if (found) fill_status(status, *c, es, es.message_bytes, MPI_SUCCESS);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const ApiCall call("MPI_Probe");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return probe({"MPI_Probe", /*waits=*/true, /*matches=*/false}, source, tag, comm, nullptr,
               nullptr, status);
}

extern "C" int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  const ApiCall call("MPI_Iprobe");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return probe({"MPI_Iprobe", /*waits=*/false, /*matches=*/false}, source, tag, comm, flag,
               nullptr, status);
}

extern "C" int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                           MPI_Status* status) {
  const ApiCall call("MPI_Improbe");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return probe({"MPI_Improbe", /*waits=*/false, /*matches=*/true}, source, tag, comm, flag,
               message, status);
}

extern "C" int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                          MPI_Status* status) {
  const ApiCall call("MPI_Mprobe");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return probe({"MPI_Mprobe", /*waits=*/true, /*matches=*/true}, source, tag, comm, nullptr,
               message, status);
}

namespace {

// Looks up *message for a matched receive; NO_PROC sets `no_proc`.
int take_message(MPI_Message* message, MatchedMessage& out, bool& no_proc) {
  no_proc = false;
  if (int rc = check_not_null(message, "message")) return rc;
  if (*message == MPI_MESSAGE_NO_PROC) {
    no_proc = true;
    return MPI_SUCCESS;
  }
  MatchedMessage* m = messages().find(*message);
  if (m == nullptr || *message == MPI_MESSAGE_NO_PROC) {
    return fail(MPI_ERR_REQUEST, "message={:#x} is not a message from MPI_Mprobe/MPI_Improbe",
                *message);
  }
  out = *m;
  return MPI_SUCCESS;
}

// Count, datatype and buffer of a matched receive.
int validate_mrecv_buffer(void* buf, int count, MPI_Datatype datatype, TypePtr& t) {
  int rc = check_count(count);
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(buf, count, *t);
  return rc;
}

int matched_recv(const char* kFn, void* buf, int count, MPI_Datatype datatype,
                 MPI_Message* message, MPI_Request* request) {
  MatchedMessage m;
  bool no_proc = false;
  TypePtr t;
  int rc = take_message(message, m, no_proc);
  if (rc == MPI_SUCCESS) rc = validate_mrecv_buffer(buf, count, datatype, t);
  if (rc == MPI_SUCCESS) rc = check_request_ptr(request);
  if (rc != MPI_SUCCESS) return raise(m.comm.get(), kFn, rc);
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = requests().acquire(h);
  if (r == nullptr) return raise(m.comm.get(), kFn, fail(MPI_ERR_INTERN, "too many requests"));
  r->kind = no_proc ? RequestKind::null_proc : RequestKind::recv;
  r->active = true;
  // Matched receives are not the hot path: the request simply shares
  // ownership of the message's communicator and the datatype.
  r->comm = {no_proc ? *state().comms.find(MPI_COMM_SELF) : m.comm, false};
  r->type = ObjectRef<const Datatype>(t, false);
  r->buf = buf;
  r->count = count;
  r->peer = MPI_ANY_SOURCE;
  r->tag = MPI_ANY_TAG;
  if (!no_proc) {
    RecvBytes rb = prepare_recv(buf, count, *t, r->staging);
    r->unpack = rb.unpack;
    rc = engine_error(engine().imrecv(m.msg, rb.data, rb.capacity, r->engine));
    if (rc != MPI_SUCCESS) {
      requests().release(h);
      return raise(m.comm.get(), kFn, rc);
    }
    messages().erase(*message);
  }
  *message = MPI_MESSAGE_NULL;
  *request = h;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                          MPI_Request* request) {
  const ApiCall call("MPI_Imrecv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Imrecv";
  if (int rc = check_running(kFn)) return rc;
  return matched_recv(kFn, buf, count, datatype, message, request);
}

extern "C" int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                         MPI_Status* status) {
  const ApiCall call("MPI_Mrecv");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Mrecv";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_status_ptr(status)) return raise(nullptr, kFn, rc);
  MPI_Request req = MPI_REQUEST_NULL;
  if (int rc = matched_recv(kFn, buf, count, datatype, message, &req)) return rc;
  CommPtr comm;
  int rc = wait_request(&req, status, comm);
  return raise(comm.get(), kFn, rc);
}
