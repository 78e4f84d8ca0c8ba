#include "runtime/internal/launcher.hpp"

#include <dirent.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include "runtime/internal/binding.hpp"
#include "runtime/internal/fd.hpp"
#include "runtime/internal/hang_report.hpp"
#include "runtime/internal/job_names.hpp"
#include "runtime/internal/output_forwarder.hpp"
#include "runtime/internal/process_tree.hpp"
#include "runtime/internal/remote_command.hpp"
#include "runtime/internal/rendezvous_server.hpp"
#include "runtime/internal/spawn.hpp"
#include "runtime/internal/tcp.hpp"
#include "runtime/shm_names.hpp"

namespace lapis::runtime::internal {
namespace {

using Clock = std::chrono::steady_clock;
// How long ranks get between SIGTERM and SIGKILL once the job is being stopped.
constexpr auto kKillGrace = std::chrono::seconds(2);
// The same once a spawned job's launcher was asked for its report: it answers SIGTERM (which
// reaches it with its rank's group) only after its gdbs are done.
constexpr auto kSpawnedReportGrace = std::chrono::seconds(20);

// A job that MPI_Comm_spawn started says so on each of its launcher's lines: they reach the
// user among the spawning job's, through the spawning rank's output.
const std::string& report_prefix() {
  static const std::string prefix =
      std::getenv("LAPIS_SPAWN_PORT") != nullptr ? "lapirun (spawned job): " : "lapirun: ";
  return prefix;
}

void report(const std::string& text) {
  const std::string line = report_prefix() + text + "\n";
  (void)write_all(STDERR_FILENO, std::as_bytes(std::span(line.data(), line.size())));
}

std::string signal_description(int signo) {
  const char* name = ::strsignal(signo);
  return "signal " + std::to_string(signo) + " (" + (name ? name : "unknown") + ")";
}

// A random id for this job: names its rendezvous socket and its ranks' shared-memory files.
std::string make_job_id() {
  std::random_device random;
  char id[32];
  std::snprintf(id, sizeof id, "%08x%08x", random(), random());
  return id;
}

// Unlinks the shared-memory files rank process `pid` of job `job` created (a rank that died
// before its Init finished, or was killed, never unlinked its own). Called while the rank is a
// zombie, not yet reaped, so its pid cannot have been reused by anyone else.
void remove_shm_files_of(const std::string& job, pid_t pid) {
  const std::string prefix = rank_shm_prefix(job, pid);
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0) {
      ::unlinkat(::dirfd(dir), entry->d_name, 0);
    }
  }
  ::closedir(dir);
}

