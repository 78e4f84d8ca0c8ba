#pragma once
// MPI 4.0 sessions (MPI_Session_init ... MPI_Session_finalize): the
// objects behind MPI_Session handles, and the library's life between the
// world model and the sessions.
//
// The library (lapi context, mpcpi engine, handle tables: Phase in
// state.hpp) runs while the world model (MPI_Init ... MPI_Finalize) or at
// least one session does. It starts with the first of MPI_Init(_thread) and
// MPI_Session_init, and stops with the last of MPI_Finalize and
// MPI_Session_finalize; a later MPI_Session_init starts it again (the
// world model itself cannot be initialised twice). Stopping is collective
// over the job (the core's term), so every process must start and stop it
// as often as the others, which the standard's rules for both models give.
//
// Threading: like everything in state.hpp, only the thread inside an MPI
// call (holding the MPI lock under MPI_THREAD_MULTIPLE) touches these.

#include <memory>
#include <string>

#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/errhandler.hpp"

namespace mpi {

struct Session {
  MPI_Session handle = MPI_SESSION_NULL;
  ErrhandlerPtr errhandler;
  // The level this session asked for (MPI_Session_get_info reports what
  // the process provides, which is at least this).
  int thread_level = MPI_THREAD_SINGLE;
  // The engine's key of the buffer attached to it (MPI_Session_attach_buffer; 0: none).
  std::uint64_t bsend_key = 0;
  // The memory kinds it asked for that Lapis supports (memory_kinds.hpp).
  std::string memory_kinds;
};
using SessionPtr = std::shared_ptr<Session>;

// The internal communicator over every task of the job, slot kSessionsSlot,
// made when the library starts: MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups agree on new communicators over it
// (they have no parent), keyed by their string tags. Never in a handle
// table. Valid while the library runs.
inline constexpr int kSessionsSlot = 2;

// Starts the library unless it runs already, and raises the process's
// thread level to at least `required` (levels only go up: a session asking
// for MPI_THREAD_MULTIPLE after MPI_Init(SINGLE) gets it for the whole
// process). Returns an MPI class with the detail recorded; raises nothing.
int start_library(int required);

// Stops the library if neither the world model nor any session uses it.
// Collective over the job when it stops. Returns an MPI class.
int stop_library_if_unused();

// A live session; MPI_ERR_SESSION naming the argument when there is none
// (never initialised, finalised, or MPI_SESSION_NULL).
int lookup_session(MPI_Session handle, Session*& out);
// Errors of a call on `session`: its handler if it is one, else the
// handler for errors of no object (MPI_COMM_WORLD's, or fatal).
int raise_on_session(const Session* session, const char* function, int code);

// The memory kinds supported for objects made from `c` (MPI 4.1): its
// session's, or the world model's.
const std::string& memory_kinds_of(const Comm& c);

// The hidden communicator of kSessionsSlot.
const Comm& sessions_comm();

// "MPI_THREAD_MULTIPLE" for MPI_THREAD_MULTIPLE, ...; the level of such a
// name (case-insensitive), or -1.
const char* thread_level_name(int level);
int thread_level_of_name(const char* name);

}  // namespace mpi
