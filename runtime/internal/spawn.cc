#include "runtime/internal/spawn.hpp"

#include "runtime/internal/wire.hpp"
#include "runtime/shm_names.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

extern char** environ;

namespace lapis::runtime::internal {
namespace {

std::vector<char*> to_cstrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void write_stderr(const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); }

// "lapirun: <what><name>: <errno's text>" and exit 127, from the forked child.
[[noreturn]] void child_failed(const char* what, const char* name) {
  const char* reason = std::strerror(errno);
  write_stderr("lapirun: ");
  write_stderr(what);
  write_stderr(name);
  write_stderr(": ");
  write_stderr(reason);
  write_stderr("\n");
  ::_exit(127);
}

// Runs in the forked child: only async-signal-safe calls from here on (the launcher is
// single-threaded, but keep the habit).
[[noreturn]] void exec_child(const RankCommand& command, char** argv, char** envp, pid_t launcher, bool null_stdin,
                             int out_fd, int err_fd, const cpu_set_t* cpus) {
  // Own process group: killing -pid reaches grandchildren too, and a terminal's Ctrl-C goes to
  // the launcher only, which then stops the ranks in order.
  ::setpgid(0, 0);
  // Die with the launcher even if it is SIGKILLed; the check closes the race with a launcher
  // that died before prctl().
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != launcher) ::_exit(127);
  if (null_stdin) {
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0 && devnull != STDIN_FILENO) {
      ::dup2(devnull, STDIN_FILENO);
      ::close(devnull);
    }
  }
  // The pipe ends are close-on-exec; their dup2() copies are not.
  if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
  if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
  if (cpus != nullptr && ::sched_setaffinity(0, sizeof *cpus, cpus) != 0) {
    child_failed("cannot bind the rank to its CPUs", "");
  }
  if (!command.wdir.empty() && ::chdir(command.wdir.c_str()) != 0) {
    child_failed("cannot enter --wdir ", command.wdir.c_str());
  }
  ::signal(SIGPIPE, command.sigpipe_ignored ? SIG_IGN : SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &command.exec_sigmask, nullptr);
  ::execve(command.program_path.c_str(), argv, envp);
  child_failed("cannot execute ", command.program_path.c_str());
}

// --output-filename: DIR/1/rank.N/{stdout,stderr} (Open MPI's layout; "1" is
// the job), made as needed, truncated.
std::pair<UniqueFd, UniqueFd> open_output_files(const std::string& dir, int rank) {
  std::string path;
  for (const std::string& part : {dir, std::string("1"), "rank." + std::to_string(rank)}) {
    path += (path.empty() ? "" : "/") + part;
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      throw std::runtime_error(errno_message(("--output-filename: mkdir " + path).c_str()));
    }
  }
  auto open_file = [&](const char* name) {
    const std::string file = path + "/" + name;
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(errno_message(("--output-filename: open " + file).c_str()));
    return UniqueFd(fd);
  };
  return {open_file("stdout"), open_file("stderr")};
}

std::pair<UniqueFd, UniqueFd> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(errno_message("pipe2"));
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace

SpawnedRank spawn_rank(const RankCommand& command, int rank, int size, const std::vector<int>& cpus) {
  std::vector<std::string> argv_strings = command.argv;
  std::vector<std::string> env_strings = command.env;
  env_strings.push_back("LAPIS_RANK=" + std::to_string(rank));
  env_strings.push_back("LAPIS_SIZE=" + std::to_string(size));
  std::vector<char*> argv = to_cstrings(argv_strings);
  std::vector<char*> envp = to_cstrings(env_strings);

  SpawnedRank spawned;
  UniqueFd out_write, err_write;
  if (!command.output_dir.empty()) {
    std::tie(out_write, err_write) = open_output_files(command.output_dir, rank);
  } else if (command.capture_output) {
    std::tie(spawned.stdout_pipe, out_write) = make_pipe();
    std::tie(spawned.stderr_pipe, err_write) = make_pipe();
  }
  // A terminal on stdin would stop a rank in a background process group (SIGTTIN) on read.
  const bool null_stdin = rank != 0 || !command.stdin_for_rank0 || ::isatty(STDIN_FILENO);
  cpu_set_t cpu_set;
  CPU_ZERO(&cpu_set);
  for (int cpu : cpus) CPU_SET(cpu, &cpu_set);
  const pid_t launcher = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(errno_message(("fork for rank " + std::to_string(rank)).c_str()));
  if (pid == 0) {
    exec_child(command, argv.data(), envp.data(), launcher, null_stdin, out_write.get(), err_write.get(),
               cpus.empty() ? nullptr : &cpu_set);
  }
  ::setpgid(pid, pid);  // also here, so the group exists before we might signal it (the child may not have run yet)
  spawned.pid = pid;
  return spawned;
}

std::vector<std::string> build_rank_environment(const std::vector<EnvSetting>& settings,
                                                const std::string& rendezvous_path, const std::string& job_id) {
  std::map<std::string, std::string> added;  // later -x of the same name wins
  for (const EnvSetting& setting : settings) {
    if (setting.value) {
      added[setting.name] = *setting.value;
    } else if (const char* own = std::getenv(setting.name.c_str()); own != nullptr) {
      added[setting.name] = own;
    }
  }
  added["LAPIS_RENDEZVOUS"] = rendezvous_path;
  added[kJobIdVariable] = job_id;
  // The lapirun MPI_Comm_spawn starts: this one, unless the user named another.
  if (std::getenv("LAPIS_LAPIRUN") == nullptr && !added.contains("LAPIS_LAPIRUN")) {
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) added["LAPIS_LAPIRUN"] = std::string(self, static_cast<std::size_t>(n));
  }
  // A job started from a rank of another (MPI_Comm_spawn) has programs of its own.
  const std::set<std::string> dropped = {"LAPIS_RANK", "LAPIS_SIZE", "PMIX_RANK", kAppNumVariable};
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string name(text.substr(0, text.find('=')));
    if (!dropped.contains(name) && !added.contains(name)) env.emplace_back(text);
  }
  for (const auto& [name, value] : added) env.push_back(name + "=" + value);
  return env;
}

}  // namespace lapis::runtime::internal
