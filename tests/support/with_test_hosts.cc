// Runs a command beside N test hosts (test_hosts.hpp) and removes them when it ends:
//
//   with_test_hosts N [--links L] [--rate RATE] -- COMMAND [ARG...]
//
// --links: L links between the hosts (lapis0 .. lapisL-1, test_hosts.hpp), 1 to 4 (default 1);
// --rate: every host's every link limited to RATE when sending (tc's rate, e.g. 500mbit).
// COMMAND runs in this machine's namespaces with, in its environment, TEST_HOSTS_MAP (for the
// agent), TEST_HOST_NAMES and TEST_HOST_ADDRS (comma-separated, host i at position i) and
// TEST_HOST_AGENT (the launch agent: `AGENT HOST COMMAND...` runs COMMAND on HOST). For
// benchmarks that need hosts but are not C++ (benchmarks/compare_mpi --hosts). Needs root.
// Exit status: COMMAND's; 2 for bad usage; 1 when the hosts cannot be made.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_hosts.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "with_test_hosts: %s\nusage: with_test_hosts N [--links L] [--rate RATE] -- COMMAND [ARG...]  "
               "(N from 1 to 16, L from 1 to 4)\n",
               why);
  return 2;
}

std::string joined(const lapis::testing::TestHosts& hosts, bool addresses) {
  std::string out;
  for (int i = 0; i < hosts.size(); ++i) {
    if (i > 0) out += ",";
    out += addresses ? hosts.address(i) : hosts.name(i);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("expected N, then --, then a command");
  char* end = nullptr;
  const long n = std::strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || n < 1 || n > 16) return usage("N must be a number from 1 to 16");
  long links = 1;
  std::string rate;
  int at = 2;
  for (; at + 1 < argc && std::string(argv[at]) != "--"; at += 2) {
    const std::string flag = argv[at];
    if (flag == "--links") {
      links = std::strtol(argv[at + 1], &end, 10);
      if (end == argv[at + 1] || *end != '\0' || links < 1 || links > 4) return usage("--links must be 1 to 4");
    } else if (flag == "--rate") {
      rate = argv[at + 1];
      if (rate.empty() || rate.find_first_not_of("0123456789kmgbitKMGps.") != std::string::npos) {
        return usage("--rate must be a tc rate such as 500mbit");
      }
    } else {
      return usage(("unknown option " + flag).c_str());
    }
  }
  if (at + 1 >= argc || std::string(argv[at]) != "--") return usage("expected N, then --, then a command");
  // The agent is found next to this binary's runfiles when run through bazel.
  // Absolute, so that the agent's path stays good wherever COMMAND goes.
  if (std::getenv("TEST_SRCDIR") == nullptr) {
    ::setenv("TEST_SRCDIR", (std::filesystem::absolute(argv[0]).string() + ".runfiles").c_str(), 1);
  }
  lapis::testing::TestHosts hosts(static_cast<int>(n), static_cast<int>(links));
  for (int h = 0; h < hosts.size() && hosts.available() && !rate.empty(); ++h) {
    for (int l = 0; l < links; ++l) (void)hosts.limit_rate(h, l, rate);
  }
  if (!hosts.available()) {
    std::fprintf(stderr, "with_test_hosts: no test hosts: %s\n", hosts.why_not().c_str());
    return 1;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("with_test_hosts: fork");
    return 1;
  }
  if (child == 0) {
    ::setenv("TEST_HOSTS_MAP", hosts.hosts_variable().c_str(), 1);
    ::setenv("TEST_HOST_NAMES", joined(hosts, false).c_str(), 1);
    ::setenv("TEST_HOST_ADDRS", joined(hosts, true).c_str(), 1);
    ::setenv("TEST_HOST_AGENT", lapis::testing::TestHosts::agent_path().c_str(), 1);
    ::execvp(argv[at + 1], argv + at + 1);
    std::fprintf(stderr, "with_test_hosts: cannot run %s\n", argv[at + 1]);
    std::_Exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
  }
  const std::vector<pid_t> left = hosts.left_after(5.0);
  if (!left.empty()) std::fprintf(stderr, "with_test_hosts: %zu processes were left in the test hosts (removed)\n", left.size());
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
