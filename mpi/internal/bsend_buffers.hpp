#pragma once
// The buffers of buffered sends (MPI 4.1 section 3.6): the process's
// (MPI_Buffer_attach), a communicator's (MPI_Comm_attach_buffer) and a
// session's (MPI_Session_attach_buffer), each the engine's buffer under a
// key. A buffered send on a communicator uses its own buffer, else its
// session's, else the process's. MPI_BUFFER_AUTOMATIC attaches an
// automatic buffer: each message a heap block of its own.

#include <cstddef>
#include <cstdint>

#include "mpcpi/mpcpi.hpp"
#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {

// A buffer's owner: the process (key fixed at kProcessBuffer), or a
// communicator or session, whose key is 0 while nothing is attached.
struct BufferOwner {
  std::uint64_t* key = nullptr;  // null: the process
  const char* what = "the process";
};
inline BufferOwner process_buffer() { return {}; }

// The buffer a buffered send on `c` copies into.
mpcpi::Engine::BufferKey bsend_buffer_of(const Comm& c);

// The engine's send and isend on `c`'s point-to-point context to task
// `to`; in buffered mode into bsend_buffer_of(c).
inline mpcpi::Errc engine_send(const Comm& c, const void* data, std::size_t bytes, int to, int tag,
                               mpcpi::SendMode mode) {
  const std::uint32_t context = c.context(ContextKind::p2p);
  if (mode == mpcpi::SendMode::buffered)
    return engine().bsend(data, bytes, to, tag, context, bsend_buffer_of(c));
  return engine().send(data, bytes, to, tag, context, mode);
}
inline mpcpi::Errc engine_isend(const Comm& c, const void* data, std::size_t bytes, int to,
                                int tag, mpcpi::SendMode mode, mpcpi::Request*& out,
                                bool* done_now) {
  const std::uint32_t context = c.context(ContextKind::p2p);
  if (mode == mpcpi::SendMode::buffered) [[unlikely]]
    return engine().ibsend(data, bytes, to, tag, context, bsend_buffer_of(c), out);
  return engine().isend(data, bytes, to, tag, context, mode, out, done_now);
}

// The calls' work, arguments checked here (size as MPI_Count, so the _c
// forms share it); each returns an MPI class with the detail recorded.
int attach_buffer(BufferOwner owner, void* buffer, MPI_Count size);
// `buffer_addr` receives the address attached (MPI_BUFFER_AUTOMATIC for an
// automatic buffer), `size` its size; NULL and 0 when none was.
int detach_buffer(BufferOwner owner, void* buffer_addr, MPI_Count& size);
int flush_buffer(BufferOwner owner);
int iflush_buffer(BufferOwner owner, MPI_Request* request);

}  // namespace mpi