// The launcher's signals arrive through a signalfd in the poll loop instead of handlers, so no
// state is touched from signal context and no wake-up is lost.
class SignalChannel {
 public:
  SignalChannel() {
    sigemptyset(&handled_);
    sigaddset(&handled_, SIGCHLD);
    sigaddset(&handled_, SIGTERM);
    sigaddset(&handled_, SIGUSR1);  // "where is each rank waiting?"
    for (int signo : {SIGINT, SIGHUP}) {  // honour `nohup` and background jobs that ignore these
      struct sigaction old {};
      ::sigaction(signo, nullptr, &old);
      if (old.sa_handler != SIG_IGN) sigaddset(&handled_, signo);
    }
    struct sigaction action {};
    action.sa_handler = SIG_DFL;  // an inherited SIG_IGN for SIGCHLD would auto-reap our ranks
    ::sigaction(SIGCHLD, &action, &old_sigchld_);
    action.sa_handler = SIG_IGN;  // a closed stdout must not kill the launcher mid-job
    ::sigaction(SIGPIPE, &action, &old_sigpipe_);
    ::sigprocmask(SIG_BLOCK, &handled_, &original_mask_);
    fd_.reset(::signalfd(-1, &handled_, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!fd_.valid()) throw std::runtime_error(errno_message("signalfd"));
  }
  ~SignalChannel() {
    ::sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
    ::sigaction(SIGCHLD, &old_sigchld_, nullptr);
    ::sigaction(SIGPIPE, &old_sigpipe_, nullptr);
  }
  SignalChannel(const SignalChannel&) = delete;
  SignalChannel& operator=(const SignalChannel&) = delete;

  int fd() const { return fd_.get(); }
  const sigset_t& original_mask() const { return original_mask_; }
  bool sigpipe_was_ignored() const { return old_sigpipe_.sa_handler == SIG_IGN; }

  std::vector<int> read_pending() {
    std::vector<int> signals;
    signalfd_siginfo info;
    for (;;) {
      const ssize_t n = ::read(fd_.get(), &info, sizeof(info));
      if (n == static_cast<ssize_t>(sizeof(info))) {
        signals.push_back(static_cast<int>(info.ssi_signo));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        return signals;  // EAGAIN: nothing more pending
      }
    }
  }

 private:
  sigset_t handled_;
  sigset_t original_mask_;
  struct sigaction old_sigchld_ {};
  struct sigaction old_sigpipe_ {};
  UniqueFd fd_;
};

// Where the ranks run: which are on other hosts, and (then) where the rendezvous listens.
struct HostPlan {
  std::vector<std::string> places;       // host of each rank; empty: all on this host
  std::vector<bool> remote;              // by rank
  std::optional<std::string> tcp_address;  // set iff some rank is remote
  std::vector<std::string> agent;        // the launch agent's words, first one resolved
};

HostPlan make_host_plan(const std::vector<std::string>& places, int nranks) {
  HostPlan plan;
  plan.places = places;
  plan.remote.assign(static_cast<std::size_t>(nranks), false);
  char own[256] = {};
  (void)::gethostname(own, sizeof own - 1);
  std::optional<std::string> first_remote;
  for (std::size_t rank = 0; rank < places.size() && rank < plan.remote.size(); ++rank) {
    plan.remote[rank] = !is_local_host(places[rank], own);
    if (plan.remote[rank] && !first_remote) first_remote = places[rank];
  }
  if (!first_remote) return plan;
  const char* address = std::getenv("LAPIS_RENDEZVOUS_ADDR");
  plan.tcp_address = address != nullptr && *address != '\0' ? std::string(address) : local_address_towards(*first_remote);
  const char* agent = std::getenv("LAPIS_LAUNCH_AGENT");
  plan.agent = split_agent(agent != nullptr ? agent : "");
  const char* path_env = std::getenv("PATH");
  const auto resolved = resolve_program(plan.agent.front(), path_env ? path_env : "/usr/bin:/bin");
  if (const auto* error = std::get_if<UsageError>(&resolved)) {
    throw std::runtime_error("launch agent (LAPIS_LAUNCH_AGENT): " + error->message);
  }
  plan.agent.front() = std::get<std::string>(resolved);
  return plan;
}

// The agent's remote shell does not start in our directory: name the program absolutely (the
// hosts are expected to share the file system, as with Open MPI's and MPICH's launchers).
std::string absolute_path(const std::string& path) {
  if (path.starts_with('/')) return path;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// The rendezvous socket: a name in Linux's abstract socket namespace, so there is no file to
// leave behind whatever happens to the launcher (SIGKILL before every rank joined included).
// The name is unguessable and the server refuses connections from other users (SO_PEERCRED);
// it stops listening once every rank has joined.
class RendezvousEndpoint {
 public:
  // With a TCP address (jobs across hosts): a TCP socket on that address only.
  RendezvousEndpoint(const std::string& job_id, const std::optional<std::string>& tcp_address) {
    if (tcp_address) {
      listener_ = listen_tcp(*tcp_address, name_);
      return;
    }
    name_ = "@lapirun-" + job_id;
    const UnixAddress address = unix_address(name_);
    listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!listener_.valid()) throw std::runtime_error(errno_message("socket"));
    if (::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&address.addr), address.length) != 0) {
      throw std::runtime_error(errno_message(("bind " + name_).c_str()));
    }
    if (::listen(listener_.get(), SOMAXCONN) != 0) throw std::runtime_error(errno_message("listen"));
  }
  RendezvousEndpoint(const RendezvousEndpoint&) = delete;
  RendezvousEndpoint& operator=(const RendezvousEndpoint&) = delete;

  const std::string& name() const { return name_; }
  UniqueFd take_listener() { return std::move(listener_); }

 private:
  std::string name_;
  UniqueFd listener_;
};

