#pragma once
// Creating and posting nonblocking requests (MPI_Isend ..., MPI_Irecv,
// the *_init family).

#include "mpcpi/mpcpi.hpp"
#include "mpi.h"
#include "mpi/internal/request.hpp"

namespace mpi {

struct PostArgs {
  RequestKind kind;
  void* buf;
  int count;
  MPI_Datatype datatype;
  int peer;  // dest or source (communicator rank, or a wildcard / MPI_PROC_NULL)
  int tag;
  MPI_Comm comm;
  mpcpi::SendMode mode = mpcpi::SendMode::standard;
};

// Validates, creates the request and (unless persistent) starts it. On
// success *request is the new handle; on failure the error has been raised.
int post_request(const char* function, const PostArgs& args, bool persistent,
                 MPI_Request* request);

}  // namespace mpi
