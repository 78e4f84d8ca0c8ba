#pragma once
#include <string>
#include <vector>

#include "runtime/launcher_options.hpp"

namespace lapis::runtime::internal {

// Runs one lapirun job to the end: hosts the rendezvous, starts each of options.apps'
// programs (`program_paths`, resolved, one per app) as many times as it asks, forwards
// output, enforces the timeout and the fail-fast rule (one rank fails:
// SIGTERM every rank's process group, SIGKILL after a grace period). Returns lapirun's exit
// status (0, the first failing rank's status, 128+signal, 124 on timeout). Reports go to stderr.
// Throws std::runtime_error if the job cannot be set up at all.
// `places`: the host of each rank (from -H/--hostfile); empty, or every name local: this host.
// Ranks on other hosts start through the launch agent, and the rendezvous then listens on TCP.
int run_launcher(const LauncherOptions& options, const std::vector<std::string>& program_paths,
                 const std::vector<std::string>& places = {});

}  // namespace lapis::runtime::internal
