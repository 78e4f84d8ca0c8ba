#include "runtime/internal/hang_report.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <regex>
#include <sstream>

#include "runtime/internal/fd.hpp"

namespace lapis::runtime::internal {
namespace {

struct GdbRun {
  pid_t pid = -1;
  UniqueFd out;
  std::string text;
  bool open = true;
  bool out_of_time = false;  // killed before it had listed every thread
};

// Ranks of a hung job usually spin (polling mode): on a node with more
// ranks than cores they would starve the gdbs, which then run out of time
// before listing the threads. Every thread of each rank drops to the lowest
// priority (the job ends after the report anyway).
void yield_cpu_to_gdb(pid_t rank) {
  const std::string tasks = "/proc/" + std::to_string(rank) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return;
  while (const dirent* e = ::readdir(dir)) {
    const int tid = std::atoi(e->d_name);
    if (tid > 0) (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19);
  }
  ::closedir(dir);
}

// gdb -p PID, batch mode: every thread's backtrace, then detach. Its own
// signal mask must be the default one (the launcher blocks the signals it
// reads through a signalfd). It runs in a process group of its own: a
// spawned job's launcher shares the group of the rank that spawned it, which
// the outer launcher stops with SIGTERM right after its own report.
GdbRun start_gdb(pid_t target) {
  GdbRun run;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return run;
  run.out.reset(fds[0]);
  const std::string pid = std::to_string(target);
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::execlp("gdb", "gdb", "-p", pid.c_str(), "-batch", "-nx", "-ex", "set width 0", "-ex",
             "set pagination off", "-ex", "x/8dw &lapis_wait_state", "-ex",
             "thread apply all -ascending bt",
             static_cast<char*>(nullptr));
    static const char kNoGdb[] = "lapis-no-gdb\n";
    (void)!::write(STDOUT_FILENO, kNoGdb, sizeof kNoGdb - 1);
    ::_exit(127);
  }
  ::close(fds[1]);
  run.pid = child;
  if (child < 0) run.out.reset();
  return run;
}

// Reads every gdb's output until all are done or the time is up.
void collect(std::vector<GdbRun>& runs, int timeout_seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<GdbRun*> owners;
    for (GdbRun& r : runs) {
      if (r.open && r.out.valid()) {
        fds.push_back({r.out.get(), POLLIN, 0});
        owners.push_back(&r);
      }
    }
    if (fds.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    if (::poll(fds.data(), fds.size(), static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        owners[i]->text.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        owners[i]->open = false;
      }
    }
  }
  for (GdbRun& r : runs) {
    if (r.pid <= 0) continue;
    if (r.open) {
      ::kill(r.pid, SIGKILL);  // gdb's ptrace detach happens as it dies
      r.out_of_time = true;
    }
    int status;
    while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

std::string one_decimal(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds);
  return text;
}

// Why gdb gave no backtrace, in a few words.
std::string gdb_problem(const std::string& text) {
  if (text.empty()) return "gdb printed nothing";
  if (text.find("lapis-no-gdb") != std::string::npos) return "gdb is not installed (tools/setup.sh installs it)";
  if (text.find("ptrace: Operation not permitted") != std::string::npos) {
    return "gdb may not attach (ptrace not permitted: run as the ranks' owner with "
           "/proc/sys/kernel/yama/ptrace_scope 0, or as root)";
  }
  if (text.find("No such process") != std::string::npos) return "the rank had already exited";
  return "gdb printed no backtrace";
}

}  // namespace

std::vector<std::string> waiting_calls(const std::string& backtraces) {
  // "#7  0x00007f.. in MPI_Recv () from ..." or "#0  MPI_Recv (buf=...) at recv.cc:52".
  static const std::regex frame(R"(^#(\d+)\s+(?:0x[0-9a-f]+ in )?([A-Za-z_][\w:]*))");
  static const std::regex thread(R"(^Thread (\d+) )");
  static const std::regex library_call(R"(^(P?MPI_\w+|LAPI_\w+|LAPIS_\w+)$)");
  std::vector<std::string> calls;
  std::string thread_id, outermost;
  auto finish_thread = [&] {
    if (!outermost.empty()) {
      calls.push_back(thread_id == "1" || thread_id.empty() ? outermost
                                                            : outermost + " [thread " + thread_id + "]");
    }
    outermost.clear();
  };
  std::istringstream in(backtraces);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, thread)) {
      finish_thread();
      thread_id = m[1];
    } else if (std::regex_search(line, m, frame)) {
      std::string name = m[2];
      if (std::regex_match(name, library_call)) {
        if (name.rfind("PMPI_", 0) == 0) name.erase(0, 1);  // the same code under its profiling name
        outermost = name;  // frames go outwards: the last match is the user's call
      }
    }
  }
  finish_thread();
  // The main thread ("Thread 1") first, whatever order gdb listed them in.
  std::stable_partition(calls.begin(), calls.end(),
                        [](const std::string& c) { return c.find(" [thread ") == std::string::npos; });
  return calls;
}

