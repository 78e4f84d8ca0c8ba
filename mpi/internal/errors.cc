#include "mpi/internal/errors.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "lapi/context.hpp"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/error_classes.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

thread_local std::string t_detail;

}  // namespace

void set_error_detail(std::string detail) { t_detail = std::move(detail); }

std::string_view error_detail() { return t_detail; }

void fatal_error(const char* function, int code, std::string_view detail) {
  const State& s = state();
  const char* name = error_class_name(code);
  const char* text = error_class_text(code);
  std::string who = fmt::format("rank {} of {}", s.world_rank, s.world_size);
  if (s.phase == Phase::before_init) {
    // No rank is known yet; the launcher's environment may still tell it.
    // (Once the library ran, for the world model or a session, it is known.)
    const char* env_rank = std::getenv("LAPIS_RANK");
    who = env_rank ? fmt::format("rank {} (before MPI_Init)", env_rank) : "before MPI_Init";
  }
  std::string msg = fmt::format("Lapis MPI: {}: {}: {} ({}){}{}\n", who, function,
                                name ? name : "unknown error code", text ? text : "?",
                                detail.empty() ? "" : ": ", detail);
  std::fflush(stdout);
  std::fputs(msg.c_str(), stderr);
  abort_job(code);
}

void abort_job(int errorcode) {
  std::fflush(nullptr);
  int status = errorcode & 0xff;
  // The job must end with a failure status even for MPI_Abort(comm, 0),
  // and end as a whole even under lapirun --continue-on-failure.
  lapi::abort_job(status == 0 ? 1 : status);
}

int raise_failure(const Comm* comm, const char* function, int code) {
  const ErrorPathLock lock;
  State& s = state();
  ErrhandlerPtr handler;
  MPI_Comm handle = MPI_COMM_WORLD;
  if (comm != nullptr) {
    handler = comm->errhandler;
    handle = comm->handle;
  } else if (s.world == Phase::running) {
    if (CommPtr* world = s.comms.find(MPI_COMM_WORLD)) handler = (*world)->errhandler;
  } else {
    handler = s.world_errhandler;  // null before MPI_Init: fatal
  }
  if (!handler || handler->kind == Errhandler::Kind::fatal) fatal_error(function, code, t_detail);
  if (handler->kind == Errhandler::Kind::user && handler->fn != nullptr) {
    return call_user_errhandler(*handler, ErrObject::comm, &handle, code);
  }
  return code;
}

int raise_session_failure(const ErrhandlerPtr& handler, MPI_Session session,
                          const char* function, int code) {
  const ErrorPathLock lock;
  if (!handler || handler->kind == Errhandler::Kind::fatal) fatal_error(function, code, t_detail);
  if (handler->kind == Errhandler::Kind::user && handler->fn != nullptr) {
    // A session handler (MPI_Session_errhandler_function) takes an
    // MPI_Session* where a communicator's takes an MPI_Comm*: both ints.
    static_assert(sizeof(MPI_Session) == sizeof(MPI_Comm));
    MPI_Comm handle = session;
    int c = code;
    handler->fn(&handle, &c);
  }
  return code;
}

}  // namespace mpi
