// Blocking and nonblocking sends in the four modes.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/bsend_buffers.hpp"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/p2p_fast.hpp"
#include "mpi/internal/p2p_post.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;

namespace {

// validate -> MPI_PROC_NULL -> contiguous bytes (packed if need be) -> engine.
int blocking_send(const char* fn, const void* buf, int count, MPI_Datatype datatype, int dest,
                  int tag, MPI_Comm comm, mpcpi::SendMode mode) {
  FastP2p f;
  if (fast_send_args(buf, count, datatype, dest, tag, comm, f)) [[likely]] {
    mpcpi::Errc e = engine_send(*f.comm, f.data, f.bytes, f.comm->peer_world_of(dest), tag, mode);
    if (e == mpcpi::Errc::success) [[likely]] return MPI_SUCCESS;
    return raise(f.comm, fn,
                 describe_failure(e, *f.comm, mpcpi::Status{}, dest, tag, count, f.type));
  }
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  if (int rc = validate_send(buf, count, datatype, dest, tag, comm, c, t)) return raise(c, fn, rc);
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  Staging staging;
  SendBytes sb = prepare_send(buf, count, *t, staging);
  mpcpi::Errc e = engine_send(*c, sb.data, sb.bytes, c->peer_world_of(dest), tag, mode);
  if (e == mpcpi::Errc::success) [[likely]] return MPI_SUCCESS;
  return raise(c, fn, describe_failure(e, *c, mpcpi::Status{}, dest, tag, count, t));
}

int nonblocking_send(const char* fn, const void* buf, int count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm, mpcpi::SendMode mode, MPI_Request* request) {
  PostArgs a{RequestKind::send, const_cast<void*>(buf), count, datatype, dest, tag, comm, mode};
  return post_request(fn, a, false, request);
}

}  // namespace

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  const ApiCall call("MPI_Send");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return blocking_send("MPI_Send", buf, count, datatype, dest, tag, comm,
                       mpcpi::SendMode::standard);
}

extern "C" int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  const ApiCall call("MPI_Ssend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return blocking_send("MPI_Ssend", buf, count, datatype, dest, tag, comm,
                       mpcpi::SendMode::synchronous);
}

extern "C" int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  const ApiCall call("MPI_Bsend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return blocking_send("MPI_Bsend", buf, count, datatype, dest, tag, comm,
                       mpcpi::SendMode::buffered);
}

extern "C" int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                         MPI_Comm comm) {
  const ApiCall call("MPI_Rsend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return blocking_send("MPI_Rsend", buf, count, datatype, dest, tag, comm,
                       mpcpi::SendMode::ready);
}

extern "C" LAPIS_FLATTEN_HOT_CALL
int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Isend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return nonblocking_send("MPI_Isend", buf, count, datatype, dest, tag, comm,
                          mpcpi::SendMode::standard, request);
}

extern "C" int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Issend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return nonblocking_send("MPI_Issend", buf, count, datatype, dest, tag, comm,
                          mpcpi::SendMode::synchronous, request);
}

extern "C" int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ibsend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return nonblocking_send("MPI_Ibsend", buf, count, datatype, dest, tag, comm,
                          mpcpi::SendMode::buffered, request);
}

extern "C" int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Irsend");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return nonblocking_send("MPI_Irsend", buf, count, datatype, dest, tag, comm,
                          mpcpi::SendMode::ready, request);
}

static_assert(MPI_BSEND_OVERHEAD >= mpcpi::kBsendOverhead,
              "mpi.h must promise at least the engine's per-message buffered-send overhead");
