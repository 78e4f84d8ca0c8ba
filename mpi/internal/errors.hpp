#pragma once
// Raising MPI errors through error handlers.
//
// The uniform pattern of every MPI function: validation helpers return an
// error class and record a detail sentence naming the bad argument (fail());
// the function then hands the class to raise() with the communicator the
// error belongs to. raise() runs that communicator's handler: fatal prints
// "rank R: MPI_Fn: MPI_ERR_X: detail" and ends the job with a non-zero
// status; MPI_ERRORS_RETURN returns the class; a user handler is called and
// the class returned.

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "mpi/internal/comm.hpp"

namespace mpi {

// Detail text for the next raise() on this thread.
void set_error_detail(std::string detail);
std::string_view error_detail();

template <typename... Args>
[[gnu::cold, gnu::noinline]] int fail(int error_class, fmt::format_string<Args...> format, Args&&... args) {
  set_error_detail(fmt::format(format, std::forward<Args>(args)...));
  return error_class;
}

// comm == nullptr: the error belongs to no communicator; MPI_COMM_WORLD's
// handler applies (before MPI_Init: fatal). Returns `code` unless the handler
// ends the job. MPI_SUCCESS passes straight through (inline: every MPI call
// ends here). raise_failure stays out of the flattened calls (api_call.hpp).
[[gnu::cold, gnu::noinline]] int raise_failure(const Comm* comm, const char* function, int code);
inline int raise(const Comm* comm, const char* function, int code) {
  return code == MPI_SUCCESS ? code : raise_failure(comm, function, code);
}

// Errors of a session's calls go to the session's handler (`session` is
// what a user handler gets); a null handler is fatal.
int raise_session_failure(const ErrhandlerPtr& handler, MPI_Session session,
                          const char* function, int code);
inline int raise_session(const ErrhandlerPtr& handler, MPI_Session session, const char* function,
                         int code) {
  return code == MPI_SUCCESS ? code : raise_session_failure(handler, session, function, code);
}

// Prints the message and ends this process with a non-zero status (lapirun
// then ends the rest of the job).
[[noreturn, gnu::cold, gnu::noinline]]
void fatal_error(const char* function, int code, std::string_view detail);
[[noreturn, gnu::cold, gnu::noinline]] void abort_job(int errorcode);

}  // namespace mpi