std::string wait_details(const std::string& gdb_output) {
  // "0x7f..<lapis_wait_state>:\t1279348823\t1\t1\t0" and "<lapis_wait_state+16>: ...":
  // mpcpi's WaitNote words (mpcpi/internal/wait_state.hpp).
  static const std::regex words(R"(<lapis_wait_state(?:\+\d+)?>:\s*(.*))");
  std::vector<long> w;
  std::istringstream in(gdb_output);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, words)) continue;
    std::istringstream values(m[1].str());
    for (long v; values >> v;) w.push_back(v);
  }
  constexpr long kMagic = 0x4c415057;
  if (w.size() < 7 || w[0] != kMagic || w[1] < 1 || w[1] > 3) return "";
  const auto who = [](long peer) { return peer == -1 ? std::string("any") : std::to_string(peer); };
  const auto tag = [](long t) { return t == -1 ? std::string("any") : std::to_string(t); };
  static const char* const kWhat[] = {"", "receive from ", "send to ", "probe for "};
  return std::string(kWhat[w[1]]) + who(w[2]) + ", tag " + tag(w[3]) + ", context " +
         std::to_string(w[4]) + "; " + std::to_string(w[5]) + " receives posted, " +
         std::to_string(w[6]) + " unexpected messages";
}

std::vector<std::string> describe_ranks(const std::vector<RankProcess>& ranks,
                                        const HangReportOptions& options) {
  std::vector<GdbRun> runs;
  runs.reserve(ranks.size());
  for (const RankProcess& r : ranks) yield_cpu_to_gdb(r.pid);
  for (const RankProcess& r : ranks) runs.push_back(start_gdb(r.pid));
  collect(runs, options.gdb_timeout_seconds);
  std::vector<std::string> lines;
  const std::string when = " (job running " + one_decimal(options.job_seconds) + " s)";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string who = "rank " + std::to_string(ranks[i].rank) + " (pid " + std::to_string(ranks[i].pid) + ")";
    const std::string& text = runs[i].text;
    const std::string out_of_time = "gdb ran out of time (" +
                                    std::to_string(options.gdb_timeout_seconds) +
                                    " s) before it had listed every thread";
    if (text.find("#0 ") == std::string::npos) {
      lines.push_back(who + ": cannot say where it waits: " +
                      (runs[i].out_of_time ? out_of_time : gdb_problem(text)));
      continue;
    }
    const std::vector<std::string> calls = waiting_calls(text);
    if (calls.empty()) {
      lines.push_back(who + (runs[i].out_of_time ? ": cannot say where it waits: " + out_of_time
                                                 : ": not in an MPI or LAPI call") +
                      when);
    } else {
      std::string all;
      for (const std::string& c : calls) all += (all.empty() ? "" : ", ") + c;
      const std::string details = wait_details(text);
      lines.push_back(who + ": waiting in " + all + (details.empty() ? "" : " (" + details + ")") +
                      when);
    }
    if (options.full_stacks) {
      std::istringstream in(text);
      for (std::string line; std::getline(in, line);) {
        if (line.rfind("Thread ", 0) == 0 || line.rfind("#", 0) == 0) lines.push_back("  " + line);
      }
    }
  }
  return lines;
}

}  // namespace lapis::runtime::internal
