// Environment: MPI_Init ... MPI_Finalize, versions, processor name and
// hardware, clocks.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/connect.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/hw_resources.hpp"
#include "mpi/internal/info.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

constexpr const char* kLibraryVersion =
    "Lapis MPI 0.1.0 (MPI 4.1, MPICH 4.0 ABI) over the Lapis one-sided core and UCX";

// Builds MPI_COMM_WORLD and MPI_COMM_SELF.
void create_predefined_comms(State& s) {
  std::vector<int> all(s.world_size);
  for (int i = 0; i < s.world_size; ++i) all[i] = i;
  auto world = std::make_shared<Comm>();
  world->group = std::make_shared<const Group>(std::move(all));
  world->rank = s.world_rank;
  world->slot = kWorldSlot;
  world->handle = MPI_COMM_WORLD;
  world->errhandler = fatal_errhandler();
  world->name = "MPI_COMM_WORLD";
  s.comms.insert_at(MPI_COMM_WORLD, world);

  auto self = std::make_shared<Comm>();
  self->group = std::make_shared<const Group>(std::vector<int>{s.world_rank});
  self->rank = 0;
  self->slot = kSelfSlot;
  self->handle = MPI_COMM_SELF;
  self->errhandler = fatal_errhandler();
  self->name = "MPI_COMM_SELF";
  s.comms.insert_at(MPI_COMM_SELF, self);
}

int init(const char* function, int required, int* provided) {
  State& s = state();
  if (s.world != Phase::before_init) {
    int code = fail(MPI_ERR_OTHER, "MPI was already {}",
                    s.world == Phase::running ? "initialized" : "finalized");
    return raise(nullptr, function, code);
  }
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    return raise(nullptr, function,
                 fail(MPI_ERR_ARG, "required={} is not an MPI_THREAD_* level", required));
  }
  // LAPIS_UNIVERSE_SIZE: MPI_UNIVERSE_SIZE (at least the job's size; default that).
  int universe = 1;
  if (const char* v = std::getenv("LAPIS_UNIVERSE_SIZE"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 1 || n > (1 << 30)) {
      return raise(nullptr, function,
                   fail(MPI_ERR_ARG, "LAPIS_UNIVERSE_SIZE='{}': expected a positive process count", v));
    }
    universe = static_cast<int>(n);
  }
  // LAPIS_APPNUM: lapirun's index of this rank's program in an MPMD job (`lapirun -n 1 a : -n 2 b`,
  // MPI_Comm_spawn_multiple); MPI_APPNUM. A job of one program leaves it unset: 0.
  int appnum = 0;
  if (const char* v = std::getenv("LAPIS_APPNUM"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > (1 << 30)) {
      return raise(nullptr, function, fail(MPI_ERR_ARG, "LAPIS_APPNUM='{}': expected a program index", v));
    }
    appnum = static_cast<int>(n);
  }
  // The library may run already for a session (session.hpp); the thread
  // level then only goes up.
  if (int rc = start_library(required)) return raise(nullptr, function, rc);
  s.attr_appnum = appnum;
  s.main_thread = std::this_thread::get_id();
  ApiCall::on_init(s.thread_level);
  // MPI_INFO_ENV's thread_level: the level now provided (a session may have started the library lower).
  s.infos.insert_at(MPI_INFO_ENV, make_env_info(s.world_size, s.thread_level));
  // How many processes the program may count on in all (MPI_Comm_spawn starts any number).
  s.attr_universe_size = std::max(universe, s.world_size);
  create_predefined_comms(s);
  s.world = Phase::running;
  // Started by MPI_Comm_spawn: meet the parents (spawn.cc).
  if (int rc = connect_to_parent()) return raise(nullptr, function, rc);
  if (provided != nullptr) *provided = s.thread_level;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace mpi

using namespace mpi;

