#include "tests/runtime/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

extern char** environ;

namespace lapis::runtime::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> child_environment(const Command& command) {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto eq = text.find('=');
    const std::string name = text.substr(0, eq);
    if (name.starts_with("LAPIS_") || name.starts_with("PMIX_")) continue;
    env[name] = eq == std::string::npos ? "" : text.substr(eq + 1);
  }
  for (const auto& [name, value] : command.env) {
    if (value) env[name] = *value;
    else env.erase(name);
  }
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> to_cstrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Outcome run(const Command& command) {
  std::vector<std::string> argv_strings = command.argv;
  std::vector<std::string> env_strings = child_environment(command);
  std::vector<char*> argv = to_cstrings(argv_strings);
  std::vector<char*> envp = to_cstrings(env_strings);
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");

  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork");
  if (pid == 0) {
    ::setpgid(0, 0);  // so a timeout can kill whatever it started
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  Outcome outcome;
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(command.timeout_seconds));
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&outcome.out, &outcome.err};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left <= 0) {
      outcome.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(std::ceil(left)));
    if (n < 0 && errno != EINTR) throw std::runtime_error("poll");
    for (int i = 0; i < 2 && n > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t got = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome.status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return outcome;
}

std::string describe(const Outcome& outcome) {
  return "status " + std::to_string(outcome.status) + (outcome.timed_out ? " (TIMED OUT)" : "") + " after " +
         std::to_string(outcome.seconds) + " s\n--- stdout:\n" + outcome.out + "\n--- stderr:\n" + outcome.err;
}

std::string runfile(const std::string& path) {
  const char* root = std::getenv("TEST_SRCDIR");
  if (root == nullptr) throw std::runtime_error("TEST_SRCDIR is not set: run this test with bazel test");
  return std::string(root) + "/lapis/" + path;
}

std::string lapirun_path() { return runfile("runtime/lapirun"); }
std::string probe_path() { return runfile("tests/runtime/bootstrap_probe"); }

bool process_gone(pid_t pid, double timeout_seconds) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;
  pollfd p{fd, POLLIN, 0};  // a pidfd turns readable when the process exits, reaped or not
  int n;
  do {
    n = ::poll(&p, 1, static_cast<int>(timeout_seconds * 1000));
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  return n > 0;
}

}  // namespace lapis::runtime::testing
