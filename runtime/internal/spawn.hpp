#pragma once
// Starting one rank: fork, set up the child (process group, parent-death signal, stdio, signal
// state), exec. Everything the child needs is prepared before fork().
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/internal/fd.hpp"
#include "runtime/launcher_options.hpp"

namespace lapis::runtime::internal {

struct RankCommand {
  std::string program_path;        // resolved path given to execve
  std::vector<std::string> argv;   // argv[0] as the user wrote it
  std::vector<std::string> env;    // NAME=value for every rank; spawn_rank adds LAPIS_RANK, LAPIS_SIZE
  sigset_t exec_sigmask;           // signal mask the program starts with
  bool sigpipe_ignored = false;    // whether the program starts with SIGPIPE ignored
  bool capture_output = false;     // give the rank pipes for stdout/stderr (--tag-output)
  bool stdin_for_rank0 = true;     // rank 0 reads the launcher's stdin; every other rank /dev/null
  std::string output_dir;          // non-empty: stdout/stderr go to output_dir/1/rank.N/{stdout,stderr}
  std::string wdir;                // non-empty: the rank starts in this directory
};

struct SpawnedRank {
  pid_t pid = -1;       // also the id of the rank's own process group
  UniqueFd stdout_pipe; // read ends, only with capture_output
  UniqueFd stderr_pipe;
};

// Throws std::runtime_error if the process (or its output files) cannot be created. A failing exec shows up as the
// rank exiting with status 127 after printing why. `cpus`: the CPUs the rank is bound to
// (sched_setaffinity before exec; its threads inherit it), empty for no binding.
SpawnedRank spawn_rank(const RankCommand& command, int rank, int size, const std::vector<int>& cpus = {});

// The environment shared by all ranks: the launcher's own, minus variables that would confuse
// the rank's bootstrap choice (LAPIS_RANK/SIZE/RENDEZVOUS, PMIX_RANK), plus the -x settings and
// LAPIS_RENDEZVOUS=<rendezvous_path> and LAPIS_JOB_ID=<job_id>.
std::vector<std::string> build_rank_environment(const std::vector<EnvSetting>& settings,
                                                const std::string& rendezvous_path, const std::string& job_id);

}  // namespace lapis::runtime::internal
