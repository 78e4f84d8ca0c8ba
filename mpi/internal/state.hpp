#pragma once
// The process-wide MPI state that needs no communication: phase, handle
// tables, keyvals, context slots. (The lapi context and mpcpi engine live in
// runtime.hpp.)
//
// Threading: touched only by the thread inside an MPI call; under
// MPI_THREAD_MULTIPLE, only by the thread holding the MPI lock
// (api_call.hpp).

#include <array>
#include <map>
#include <thread>

#include "mpi.h"
#include "mpi/internal/coll/ops.hpp"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/errhandler.hpp"
#include "mpi/internal/group.hpp"
#include "mpi/internal/handles.hpp"
#include "mpi/internal/info.hpp"
#include "mpi/internal/mpich_cxx.hpp"
#include "mpi/internal/session.hpp"

namespace mpi {

enum class Phase { before_init, running, finalized };

struct Keyval : AttrCallbacks {
  bool freed = false;  // MPI_Comm_free_keyval: no new values, callbacks still run
};

// The first keyval handed to users: an indirect keyval handle, apart from
// the predefined ones of mpi.h (builtin kind) and MPI_KEYVAL_INVALID.
inline constexpr int kFirstUserKeyval = make_handle(HandleKind::keyval, 1);

struct State {
  // The library's phase: running while the world model or a session uses
  // it (session.hpp); finalized once it stopped (a session may start it
  // again).
  Phase phase = Phase::before_init;
  // The world model's own phase (MPI_Init ... MPI_Finalize): what
  // MPI_Initialized and MPI_Finalized report.
  Phase world = Phase::before_init;
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
  int world_rank = 0;
  int world_size = 1;

  HandleTable<CommPtr> comms{HandleKind::comm};
  HandleTable<TypePtr> types{HandleKind::datatype};
  HandleTable<GroupPtr> groups{HandleKind::group};
  HandleTable<ErrhandlerPtr> errhandlers{HandleKind::errhandler};
  // User handler handles MPI_Comm/Win_get_errhandler handed out again:
  // how many MPI_Errhandler_free calls each still owes (errhandler.hpp).
  std::map<int, int> errhandler_gets;
  HandleTable<OpPtr> ops{HandleKind::op};
  HandleTable<InfoPtr> infos{HandleKind::info};
  HandleTable<SessionPtr> sessions{HandleKind::session};
  int live_sessions = 0;
  // session.hpp's sessions_comm() (null while the library is not running).
  CommPtr sessions_comm;
  std::map<int, Keyval> keyvals;
  // MPI_Comm_get_parent's answer: the inter-communicator to the job that spawned this one
  // (MPI_COMM_NULL: none, or freed/disconnected since).
  MPI_Comm parent_comm = MPI_COMM_NULL;
  // The lapiruns MPI_Comm_spawn started here, waited for at MPI_Finalize.
  std::vector<int> spawned_launchers;
  // MPI_Type_create_f90_*: one handle per (combiner, p, r), made on first use (type_f90.cc).
  std::map<std::array<int, 3>, MPI_Datatype> f90_types;
  int next_keyval = kFirstUserKeyval;
  ContextSlots slots;

  // MPI_COMM_WORLD's handler, kept after MPI_Finalize so that calls made
  // then still report through what the program chose.
  ErrhandlerPtr world_errhandler;

  // Values the predefined attributes point at (stable addresses).
  int attr_tag_ub = 0;
  int attr_host = MPI_PROC_NULL;
  int attr_io = MPI_ANY_SOURCE;
  int attr_wtime_is_global = 0;
  int attr_universe_size = 1;
  int attr_appnum = 0;
  // MPI_ERR_LASTCODE, as MPICH starts it (MPI: MPI_LASTUSEDCODE is never
  // below MPI_ERR_LASTCODE; MPICH's baseattr2 test checks it).
  int attr_lastusedcode = MPI_ERR_LASTCODE;
};

// A plain global (not a function-local static): every MPI call reads it,
// and no MPI call can happen during static initialisation.
extern State g_state;
inline State& state() { return g_state; }

// Fills the tables with the predefined objects (communicators excluded).
void install_predefined_objects(State& s);

// Shared error handler objects behind MPI_ERRORS_ARE_FATAL / _RETURN.
ErrhandlerPtr fatal_errhandler();
ErrhandlerPtr return_errhandler();

}  // namespace mpi
