#pragma once
// Starts `lapirun -n ranks [--timeout s] [-x env]... program args...` (or
// any shell command) from a test and collects its exit status and output.

#include <string>
#include <vector>

namespace lapis::testing {

struct LaunchResult {
  int status = -1;     // exit status (128+signal if it was killed)
  std::string output;  // launch(): stdout and stderr, interleaved
};

// Callers name the fields (launch({.ranks = 4, .env = {...}, .flags = {}}, ...)); gcc 12 warns
// about a field left out even of a designated initializer.
struct LaunchOptions {
  int ranks = 2;
  int timeout_s = 120;
  std::vector<std::string> env;  // VAR=VALUE, passed with -x
  std::vector<std::string> flags;  // more lapirun options (e.g. --continue-on-failure)
};

// `program` is a runfiles-relative path such as "tests/core/amsend_ranks".
LaunchResult launch(const LaunchOptions& options, const std::string& program,
                    const std::vector<std::string>& args = {});

// Runs `command` with /bin/sh and collects its exit status and stdout
// (end the command with " 2>&1" to collect stderr too).
LaunchResult run_shell(const std::string& command);

// Runs `command` (stderr too) the way a user runs programs built against
// the installed library: under --config=asan that library is instrumented
// while the programs are not, so ASan must not insist on coming first.
LaunchResult run_user_command(const std::string& command);

// Absolute path of a runfile of this workspace.
std::string runfile(const std::string& relative);

}  // namespace lapis::testing
