#pragma once
// Generalized requests (MPI_Grequest_start / _complete): the program's
// callbacks, and a zero-byte receive from this process (on MPI_COMM_SELF's
// reserved2 context, tags from kGrequestTagBase, apart from the
// collectives' completion tags) that MPI_Grequest_complete matches, so
// Wait/Test and all their forms need no special case to wait for one.
//
// MPICH's extension (MPIX_Grequest_start, MPIX_Grequest_class_create and
// _allocate) adds a poll_fn, which lets a request progress itself without a
// thread of its own: it is called, while the request is neither complete nor
// freed, at the start of every Wait/Test-family call and in every idle spin
// of a blocking wait, until it calls MPI_Grequest_complete. A wait_fn is
// called by MPI_Wait and MPI_Waitall on such a request before they block on
// it (MPICH calls it from its Waitall the same way); Waitany, Waitsome and
// the Test forms rely on poll_fn alone.

#include <memory>

#include "mpi.h"

namespace mpi {

inline constexpr int kGrequestTagBase = 0x40000000;

struct GRequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  MPIX_Grequest_poll_function* poll = nullptr;
  MPIX_Grequest_wait_function* wait = nullptr;
  // The library's own requests (MPI_Buffer_iflush): polled like poll_fn,
  // the request completes once it returns true.
  bool (*ready)(void* extra_state) = nullptr;
  void* extra_state = nullptr;
  int tag = 0;
  int error = MPI_SUCCESS;  // a failed poll_fn or wait_fn, returned at completion
  bool completed = false;  // MPI_Grequest_complete was called
  bool freed = false;      // free_fn has run
};

// Completion inside Wait/Test: query_fn fills the status, then free_fn
// runs. Returns query_fn's error (or free_fn's), MPI_SUCCESS otherwise.
int finish_grequest(GRequest& g, MPI_Status* status);
// MPI_Request_free of a generalized request: free_fn runs now.
int free_grequest(GRequest& g);

// A started generalized request in `*request` (callbacks and state in `g`).
int start_grequest(const char* function, std::shared_ptr<GRequest> g, MPI_Request* request);
// start_grequest's work once the library runs: an MPI class, raised by the caller.
int open_grequest(std::shared_ptr<GRequest> g, MPI_Request* request);
// Calls poll_fn of the live requests that have one (see above).
void poll_grequests();
// MPI_Wait/Waitall on `g`: its wait_fn, when it has one and is not complete.
[[gnu::noinline]] void wait_grequest(GRequest& g);
// The engine's idle hook: under MPI_THREAD_MULTIPLE it lets other threads
// in (ApiCall::release_for_idle); at every level it polls (poll_grequests).
void idle_in_wait();

}  // namespace mpi
