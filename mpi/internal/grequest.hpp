#pragma once
// Generalized requests (MPI_Grequest_start / _complete): the program's
// callbacks, and a zero-byte receive from this process (on MPI_COMM_SELF's
// reserved2 context, tags from kGrequestTagBase, apart from the
// collectives' completion tags) that MPI_Grequest_complete matches, so
// Wait/Test and all their forms need no special case to wait for one.

#include "mpi.h"

namespace mpi {

inline constexpr int kGrequestTagBase = 0x40000000;

struct GRequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  int tag = 0;
  bool completed = false;  // MPI_Grequest_complete was called
  bool freed = false;      // free_fn has run
};

// Completion inside Wait/Test: query_fn fills the status, then free_fn
// runs. Returns query_fn's error (or free_fn's), MPI_SUCCESS otherwise.
int finish_grequest(GRequest& g, MPI_Status* status);
// MPI_Request_free of a generalized request: free_fn runs now.
int free_grequest(GRequest& g);

}  // namespace mpi