extern "C" int MPI_Init(int* /*argc*/, char*** /*argv*/) {
  const ApiCall call("MPI_Init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return init("MPI_Init", MPI_THREAD_SINGLE, nullptr);
}

extern "C" int MPI_Init_thread(int* /*argc*/, char*** /*argv*/, int required, int* provided) {
  const ApiCall call("MPI_Init_thread");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Init_thread";
  if (provided == nullptr) return raise(nullptr, kFn, fail(MPI_ERR_ARG, "provided is NULL"));
  return init(kFn, required, provided);
}

extern "C" int MPI_Finalize(void) {
  const ApiCall call("MPI_Finalize");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Finalize";
  State& s = state();
  if (s.world != Phase::running) {
    return raise(nullptr, kFn,
                 fail(MPI_ERR_OTHER, "called {}",
                      s.world == Phase::before_init ? "before MPI_Init" : "after MPI_Finalize"));
  }
  // MPI-2: COMM_SELF's attributes are deleted first, so libraries can hook
  // their own clean-up onto MPI_Finalize.
  if (CommPtr* self = s.comms.find(MPI_COMM_SELF)) delete_all_attributes(**self);
  CommPtr* world = s.comms.find(MPI_COMM_WORLD);
  s.world_errhandler = world ? (*world)->errhandler : fatal_errhandler();
  s.world = Phase::finalized;
  int rc = MPI_SUCCESS;
  if (s.live_sessions > 0) {
    // Sessions keep the library running: only the world model's
    // communicators go (what the program derived from them stays until the
    // library stops, as the standard leaves their use undefined).
    drain_collectives();  // freed nonblocking collectives on them still finish
    s.comms.erase_predefined(MPI_COMM_WORLD);
    s.comms.erase_predefined(MPI_COMM_SELF);
  } else {
    rc = stop_library_if_unused();
  }
  // The jobs this rank spawned end before it does (as under mpirun, whose job includes them).
  for (int pid : s.spawned_launchers) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  s.spawned_launchers.clear();
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Initialized(int* flag) {
  if (flag == nullptr) return raise(nullptr, "MPI_Initialized", fail(MPI_ERR_ARG, "flag is NULL"));
  // The world model only (MPI 4.0 11.2.1): sessions do not count.
  *flag = state().world != Phase::before_init;
  return MPI_SUCCESS;
}

extern "C" int MPI_Finalized(int* flag) {
  if (flag == nullptr) return raise(nullptr, "MPI_Finalized", fail(MPI_ERR_ARG, "flag is NULL"));
  *flag = state().world == Phase::finalized;
  return MPI_SUCCESS;
}

extern "C" int MPI_Abort(MPI_Comm comm, int errorcode) {
  const State& s = state();
  std::fflush(stdout);
  std::fprintf(stderr, "Lapis MPI: rank %d of %d: MPI_Abort(comm=%#x, errorcode=%d) ends the job\n",
               s.world_rank, s.world_size, static_cast<unsigned>(comm), errorcode);
  abort_job(errorcode);
}

extern "C" int MPI_Query_thread(int* provided) {
  constexpr const char* kFn = "MPI_Query_thread";
  if (int rc = check_running(kFn)) return rc;
  if (provided == nullptr) return raise(nullptr, kFn, fail(MPI_ERR_ARG, "provided is NULL"));
  *provided = state().thread_level;
  return MPI_SUCCESS;
}

extern "C" int MPI_Is_thread_main(int* flag) {
  constexpr const char* kFn = "MPI_Is_thread_main";
  if (int rc = check_running(kFn)) return rc;
  if (flag == nullptr) return raise(nullptr, kFn, fail(MPI_ERR_ARG, "flag is NULL"));
  *flag = std::this_thread::get_id() == state().main_thread;
  return MPI_SUCCESS;
}

extern "C" int MPI_Get_processor_name(char* name, int* resultlen) {
  const ApiCall call("MPI_Get_processor_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_processor_name";
  if (int rc = check_not_null(name, "name")) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(resultlen, "resultlen")) return raise(nullptr, kFn, rc);
  char host[MPI_MAX_PROCESSOR_NAME];
  if (gethostname(host, sizeof host) != 0) std::strcpy(host, "localhost");
  host[sizeof host - 1] = '\0';
  std::strcpy(name, host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

// Any time, as MPI_Get_processor_name: the process's CPU binding at the
// moment of the call, per resource type ("true": all its CPUs lie in one
// resource of the type). MPI_COMM_TYPE_HW_GUIDED splits by these types.
extern "C" int MPI_Get_hw_resource_info(MPI_Info* hw_info) {
  const ApiCall call("MPI_Get_hw_resource_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_hw_resource_info";
  if (int rc = check_not_null(hw_info, "hw_info")) return raise(nullptr, kFn, rc);
  auto info = std::make_shared<Info>();
  for (const HwResource& r : hw_resources_now()) info->set(r.type, r.instance >= 0 ? "true" : "false");
  return raise(nullptr, kFn, insert_info(std::move(info), hw_info, "hw_info"));
}

extern "C" int MPI_Get_version(int* version, int* subversion) {
  constexpr const char* kFn = "MPI_Get_version";
  if (int rc = check_not_null(version, "version")) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(subversion, "subversion")) return raise(nullptr, kFn, rc);
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

extern "C" int MPI_Get_library_version(char* version, int* resultlen) {
  constexpr const char* kFn = "MPI_Get_library_version";
  if (int rc = check_not_null(version, "version")) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(resultlen, "resultlen")) return raise(nullptr, kFn, rc);
  std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", kLibraryVersion);
  *resultlen = static_cast<int>(std::strlen(version));
  return MPI_SUCCESS;
}

extern "C" double MPI_Wtime(void) {
  // Local monotonic clock (MPI_WTIME_IS_GLOBAL is false).
  static const auto base = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - base).count();
}

extern "C" double MPI_Wtick(void) {
  timespec ts{};
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
