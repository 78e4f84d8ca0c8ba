// Receives, MPI_Sendrecv and MPI_Sendrecv_replace.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/p2p_fast.hpp"
#include "mpi/internal/p2p_post.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;

namespace {

// A receive posted straight on the engine (no MPI request object), for the
// blocking calls.
struct DirectRecv {
  Staging staging;
  RecvBytes rb;
  mpcpi::Request* req = nullptr;
  void* buf = nullptr;
  int count = 0;
  const Datatype* type = nullptr;

  mpcpi::Errc post(const Comm& c, void* b, int n, const Datatype& t, int source, int tag) {
    buf = b, count = n, type = &t;
    rb = prepare_recv(b, n, t, staging);
    return engine().irecv(rb.data, rb.capacity, engine_source(c, source), engine_tag(tag),
                          c.context(ContextKind::p2p), req);
  }

  // Waits, unpacks, fills the status; returns the MPI class.
  int finish(const Comm& c, int source, int tag, MPI_Status* status) {
    mpcpi::Status es;
    mpcpi::Errc e = engine().wait(req, &es);
    req = nullptr;
    if (rb.unpack && !es.cancelled) {
      unpack(*type, buf, count, staging.data.get(), static_cast<std::int64_t>(es.bytes));
    }
    int cls = e == mpcpi::Errc::success ? MPI_SUCCESS
                                        : describe_failure(e, c, es, source, tag, count, type);
    fill_status(status, c, es, es.bytes, cls);
    return cls;
  }
};

}  // namespace

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status* status) {
  const ApiCall call("MPI_Recv");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Recv";
  FastP2p f;
  if (fast_recv_args(buf, count, datatype, source, tag, comm, status, f)) [[likely]] {
    mpcpi::Status es;
    mpcpi::Errc e = engine().recv(f.data, f.bytes, engine_source(*f.comm, source), engine_tag(tag),
                                  f.comm->context(ContextKind::p2p), &es);
    if (e == mpcpi::Errc::success) [[likely]] {
      fill_status(status, *f.comm, es, es.bytes, MPI_SUCCESS);
      return MPI_SUCCESS;
    }
    int cls = describe_failure(e, *f.comm, es, source, tag, count, f.type);
    fill_status(status, *f.comm, es, es.bytes, cls);
    return raise(f.comm, kFn, cls);
  }
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = validate_recv(buf, count, datatype, source, tag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (source == MPI_PROC_NULL) {
    fill_proc_null_status(status);
    return MPI_SUCCESS;
  }
  if (t->contiguous_for(count)) [[likely]] {
    mpcpi::Status es;
    std::size_t bytes = static_cast<std::size_t>(count) * t->size();
    mpcpi::Errc e = engine().recv(bytes == 0 ? buf : data_start(buf, *t), bytes,
                                  engine_source(*c, source), engine_tag(tag),
                                  c->context(ContextKind::p2p), &es);
    int cls = e == mpcpi::Errc::success ? MPI_SUCCESS
                                        : describe_failure(e, *c, es, source, tag, count, t);
    fill_status(status, *c, es, es.bytes, cls);
    return raise(c, kFn, cls);
  }
  DirectRecv r;
  if (mpcpi::Errc e = r.post(*c, buf, count, *t, source, tag); e != mpcpi::Errc::success) {
    return raise(c, kFn, engine_error(e));
  }
  return raise(c, kFn, r.finish(*c, source, tag, status));
}

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Irecv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  PostArgs a{RequestKind::recv, buf, count, datatype, source, tag, comm};
  return post_request("MPI_Irecv", a, false, request);
}

namespace {

// Receive posted first so that a pairwise exchange cannot deadlock, then a
// blocking send of `out` (already contiguous), then the receive completes.
int exchange(const char* fn, const Comm& c, SendBytes out, int dest, int sendtag, void* recvbuf,
             int recvcount, const Datatype& rtype, int source, int recvtag, MPI_Status* status) {
  DirectRecv r;
  if (source != MPI_PROC_NULL) {
    if (mpcpi::Errc e = r.post(c, recvbuf, recvcount, rtype, source, recvtag);
        e != mpcpi::Errc::success) {
      return raise(&c, fn, engine_error(e));
    }
  }
  int send_rc = MPI_SUCCESS;
  std::string send_detail;
  if (dest != MPI_PROC_NULL) {
    mpcpi::Errc e = engine().send(out.data, out.bytes, c.peer_world_of(dest), sendtag,
                                  c.context(ContextKind::p2p), mpcpi::SendMode::standard);
    if (e != mpcpi::Errc::success) {
      send_rc = describe_failure(e, c, mpcpi::Status{}, dest, sendtag, 0, nullptr);
      send_detail = error_detail();
      if (r.req != nullptr) (void)engine().cancel(r.req);
    }
  }
  int recv_rc = MPI_SUCCESS;
  if (r.req != nullptr) {
    recv_rc = r.finish(c, source, recvtag, status);
  } else {
    fill_proc_null_status(status);
  }
  if (send_rc != MPI_SUCCESS) {
    set_error_detail(send_detail);
    return raise(&c, fn, send_rc);
  }
  return raise(&c, fn, recv_rc);
}

}  // namespace

extern "C" int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                            int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  const ApiCall call("MPI_Sendrecv");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Sendrecv";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype *st = nullptr, *rt = nullptr;
  int rc = validate_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, c, st);
  if (rc == MPI_SUCCESS) {
    rc = validate_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, c, rt);
  }
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  Staging staging;
  SendBytes out = prepare_send(sendbuf, sendcount, *st, staging);
  return exchange(kFn, *c, out, dest, sendtag, recvbuf, recvcount, *rt, source, recvtag, status);
}

extern "C" int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag, MPI_Comm comm,
                                    MPI_Status* status) {
  const ApiCall call("MPI_Sendrecv_replace");
  const KeepStatusError keep_error(status);
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Sendrecv_replace";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = validate_send(buf, count, datatype, dest, sendtag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = validate_recv(buf, count, datatype, source, recvtag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = check_status_ptr(status);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // The outgoing data is copied out first: the receive lands in `buf`. With
  // no destination nothing is sent, so nothing is copied (count may be huge).
  Staging copy;
  const std::size_t bytes =
      dest == MPI_PROC_NULL ? 0 : static_cast<std::size_t>(count) * t->size();
  if (bytes > 0) {
    if (!copy.try_allocate(bytes)) {
      return raise(c, kFn, fail(MPI_ERR_NO_MEM, "cannot copy count={} elements ({} bytes) to send",
                                count, bytes));
    }
    pack(*t, buf, count, copy.data.get());
  }
  return exchange(kFn, *c, SendBytes{copy.data.get(), bytes}, dest, sendtag, buf, count, *t,
                  source, recvtag, status);
}
