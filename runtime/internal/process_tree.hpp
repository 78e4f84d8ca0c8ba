#pragma once
// Processes below a launcher's ranks, read from /proc: the lapirun that
// MPI_Comm_spawn starts is a child of the spawning rank, so a launcher
// reaches the spawned job's launcher only by walking down from its ranks.
#include <sys/types.h>

#include <vector>

namespace lapis::runtime::internal {

// The processes below `roots` that run the same program as this one (same
// /proc/PID/comm), nearest first. The walk does not go below one it found:
// that launcher reaches its own spawned jobs the same way.
std::vector<pid_t> descendant_launchers(const std::vector<pid_t>& roots);

// Whether `pid` still runs (a zombie no longer does). It need not be this process's child.
bool process_running(pid_t pid);

}  // namespace lapis::runtime::internal
