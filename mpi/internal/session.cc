#include "mpi/internal/session.hpp"

#include <strings.h>

#include <thread>
#include <vector>

#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/memory_kinds.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/grequest.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

// The communicator behind sessions_comm(): every task, slot kSessionsSlot,
// which no other communicator takes (start_library reserves it).
CommPtr make_sessions_comm(const State& s) {
  std::vector<int> all(s.world_size);
  for (int i = 0; i < s.world_size; ++i) all[i] = i;
  auto c = std::make_shared<Comm>();
  c->group = std::make_shared<const Group>(std::move(all));
  c->rank = s.world_rank;
  c->slot = kSessionsSlot;
  c->owns_slot = false;
  c->handle = MPI_COMM_NULL;
  c->errhandler = return_errhandler();
  c->name = "sessions";
  return c;
}

// `first`: the library has just started. Otherwise the level only goes up,
// which is safe within a call: the thread asking is the only one inside MPI
// (the level granted so far lets no other in with it), and the calls after
// this one take the MULTIPLE path.
void grant_thread_level(State& s, int required, bool first) {
  if (!first && required <= s.thread_level) return;
  if (first || required > s.thread_level) s.thread_level = required;
  // Every level is provided as asked (api_call.hpp: how MULTIPLE works).
  ApiCall::on_init(s.thread_level);
  if (s.thread_level == MPI_THREAD_MULTIPLE) engine().set_idle_hook(&idle_in_wait);
}

}  // namespace

int start_library(int required) {
  State& s = state();
  if (s.phase == Phase::running) {
    grant_thread_level(s, required, false);
    return MPI_SUCCESS;
  }
  if (int rc = start_runtime()) return rc;
  s.world_rank = static_cast<int>(lapi_context().task_id());
  s.world_size = static_cast<int>(lapi_context().num_tasks());
  s.main_thread = std::this_thread::get_id();
  grant_thread_level(s, required, true);
  s.attr_tag_ub = mpcpi::kMaxTag;
  s.slots = ContextSlots{};
  s.slots.take(kSessionsSlot);
  install_predefined_objects(s);
  s.sessions_comm = make_sessions_comm(s);
  node_collectives_start();
  s.phase = Phase::running;
  return MPI_SUCCESS;
}

int stop_library_if_unused() {
  State& s = state();
  if (s.phase != Phase::running || s.world == Phase::running || s.live_sessions > 0) {
    return MPI_SUCCESS;
  }
  drain_collectives();  // freed nonblocking collectives still finish
  drain_detached();
  node_collectives_shutdown();  // before the core stops
  s.sessions_comm.reset();
  int rc = stop_runtime();
  // Stopped from here: what the program left (communicators, windows...) is released below,
  // and their deleters must not reach the engine, which is gone.
  s.phase = Phase::finalized;
  requests().clear();
  s.comms.clear();
  s.types.clear();
  s.groups.clear();
  s.errhandlers.clear();
  s.errhandler_gets.clear();
  s.ops.clear();
  s.sessions.clear();
  s.keyvals.clear();  // info objects stay: MPI 4.0 lets them be used and freed after MPI_Finalize
  return rc;
}

const Comm& sessions_comm() { return *state().sessions_comm; }

namespace {
constexpr const char* kLevelNames[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                       "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
static_assert(MPI_THREAD_SINGLE == 0 && MPI_THREAD_MULTIPLE == 3);
}  // namespace

const char* thread_level_name(int level) {
  return level >= 0 && level <= 3 ? kLevelNames[level] : "?";
}

int thread_level_of_name(const char* name) {
  for (int level = 0; level <= 3; ++level) {
    if (strcasecmp(name, kLevelNames[level]) == 0) return level;
  }
  return -1;
}

int lookup_session(MPI_Session handle, Session*& out) {
  out = nullptr;
  if (handle == MPI_SESSION_NULL) return fail(MPI_ERR_SESSION, "session is MPI_SESSION_NULL");
  SessionPtr* p = state().sessions.find(handle);
  if (p == nullptr) {
    return fail(MPI_ERR_SESSION, "session={:#x} is not a session (finalized, or never initialized)",
                handle);
  }
  out = p->get();
  return MPI_SUCCESS;
}

int raise_on_session(const Session* session, const char* function, int code) {
  if (session == nullptr) return raise(nullptr, function, code);
  return raise_session(session->errhandler, session->handle, function, code);
}

const std::string& memory_kinds_of(const Comm& c) {
  const SessionPtr from = c.session.lock();
  return from ? from->memory_kinds : process_memory_kinds();
}

}  // namespace mpi
