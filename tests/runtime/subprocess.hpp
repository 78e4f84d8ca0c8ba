#pragma once
// Test helper: run a command to completion with captured output and a hard timeout, and find
// this workspace's binaries in the Bazel runfiles.
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lapis::runtime::testing {

struct Command {
  using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;
  Command(std::vector<std::string> argv_in, EnvChanges env_in = {}, double timeout = 60)
      : argv(std::move(argv_in)), env(std::move(env_in)), timeout_seconds(timeout) {}

  std::vector<std::string> argv;  // argv[0] is searched in PATH if it has no '/'
  // Applied over the test's environment, from which LAPIS_* and PMIX_* are removed first:
  // a value sets the variable, nullopt unsets it.
  EnvChanges env;
  double timeout_seconds;  // then the whole process group is SIGKILLed
};

struct Outcome {
  int status = -1;  // exit status, or 128+signal
  bool timed_out = false;
  std::string out;
  std::string err;
  double seconds = 0;
};

// Blocks until the command exits and both output pipes are closed (or the timeout).
Outcome run(const Command& command);

// "status 3 after 0.1 s; stdout: ...; stderr: ..." for failure messages.
std::string describe(const Outcome& outcome);

// $TEST_SRCDIR/lapis/<path>
std::string runfile(const std::string& path);
std::string lapirun_path();
std::string probe_path();

// True if `pid` has exited (or never existed) within timeout_seconds; waits on a pidfd, so it
// returns as soon as the process dies.
bool process_gone(pid_t pid, double timeout_seconds);

}  // namespace lapis::runtime::testing
