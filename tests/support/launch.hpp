#pragma once
// Starts `lapirun -n ranks [--timeout s] [-x env]... program args...` from a
// test and collects its exit status and combined output.

#include <string>
#include <vector>

namespace lapis::testing {

struct LaunchResult {
  int status = -1;     // lapirun's exit status (128+signal if it was killed)
  std::string output;  // stdout and stderr, interleaved
};

struct LaunchOptions {
  int ranks = 2;
  int timeout_s = 120;
  std::vector<std::string> env;  // VAR=VALUE, passed with -x
};

// `program` is a runfiles-relative path such as "tests/core/amsend_ranks".
LaunchResult launch(const LaunchOptions& options, const std::string& program,
                    const std::vector<std::string>& args = {});

// Absolute path of a runfile of this workspace.
std::string runfile(const std::string& relative);

}  // namespace lapis::testing
