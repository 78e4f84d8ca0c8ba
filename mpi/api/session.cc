// MPI 4.0 sessions: MPI_Session_init / finalize, process sets, session
// error handlers, MPI_Group_from_session_pset. How the library runs for
// sessions and the world model together: internal/session.hpp.
#include <strings.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/bsend_buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/memory_kinds.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// The process sets every session has (MPI 4.0 11.3.2); names compare
// without regard to case ("mpi://world" is mpi://WORLD).
constexpr const char* kPsetNames[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int kPsets = 2;

int find_pset(const char* name, int& index) {
  if (name == nullptr) return fail(MPI_ERR_ARG, "pset_name is NULL");
  for (int i = 0; i < kPsets; ++i) {
    if (strcasecmp(name, kPsetNames[i]) == 0) {
      index = i;
      return MPI_SUCCESS;
    }
  }
  return fail(MPI_ERR_ARG, "pset_name='{}' is not a process set (there are mpi://WORLD and mpi://SELF)",
              name);
}

// The members (task ids) of pset `index`.
std::vector<int> pset_members(int index) {
  const State& s = state();
  if (index == 1) return {s.world_rank};
  std::vector<int> all(s.world_size);
  for (int i = 0; i < s.world_size; ++i) all[i] = i;
  return all;
}

// The handler behind `handle`: the predefined ones are known before the
// library's tables are (MPI_Session_init starts it).
int find_errhandler(MPI_Errhandler handle, ErrhandlerPtr& out) {
  if (handle == MPI_ERRORS_RETURN) out = return_errhandler();
  if (handle == MPI_ERRORS_ARE_FATAL || handle == MPI_ERRORS_ABORT) out = fatal_errhandler();
  return out ? MPI_SUCCESS : lookup_errhandler(handle, out);
}

// The "thread_level" key of MPI_Session_init's info (MPI 4.0 11.3.1):
// MPI_THREAD_SINGLE when absent.
int requested_level(MPI_Info info, int& level) {
  level = MPI_THREAD_SINGLE;
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  InfoPtr hints;
  if (int rc = lookup_info(info, hints, "info")) return rc;
  const std::string* v = hints->find("thread_level");
  if (v == nullptr) return MPI_SUCCESS;
  level = thread_level_of_name(v->c_str());
  if (level < 0) {
    return fail(MPI_ERR_ARG,
                "info key thread_level='{}' is not MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, "
                "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE",
                *v);
  }
  return MPI_SUCCESS;
}

// The "mpi_memory_alloc_kinds" key of MPI_Session_init's info (MPI 4.1),
// supported; absent, the world model's. Checked by requested_level.
std::string requested_memory_kinds(MPI_Info info) {
  InfoPtr hints;
  if (info == MPI_INFO_NULL || lookup_info(info, hints, "info") != MPI_SUCCESS) {
    return process_memory_kinds();
  }
  const std::string* v = hints->find(kMemoryKindsKey);
  return v != nullptr ? supported_memory_kinds(*v) : process_memory_kinds();
}

// An info argument of the pset queries: MPI_INFO_NULL or a live object.
int check_query_info(MPI_Info info) {
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  InfoPtr hints;
  return lookup_info(info, hints, "info");
}

// MPI_Session_init and MPI_Session_finalize may be called by several
// threads at once whatever the thread level (MPI 4.0 11.3.1: libraries
// initialise their sessions independently): they take turns here, before
// their ApiCall, so the second does not meet the first inside MPI. Taken
// only outside any MPI call (recursive: a handler the first raises may
// call them again).
std::recursive_mutex g_session_turns;

}  // namespace

