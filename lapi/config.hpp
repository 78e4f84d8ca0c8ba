#pragma once
// Start-up configuration of a context. Defaults can come from LAPIS_*
// environment variables (Config::from_env); every field is also readable
// through Context::qenv and most are settable with Context::senv.

#include <cstddef>
#include <cstdint>
#include <string>

#include "handlers/handler.hpp"
#include "lapi/status.hpp"

namespace lapi {

enum class ProgressMode : std::uint8_t { polling, interrupt };

struct Config {
  ProgressMode mode = ProgressMode::polling;
  CompletionPolicy policy = CompletionPolicy::inline_run;
  // Amsend data of at least this many bytes goes by UCX rendezvous (pulled
  // zero-copy into the landing buffer); smaller data is sent eagerly.
  std::size_t eager_limit = 8192;
  bool error_checking = true;
  // Interrupt mode: how long the application must stay out of the library's
  // waits before the progress thread takes over progress from it (while it
  // keeps waiting back to back, only it polls: one wake-up per message).
  // Context::hand_over_progress() ends the grace early.
  std::uint32_t takeover_grace_us = 50;
  // Small Amsends to tasks on the same node go through rings in shared
  // memory instead of UCX (see lapi/internal/shm_channel.hpp).
  bool shm = true;
  // Large Amsends (at or above the eager limit, 16 KiB at least) to tasks
  // on the same node are copied by both tasks at once, in parts, with
  // cross-memory attach (see lapi/internal/split_copy.cc). Needs `shm`.
  bool split_copy = true;
  // The call that ends this task's part in the job, as the user knows it:
  // under lapirun a task that exits without it while others still run ends
  // the job with "rank R exited ... without calling <leave_call>". APIs
  // layered on the core name their own (LAPI_Term, MPI_Finalize).
  std::string leave_call = "lapi::Context::term";

  // Reads LAPIS_MODE (polling|interrupt), LAPIS_POLICY (inline|thread|fiber),
  // LAPIS_AM_EAGER_LIMIT (bytes), LAPIS_ERROR_CHECK (0|1) and
  // LAPIS_TAKEOVER_GRACE_US (microseconds), LAPIS_SHM (0|1) and
  // LAPIS_SPLIT_COPY (0|1) over the given defaults. An invalid value is an
  // Errc::set_val error naming the variable.
  static Status from_env(Config& config);
};

std::string_view to_string(ProgressMode mode);
std::string_view to_string(CompletionPolicy policy);

}  // namespace lapi
