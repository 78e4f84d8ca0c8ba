// The buffers of buffered sends: MPI_Buffer_attach/_detach, and MPI 4.1's
// flushes and per-communicator and per-session buffers, with their large-
// count forms (mpi/internal/bsend_buffers.hpp).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/bsend_buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/session.hpp"

using namespace mpi;

namespace {

// `work(owner)` for the process's buffer, errors raised as errors of no object.
template <typename Work>
int on_process(const char* fn, Work work) {
  if (int rc = check_running(fn)) return rc;
  return raise(nullptr, fn, work(process_buffer()));
}

// For the buffer of communicator `comm`, errors raised on it.
template <typename Work>
int on_comm(const char* fn, MPI_Comm comm, Work work) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = work(BufferOwner{&c->bsend_key, "the communicator"});
  return raise(c, fn, rc);
}

// For the buffer of session `session`, errors raised on it.
template <typename Work>
int on_session(const char* fn, MPI_Session session, Work work) {
  if (int rc = check_running(fn)) return rc;
  Session* s = nullptr;
  int rc = lookup_session(session, s);
  if (rc == MPI_SUCCESS) rc = work(BufferOwner{&s->bsend_key, "the session"});
  return raise_on_session(s, fn, rc);
}

// Detach's size in the int form.
int detach_int(BufferOwner owner, void* buffer_addr, int* size) {
  if (int rc = check_not_null(size, "size")) return rc;
  MPI_Count bytes = 0;
  if (int rc = detach_buffer(owner, buffer_addr, bytes)) return rc;
  *size = static_cast<int>(bytes);  // attach took at most INT_MAX
  return MPI_SUCCESS;
}

int detach_count(BufferOwner owner, void* buffer_addr, MPI_Count* size) {
  if (int rc = check_not_null(size, "size")) return rc;
  return detach_buffer(owner, buffer_addr, *size);
}

}  // namespace

// ---- the process's buffer

extern "C" int MPI_Buffer_attach(void* buffer, int size) {
  const ApiCall call("MPI_Buffer_attach");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_process(call.name(), [&](BufferOwner o) { return attach_buffer(o, buffer, size); });
}

extern "C" int MPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  const ApiCall call("MPI_Buffer_attach_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_process(call.name(), [&](BufferOwner o) { return attach_buffer(o, buffer, size); });
}

extern "C" int MPI_Buffer_detach(void* buffer_addr, int* size) {
  const ApiCall call("MPI_Buffer_detach");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_process(call.name(), [&](BufferOwner o) { return detach_int(o, buffer_addr, size); });
}

extern "C" int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  const ApiCall call("MPI_Buffer_detach_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_process(call.name(), [&](BufferOwner o) { return detach_count(o, buffer_addr, size); });
}

extern "C" int MPI_Buffer_flush(void) {
  const ApiCall call("MPI_Buffer_flush");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_process(call.name(), [&](BufferOwner o) { return flush_buffer(o); });
}

extern "C" int MPI_Buffer_iflush(MPI_Request* request) {
  const ApiCall call("MPI_Buffer_iflush");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_process(call.name(), [&](BufferOwner o) { return iflush_buffer(o, request); });
}

// ---- a communicator's

extern "C" int MPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  const ApiCall call("MPI_Comm_attach_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_comm(call.name(), comm, [&](BufferOwner o) { return attach_buffer(o, buffer, size); });
}

extern "C" int MPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  const ApiCall call("MPI_Comm_attach_buffer_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_comm(call.name(), comm, [&](BufferOwner o) { return attach_buffer(o, buffer, size); });
}

extern "C" int MPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  const ApiCall call("MPI_Comm_detach_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_comm(call.name(), comm,
                 [&](BufferOwner o) { return detach_int(o, buffer_addr, size); });
}

extern "C" int MPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  const ApiCall call("MPI_Comm_detach_buffer_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_comm(call.name(), comm,
                 [&](BufferOwner o) { return detach_count(o, buffer_addr, size); });
}

extern "C" int MPI_Comm_flush_buffer(MPI_Comm comm) {
  const ApiCall call("MPI_Comm_flush_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_comm(call.name(), comm, [&](BufferOwner o) { return flush_buffer(o); });
}

extern "C" int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Comm_iflush_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_comm(call.name(), comm,
                 [&](BufferOwner o) { return iflush_buffer(o, request); });
}

// ---- a session's

extern "C" int MPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  const ApiCall call("MPI_Session_attach_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_session(call.name(), session,
                    [&](BufferOwner o) { return attach_buffer(o, buffer, size); });
}

extern "C" int MPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  const ApiCall call("MPI_Session_attach_buffer_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_session(call.name(), session,
                    [&](BufferOwner o) { return attach_buffer(o, buffer, size); });
}

extern "C" int MPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  const ApiCall call("MPI_Session_detach_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_session(call.name(), session,
                    [&](BufferOwner o) { return detach_int(o, buffer_addr, size); });
}

extern "C" int MPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr,
                                           MPI_Count* size) {
  const ApiCall call("MPI_Session_detach_buffer_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_session(call.name(), session,
                    [&](BufferOwner o) { return detach_count(o, buffer_addr, size); });
}

extern "C" int MPI_Session_flush_buffer(MPI_Session session) {
  const ApiCall call("MPI_Session_flush_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_session(call.name(), session, [&](BufferOwner o) { return flush_buffer(o); });
}

extern "C" int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  const ApiCall call("MPI_Session_iflush_buffer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return on_session(call.name(), session,
                    [&](BufferOwner o) { return iflush_buffer(o, request); });
}