struct RankState {
  pid_t pid = -1;  // also its process group id; -1 if never started
  bool running = false;
  bool lost = false;  // its host stopped answering (on_link_lost already said so)
};

// How long a rendezvous connection across hosts may stay silent before the launcher counts its
// rank as lost: half a second under LAPIS_LINK_TIMEOUT, so that with probes every second the
// launcher knows within the timeout. A rank gives up on the launcher only after twice as long
// (lapirun_bootstrap.cc), so the launcher, which sees the whole job, speaks first.
int launcher_link_timeout_ms() { return std::max(500, link_timeout_ms() - 500); }

class Launcher {
 public:
  Launcher(const LauncherOptions& options, const std::vector<std::string>& program_paths,
           const std::vector<std::string>& places)
      : options_(options),
        program_paths_(program_paths),
        job_id_(make_job_id()),
        plan_(make_host_plan(places, options.nranks)),
        secret_(plan_.tcp_address ? make_job_secret() : std::string()),
        endpoint_(job_id_, plan_.tcp_address),
        server_(endpoint_.take_listener(), options.nranks, secret_, options.continue_on_failure,
                launcher_link_timeout_ms()) {}
  // Only reached with ranks still running if run() threw: leave no orphans behind.
  ~Launcher() {
    if (running_ > 0) signal_all_groups(SIGKILL);
  }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  int run() {
    // steady_clock counts nanoseconds in 64 bits: now + 1e10 s would wrap into the past and end
    // the job at once. A timeout beyond ~30 years is no deadline at all.
    constexpr double kLongestDeadlineSeconds = 1e9;
    if (options_.timeout_seconds && *options_.timeout_seconds <= kLongestDeadlineSeconds) {
      job_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(*options_.timeout_seconds));
    }
    start_ranks();
    // A spawned job asked for its report may still be writing it through a rank's output.
    while (running_ > 0 || (kill_deadline_ && spawned_job_reporting())) poll_once();
    forwarder_.drain();
    if (shutting_down_) signal_all_groups(SIGKILL);  // stray grandchildren of ranks that already exited
    return exit_code_;
  }

 private:
  // How app `index` of options_.apps starts: its program, arguments, directory and environment
  // (the job's -x settings, then its own; LAPIS_APPNUM when the job has several programs).
  RankCommand app_command(std::size_t index) const {
    const AppContext& app = options_.apps[index];
    RankCommand command;
    // In another directory a relative path would name another file.
    command.program_path = app.wdir.empty() ? program_paths_[index] : absolute_path(program_paths_[index]);
    command.argv = app.command;
    command.wdir = app.wdir;
    std::vector<EnvSetting> settings = options_.env;
    settings.insert(settings.end(), app.env.begin(), app.env.end());
    command.env = build_rank_environment(settings, endpoint_.name(), job_id_);
    if (options_.apps.size() > 1) command.env.push_back(std::string(kAppNumVariable) + "=" + std::to_string(index));
    if (!secret_.empty()) command.env.push_back(std::string(kJobSecretVariable) + "=" + secret_);
    if (options_.continue_on_failure) command.env.push_back(std::string(kContinueOnFailureVariable) + "=1");
    if (names_) command.env.push_back(std::string(kNameServerVariable) + "=" + names_->port());
    command.exec_sigmask = signals_.original_mask();
    command.sigpipe_ignored = signals_.sigpipe_was_ignored();
    command.capture_output = options_.tag_output && options_.output_dir.empty();
    command.output_dir = options_.output_dir;
    return command;
  }

  // The job's own name service, unless the job was given one (LAPIS_NAME_SERVER in lapirun's
  // environment, as a job spawned by a rank has it, or in a -x setting; empty turns it off).
  std::unique_ptr<JobNames> start_job_names() const {
    if (std::getenv(kNameServerVariable) != nullptr) return nullptr;
    const auto names_it = [](const EnvSetting& setting) { return setting.name == kNameServerVariable; };
    if (std::any_of(options_.env.begin(), options_.env.end(), names_it)) return nullptr;
    for (const AppContext& app : options_.apps) {
      if (std::any_of(app.env.begin(), app.env.end(), names_it)) return nullptr;
    }
    return std::make_unique<JobNames>(plan_.tcp_address);
  }

  void start_ranks() {
    std::size_t app_index = 0;
    int app_end = options_.apps.front().nranks;  // one past the current app's last rank
    RankCommand command = app_command(0);
    ranks_.resize(static_cast<std::size_t>(options_.nranks));
    const CpuTopology topology = read_topology();
    const int local_ranks =
        static_cast<int>(std::count(plan_.remote.begin(), plan_.remote.end(), false));
    const BindTo bind = resolve_binding(options_.bind_to, local_ranks, topology);
    std::set<std::string> x_names;
    for (const EnvSetting& setting : options_.env) x_names.insert(setting.name);
    for (const AppContext& app : options_.apps) {
      for (const EnvSetting& setting : app.env) x_names.insert(setting.name);
    }
    int local_index = 0;  // binding places this host's ranks only
    for (int rank = 0; rank < options_.nranks; ++rank) {
      if (rank == app_end) {
        command = app_command(++app_index);
        app_end += options_.apps[app_index].nranks;
      }
      const bool remote = plan_.remote[static_cast<std::size_t>(rank)];
      if (options_.report_bindings && !remote) {
        // Placed as this host's local_index-th rank, reported under its job rank.
        std::string line = describe_binding(topology, bind, local_index);
        line.replace(0, line.find(' ', 5), "rank " + std::to_string(rank));
        report(line);
      }
      try {
        SpawnedRank spawned;
        if (remote) {
          // The agent process stands for the rank here: its end is the rank's end, and
          // signalling it must end the rank (ssh: the remote side hangs up).
          RankCommand agent = command;
          agent.program_path = plan_.agent.front();
          agent.argv = remote_rank_argv(plan_.agent, plan_.places[static_cast<std::size_t>(rank)],
                                        remote_rank_env(command.env, x_names, rank, options_.nranks),
                                        absolute_path(command.program_path), {command.argv.begin() + 1, command.argv.end()});
          agent.stdin_for_rank0 = false;
          spawned = spawn_rank(agent, rank, options_.nranks);
        } else {
          spawned = spawn_rank(command, rank, options_.nranks, cpus_for_rank(topology, bind, local_index++));
        }
        ranks_[static_cast<std::size_t>(rank)] = {spawned.pid, true};
        ++running_;
        if (command.capture_output) {
          forwarder_.add(rank, std::move(spawned.stdout_pipe), STDOUT_FILENO);
          forwarder_.add(rank, std::move(spawned.stderr_pipe), STDERR_FILENO);
        }
      } catch (const std::exception& e) {
        report(std::string("cannot start rank ") + std::to_string(rank) + ": " + e.what());
        begin_shutdown(1);
        server_.mark_rank_gone(rank, "rank " + std::to_string(rank) + " could not be started");
        return;
      }
    }
  }

  // One blocking wait for anything: a signal, rendezvous traffic, rank output, or a deadline.
  void poll_once() {
    fds_.clear();
    fds_.push_back({signals_.fd(), POLLIN, 0});
    const std::size_t server_begin = fds_.size();
    server_.append_pollfds(fds_);
    const std::size_t output_begin = fds_.size();
    forwarder_.append_pollfds(fds_);
    const int n = ::poll(fds_.data(), fds_.size(), poll_timeout_ms());
    if (n < 0 && errno != EINTR) throw std::runtime_error(errno_message("poll"));
    if (n > 0) {
      const std::span<const pollfd> all(fds_);
      // Output first, so a rank's last words precede the launcher's report of its death.
      forwarder_.handle_events(all.subspan(output_begin));
      server_.handle_events(all.subspan(server_begin, output_begin - server_begin));
      for (const auto& [rank, error] : server_.take_lost_links()) on_link_lost(rank, error);
      // Once every rank is connected no valid client can come: stop listening.
      if (server_.all_joined()) server_.stop_listening();
      if (fds_[0].revents & POLLIN) {
        for (int signo : signals_.read_pending()) on_signal(signo);
      }
    }
    check_deadlines();
  }

  int poll_timeout_ms() const {
    std::optional<Clock::time_point> next;
    if (job_deadline_ && !shutting_down_) next = job_deadline_;
    if (kill_deadline_ && (!next || *kill_deadline_ < *next)) next = kill_deadline_;
    if (!next) return -1;
    const auto left = std::chrono::duration<double, std::milli>(*next - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::ceil(left));  // round up: never wake just before it
  }

  void on_signal(int signo) {
    if (signo == SIGCHLD) return reap_children();
    if (signo == SIGUSR1) return report_where_ranks_wait(options_.get_stack_traces);
    if (!shutting_down_) {
      report("received " + signal_description(signo) + ", stopping all ranks");
      begin_shutdown(128 + signo);
    } else {
      signal_all_groups(SIGKILL);  // asked twice: do not wait for the grace period
    }
  }

  void reap_children() {
    for (;;) {
      // Look before reaping: the zombie keeps its pid while its files are removed.
      siginfo_t info{};
      if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
        if (errno == EINTR) continue;
        return;  // no children at all
      }
      if (info.si_pid == 0) return;  // none left that changed state
      remove_shm_files_of(job_id_, info.si_pid);
      int status = 0;
      const pid_t pid = ::waitpid(info.si_pid, &status, 0);
      if (pid < 0 && errno == EINTR) continue;
      if (pid <= 0) return;
      for (std::size_t rank = 0; rank < ranks_.size(); ++rank) {
        if (ranks_[rank].pid == pid && ranks_[rank].running) on_rank_exit(static_cast<int>(rank), status);
      }
    }
  }

  void on_rank_exit(int rank, int status) {
    ranks_[static_cast<std::size_t>(rank)].running = false;
    --running_;
    int code = 0;
    std::string how;
    if (WIFSIGNALED(status)) {
      code = 128 + WTERMSIG(status);
      how = "rank " + std::to_string(rank) + " killed by " + signal_description(WTERMSIG(status));
    } else {
      code = WEXITSTATUS(status);
      how = "rank " + std::to_string(rank) + " exited with status " + std::to_string(code);
    }
    // A rank that ends while still in the job (between its lapi init and term) leaves the others
    // waiting for it, whatever its status: end the job rather than let it hang.
    server_.read_pending();
    const std::optional<std::string> unfinished = server_.unfinished_call(rank);
    if (unfinished) how += " without calling " + *unfinished;
    server_.mark_rank_gone(rank, how);
    if (ranks_[static_cast<std::size_t>(rank)].lost) return;  // on_link_lost told of it
    if (server_.aborted(rank) && !shutting_down_) {  // MPI_Abort: the job ends, --continue-on-failure or not
      report(how + ": it aborted the job");
      return begin_shutdown(code != 0 ? code : 1);
    }
    const bool others_stranded = unfinished && running_ > 0;
    if ((code != 0 || others_stranded) && !shutting_down_) {
      if (!options_.continue_on_failure) {
        report(how);
        return begin_shutdown(code != 0 ? code : 1);
      }
      report(how + (running_ > 0 ? "; the others go on (--continue-on-failure)" : ""));
      if (exit_code_ == 0) exit_code_ = code != 0 ? code : 1;  // the first failure still decides
    }
  }

  // A remote rank's rendezvous connection failed while the rank still runs (as far as its
  // agent tells): its host is unreachable, so whatever waits on it would wait forever. As if it
  // had died: the job ends, or with --continue-on-failure the others are told and go on, and
  // the rank is ended (through its agent; cut off, it also ends itself, lapirun_bootstrap.cc).
  void on_link_lost(int rank, const std::string& error) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    // A rank on this host cannot be cut off; its reap says how it ended.
    const bool remote = plan_.remote[static_cast<std::size_t>(rank)];
    if (!remote || !state.running || state.lost || shutting_down_) return;
    state.lost = true;
    const std::string& host = plan_.places[static_cast<std::size_t>(rank)];  // remote: placed by --host
    const std::string how = "lost the connection to rank " + std::to_string(rank) + " on " + host + " (" + error +
                            "): its host is unreachable";
    server_.mark_rank_gone(rank, how);
    if (!options_.continue_on_failure) {
      report(how);
      return begin_shutdown(1);
    }
    report(how + "; the others go on (--continue-on-failure)");
    if (exit_code_ == 0) exit_code_ = 1;
    ::kill(-state.pid, SIGKILL);
  }

  void check_deadlines() {
    const auto now = Clock::now();
    if (job_deadline_ && now >= *job_deadline_ && !shutting_down_) {
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%g", *options_.timeout_seconds);
      report(std::string("timeout after ") + seconds + " s; where each rank waits:");
      report_where_ranks_wait(options_.get_stack_traces);
      begin_shutdown(124);
    }
    if (kill_deadline_ && now >= *kill_deadline_) {
      kill_deadline_.reset();
      signal_all_groups(SIGKILL);
    }
  }

  // One line per running rank (hang_report.hpp), before the job ends or on SIGUSR1.
  // Jobs the ranks spawned report too: their launchers (below the spawning ranks) are asked
  // first, so that their gdbs run beside ours, and get a longer grace to finish before SIGKILL.
  void report_where_ranks_wait(bool full_stacks) {
    std::vector<RankProcess> running;
    std::vector<pid_t> pids;
    for (std::size_t rank = 0; rank < ranks_.size(); ++rank) {
      if (ranks_[rank].running) running.push_back({static_cast<int>(rank), ranks_[rank].pid});
    }
    for (const RankProcess& r : running) pids.push_back(r.pid);
    reporting_launchers_.clear();  // those asked before and still there are found again
    for (const pid_t launcher : descendant_launchers(pids)) {
      if (::kill(launcher, SIGUSR1) != 0) continue;
      reporting_launchers_.push_back(launcher);
      report("asking the launcher of a spawned job (pid " + std::to_string(launcher) +
             ") where its ranks wait");
      kill_grace_ = kSpawnedReportGrace;
    }
    HangReportOptions options;
    options.full_stacks = full_stacks;
    options.job_seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    for (const std::string& line : describe_ranks(running, options)) report(line);
  }

  bool spawned_job_reporting() {
    std::erase_if(reporting_launchers_, [](pid_t pid) { return !process_running(pid); });
    return !reporting_launchers_.empty();
  }

  // Fail fast: the first failure decides the exit status; everyone else is asked to stop.
  void begin_shutdown(int exit_code) {
    if (shutting_down_) return;
    shutting_down_ = true;
    exit_code_ = exit_code;
    signal_all_groups(SIGTERM);
    kill_deadline_ = Clock::now() + kill_grace_;
  }

  // Every rank's group, including those of ranks already reaped: their children may live on.
  void signal_all_groups(int signo) {
    for (const RankState& rank : ranks_) {
      if (rank.pid > 0) ::kill(-rank.pid, signo);
    }
  }

  const LauncherOptions& options_;
  const std::vector<std::string>& program_paths_;
  SignalChannel signals_;  // first: blocks the signals before any child exists
  const std::string job_id_;
  const HostPlan plan_;
  const std::string secret_;  // jobs across hosts: every rendezvous connection proves it
  RendezvousEndpoint endpoint_;
  RendezvousServer server_;
  const std::unique_ptr<JobNames> names_ = start_job_names();
  OutputForwarder forwarder_;
  std::vector<RankState> ranks_;
  std::vector<pollfd> fds_;
  int running_ = 0;
  int exit_code_ = 0;
  bool shutting_down_ = false;
  std::optional<Clock::time_point> job_deadline_;
  const Clock::time_point started_ = Clock::now();
  std::optional<Clock::time_point> kill_deadline_;
  Clock::duration kill_grace_ = kKillGrace;
  std::vector<pid_t> reporting_launchers_;  // spawned jobs' launchers asked where their ranks wait
};

}  // namespace

int run_launcher(const LauncherOptions& options, const std::vector<std::string>& program_paths,
                 const std::vector<std::string>& places) {
  Launcher launcher(options, program_paths, places);
  return launcher.run();
}

}  // namespace lapis::runtime::internal
