#pragma once
// The common case of the blocking point-to-point calls, checked inline so
// that MPI_Send/MPI_Recv cost a few compares on top of the engine: MPI is
// running, the communicator and datatype are live handles, the datatype is
// committed and contiguous for `count`, the peer is a rank of the
// communicator, the tag is in range, and the buffer is null only when
// nothing moves. Anything else — MPI_PROC_NULL, non-contiguous data,
// MPI_BOTTOM addressing, every error — returns false and takes the general
// path, which checks again and names what is wrong.

#include <cstddef>

#include "mpi.h"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

// What the fast checks found: the communicator and the contiguous bytes.
struct FastP2p {
  Comm* comm = nullptr;
  const Datatype* type = nullptr;
  const CommPtr* comm_slot = nullptr;  // table entries, for requests that keep a ref
  const TypePtr* type_slot = nullptr;
  char* data = nullptr;
  std::size_t bytes = 0;
};

// Communicator, count and datatype of a point-to-point call.
inline bool fast_buffer(const void* buf, int count, MPI_Datatype datatype, MPI_Comm comm,
                        FastP2p& out) {
  State& s = state();
  if (s.phase != Phase::running || count < 0) return false;
  CommPtr* c = s.comms.find(comm);
  TypePtr* t = s.types.find(datatype);
  if (c == nullptr || t == nullptr) return false;
  const Datatype& type = **t;
  if (!type.committed() || !type.contiguous_for(count)) return false;
  out.bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(type.size());
  if (out.bytes == 0) {
    out.data = static_cast<char*>(const_cast<void*>(buf));
  } else if (buf == nullptr) {
    return false;  // an error, or MPI_BOTTOM with absolute displacements
  } else {
    out.data = data_start(buf, type);
  }
  out.comm = c->get();
  out.type = &type;
  out.comm_slot = c;
  out.type_slot = t;
  return true;
}

// MPI_Send and friends: a real destination rank and a tag in 0..MPI_TAG_UB.
inline bool fast_send_args(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                           MPI_Comm comm, FastP2p& out) {
  if (tag < 0 || tag > state().attr_tag_ub) return false;
  if (!fast_buffer(buf, count, datatype, comm, out)) return false;
  return dest >= 0 && dest < out.comm->peer_size();
}

// MPI_Recv: a rank or MPI_ANY_SOURCE, a tag or MPI_ANY_TAG, a status
// pointer (MPI_STATUS_IGNORE or real).
inline bool fast_recv_args(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm comm, const MPI_Status* status, FastP2p& out) {
  if (status == nullptr) return false;
  if (tag != MPI_ANY_TAG && (tag < 0 || tag > state().attr_tag_ub)) return false;
  if (!fast_buffer(buf, count, datatype, comm, out)) return false;
  return source == MPI_ANY_SOURCE || (source >= 0 && source < out.comm->peer_size());
}

}  // namespace mpi