extern "C" int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const std::lock_guard turn(g_session_turns);
  const ApiCall call("MPI_Session_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_init";
  ErrhandlerPtr handler;
  if (int rc = find_errhandler(errhandler, handler)) return raise(nullptr, kFn, rc);
  int level = MPI_THREAD_SINGLE;
  int rc = check_not_null(session, "session");
  if (rc == MPI_SUCCESS) rc = requested_level(info, level);
  if (rc == MPI_SUCCESS) rc = start_library(level);
  if (rc != MPI_SUCCESS) return raise_session(handler, MPI_SESSION_NULL, kFn, rc);
  State& s = state();
  auto obj = std::make_shared<Session>(Session{MPI_SESSION_NULL, handler, level});
  obj->memory_kinds = requested_memory_kinds(info);
  const MPI_Session h = s.sessions.insert(obj);
  if (h == MPI_SESSION_NULL) {
    (void)stop_library_if_unused();
    return raise_session(handler, MPI_SESSION_NULL, kFn, fail(MPI_ERR_INTERN, "too many sessions"));
  }
  obj->handle = h;
  ++s.live_sessions;
  *session = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_finalize(MPI_Session* session) {
  const std::lock_guard turn(g_session_turns);
  const ApiCall call("MPI_Session_finalize");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_finalize";
  if (int rc = check_not_null(session, "session")) return raise(nullptr, kFn, rc);
  Session* sp = nullptr;
  if (int rc = lookup_session(*session, sp)) return raise(nullptr, kFn, rc);
  // Its buffer's messages leave first (MPI 4.1: as MPI_Session_detach_buffer).
  MPI_Count size = 0;
  void* buffer = nullptr;
  if (int rc = detach_buffer(BufferOwner{&sp->bsend_key, "the session"}, &buffer, size))
    return raise_on_session(sp, kFn, rc);
  State& s = state();
  const SessionPtr keep = *s.sessions.find(*session);  // its handler outlives the table
  s.sessions.erase(*session);
  --s.live_sessions;
  *session = MPI_SESSION_NULL;
  // The last user of the library stops it (collective over the job).
  return raise_session(keep->errhandler, keep->handle, kFn, stop_library_if_unused());
}

extern "C" int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int* npset_names) {
  const ApiCall call("MPI_Session_get_num_psets");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_get_num_psets";
  Session* sp = nullptr;
  int rc = lookup_session(session, sp);
  if (rc == MPI_SUCCESS) rc = check_query_info(info);
  if (rc == MPI_SUCCESS) rc = check_not_null(npset_names, "npset_names");
  if (rc != MPI_SUCCESS) return raise_on_session(sp, kFn, rc);
  *npset_names = kPsets;
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int* pset_len,
                                        char* pset_name) {
  const ApiCall call("MPI_Session_get_nth_pset");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_get_nth_pset";
  Session* sp = nullptr;
  int rc = lookup_session(session, sp);
  if (rc == MPI_SUCCESS) rc = check_query_info(info);
  if (rc == MPI_SUCCESS && (n < 0 || n >= kPsets)) {
    rc = fail(MPI_ERR_ARG, "n={} is not a process set index (0..{})", n, kPsets - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(pset_len, "pset_len");
  if (rc == MPI_SUCCESS && *pset_len < 0) {
    rc = fail(MPI_ERR_ARG, "*pset_len={} is negative", *pset_len);
  }
  if (rc == MPI_SUCCESS && *pset_len > 0) rc = check_not_null(pset_name, "pset_name");
  if (rc != MPI_SUCCESS) return raise_on_session(sp, kFn, rc);
  // *pset_len 0 asks for the length; otherwise the name is copied, cut to
  // fit *pset_len bytes with its terminator. Either way *pset_len becomes
  // the name's length with the terminator (MPI 4.0 11.3.2, as MPICH).
  const int len = static_cast<int>(std::strlen(kPsetNames[n]));
  if (*pset_len > 0) {
    const int copy = std::min(len, *pset_len - 1);
    std::memcpy(pset_name, kPsetNames[n], static_cast<std::size_t>(copy));
    pset_name[copy] = '\0';
  }
  *pset_len = len + 1;
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  const ApiCall call("MPI_Session_get_pset_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_get_pset_info";
  Session* sp = nullptr;
  int index = 0;
  int rc = lookup_session(session, sp);
  if (rc == MPI_SUCCESS) rc = find_pset(pset_name, index);
  if (rc == MPI_SUCCESS) rc = check_not_null(info, "info");
  if (rc != MPI_SUCCESS) return raise_on_session(sp, kFn, rc);
  auto pinfo = std::make_shared<Info>();
  pinfo->set("mpi_size", std::to_string(pset_members(index).size()));
  return raise_on_session(sp, kFn, insert_info(std::move(pinfo), info, "info"));
}

extern "C" int MPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  const ApiCall call("MPI_Session_get_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_get_info";
  Session* sp = nullptr;
  int rc = lookup_session(session, sp);
  if (rc == MPI_SUCCESS) rc = check_not_null(info_used, "info_used");
  if (rc != MPI_SUCCESS) return raise_on_session(sp, kFn, rc);
  // The level the process provides: at least what the session asked for.
  auto used = std::make_shared<Info>();
  used->set("thread_level", thread_level_name(std::max(state().thread_level, sp->thread_level)));
  used->set(kMemoryKindsKey, sp->memory_kinds);
  return raise_on_session(sp, kFn, insert_info(std::move(used), info_used, "info_used"));
}

extern "C" int MPI_Group_from_session_pset(MPI_Session session, const char* pset_name,
                                           MPI_Group* newgroup) {
  const ApiCall call("MPI_Group_from_session_pset");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Group_from_session_pset";
  Session* sp = nullptr;
  int index = 0;
  int rc = lookup_session(session, sp);
  if (rc == MPI_SUCCESS) rc = find_pset(pset_name, index);
  if (rc == MPI_SUCCESS) rc = check_not_null(newgroup, "newgroup");
  if (rc != MPI_SUCCESS) return raise_on_session(sp, kFn, rc);
  const SessionPtr& from = *state().sessions.find(session);
  MPI_Group h = state().groups.insert(std::make_shared<const Group>(pset_members(index), from));
  if (h == MPI_GROUP_NULL) return raise_on_session(sp, kFn, fail(MPI_ERR_INTERN, "too many groups"));
  *newgroup = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                                             MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Session_create_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_create_errhandler";
  // Allowed before MPI_Session_init (MPI 4.0 11.4.1): the handler table
  // exists without the library.
  int rc = check_not_null(reinterpret_cast<const void*>(session_errhandler_fn), "session_errhandler_fn");
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  // Called as a communicator's handler is (errors.cc: raise_session_failure).
  auto* fn = reinterpret_cast<MPI_Comm_errhandler_function*>(session_errhandler_fn);
  const MPI_Errhandler h = state().errhandlers.insert(
      std::make_shared<const Errhandler>(Errhandler{Errhandler::Kind::user, fn}));
  if (h == MPI_ERRHANDLER_NULL) return raise(nullptr, kFn, fail(MPI_ERR_INTERN, "too many error handlers"));
  *errhandler = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  const ApiCall call("MPI_Session_set_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_set_errhandler";
  Session* sp = nullptr;
  if (int rc = lookup_session(session, sp)) return raise(nullptr, kFn, rc);
  ErrhandlerPtr handler;
  if (int rc = find_errhandler(errhandler, handler)) return raise_on_session(sp, kFn, rc);
  sp->errhandler = std::move(handler);
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Session_get_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_get_errhandler";
  Session* sp = nullptr;
  int rc = lookup_session(session, sp);
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise_on_session(sp, kFn, rc);
  *errhandler = errhandler_handle_for(sp->errhandler);
  return MPI_SUCCESS;
}

extern "C" int MPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const ApiCall call("MPI_Session_call_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Session_call_errhandler";
  Session* sp = nullptr;
  if (int rc = lookup_session(session, sp)) return raise(nullptr, kFn, rc);
  set_error_detail("raised by the program");
  raise_session(sp->errhandler, sp->handle, kFn, errorcode);
  return MPI_SUCCESS;
}
