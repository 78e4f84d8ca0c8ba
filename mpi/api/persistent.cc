// Persistent requests: *_init, MPI_Start, MPI_Startall.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/p2p_post.hpp"

using namespace mpi;

namespace {

int send_init(const char* fn, const void* buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, mpcpi::SendMode mode, MPI_Request* request) {
  PostArgs a{RequestKind::send, const_cast<void*>(buf), count, datatype, dest, tag, comm, mode};
  return post_request(fn, a, true, request);
}

// Starts one inactive persistent request. `index` < 0 for MPI_Start.
int start_one(MPI_Request handle, int index, Request*& r) {
  r = requests().find(handle);
  if (r == nullptr || !r->persistent) {
    if (index < 0) return fail(MPI_ERR_REQUEST, "request={:#x} is not a persistent request", handle);
    return fail(MPI_ERR_REQUEST, "array_of_requests[{}]={:#x} is not a persistent request", index,
                handle);
  }
  if (r->active) {
    return fail(MPI_ERR_REQUEST, "request={:#x} is already active (complete it first)", handle);
  }
  return start_request(*r);
}

}  // namespace

extern "C" int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Send_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm,
                   mpcpi::SendMode::standard, request);
}

extern "C" int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ssend_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm,
                   mpcpi::SendMode::synchronous, request);
}

extern "C" int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Bsend_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm,
                   mpcpi::SendMode::buffered, request);
}

extern "C" int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Rsend_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm,
                   mpcpi::SendMode::ready, request);
}

extern "C" int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Recv_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  PostArgs a{RequestKind::recv, buf, count, datatype, source, tag, comm};
  return post_request("MPI_Recv_init", a, true, request);
}

extern "C" int MPI_Start(MPI_Request* request) {
  const ApiCall call("MPI_Start");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Start";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_request_ptr(request)) return raise(nullptr, kFn, rc);
  Request* r = nullptr;
  int rc = start_one(*request, -1, r);
  return raise(r ? r->comm.get() : nullptr, kFn, rc);
}

extern "C" int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  const ApiCall call("MPI_Startall");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Startall";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_count(count);
  if (rc == MPI_SUCCESS && count > 0) rc = check_not_null(array_of_requests, "array_of_requests");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  for (int i = 0; i < count; ++i) {
    Request* r = nullptr;
    if (int e = start_one(array_of_requests[i], i, r)) return raise(r ? r->comm.get() : nullptr, kFn, e);
  }
  return MPI_SUCCESS;
}
