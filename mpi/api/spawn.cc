// MPI_Comm_spawn (MPI 3.1 10.3.2) on jobs that connect: the root starts `maxprocs` copies of
// `command` as a job of their own, `lapirun -n maxprocs command argv...` (the lapirun that
// LAPIS_LAPIRUN names, which lapirun sets for its ranks; else lapirun on PATH), with
// LAPIS_SPAWN_PORT naming a port it opened; the children connect to it in MPI_Init
// (connect.cc's connect_to_parent) while the group accepts, as MPI_Comm_accept does. The new
// job's output goes where the root's does. The root waits for it at MPI_Finalize.
//
// MPI_Comm_spawn_multiple starts one job of all its commands, lapirun's MPMD form.
//
// Info: "wdir" sets the children's working directory; "path" lists directories (':'-separated,
// relative ones from the root's working directory) searched for the command before PATH;
// other keys are ignored.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lapi/link.hpp"
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/connect.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/info.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

extern char** environ;

using namespace mpi;

namespace {

// `name` as execve needs it: itself when it has a '/', else the first match in `first_dirs`
// then PATH (':'-separated); empty when that is not an executable file. Relative results are
// made absolute, so that "wdir" cannot change what runs.
std::string find_program(const std::string& name, const std::string& first_dirs = {}) {
  auto absolute = [](std::string p) {
    if (!p.empty() && p[0] != '/') {
      char cwd[4096];
      if (::getcwd(cwd, sizeof cwd) != nullptr) p = std::string(cwd) + "/" + p;
    }
    return p;
  };
  if (name.find('/') != std::string::npos) {
    return ::access(name.c_str(), X_OK) == 0 ? absolute(name) : std::string();
  }
  const char* path = std::getenv("PATH");
  std::string dirs = first_dirs.empty() ? std::string(path ? path : "/usr/bin:/bin")
                                        : first_dirs + ":" + (path ? path : "/usr/bin:/bin");
  std::size_t at = 0;
  while (at <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string candidate = (end > at ? dirs.substr(at, end - at) : ".") + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return absolute(candidate);
    at = end + 1;
  }
  return {};
}

// One program of the new job, as the root found it.
struct SpawnApp {
  std::string program;            // absolute path
  std::vector<std::string> args;  // after the program
  int maxprocs = 0;
  std::string wdir;               // info "wdir"; empty: the root's directory
};

// Starts the new job, `lapirun -n N1 [--wdir D1] -- prog1 args1... : -n N2 ... -- prog2 ...`;
// its lapirun's pid in `pid`.
int start_job(const std::vector<SpawnApp>& apps, const std::string& port, pid_t& pid) {
  const char* named = std::getenv("LAPIS_LAPIRUN");
  const std::string lapirun = find_program(named != nullptr && *named != '\0' ? named : "lapirun");
  if (lapirun.empty()) {
    return fail(MPI_ERR_SPAWN, "no lapirun to start the job with (set LAPIS_LAPIRUN, or put it on PATH)");
  }
  // Everything the child needs is made before fork: between fork and exec only
  // async-signal-safe calls (this process has other threads).
  std::vector<std::string> args = {lapirun};
  for (const SpawnApp& app : apps) {
    if (args.size() > 1) args.emplace_back(":");
    args.insert(args.end(), {"-n", std::to_string(app.maxprocs)});
    if (!app.wdir.empty()) args.insert(args.end(), {"--wdir", app.wdir});
    args.insert(args.end(), {"--", app.program});
    args.insert(args.end(), app.args.begin(), app.args.end());
  }
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "LAPIS_SPAWN_PORT=", 17) != 0) env.emplace_back(*e);
  }
  env.push_back("LAPIS_SPAWN_PORT=" + port);
  std::vector<char*> argp, envp;
  for (std::string& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  static constexpr char kNoExec[] = "MPI_Comm_spawn: cannot run lapirun\n";
  pid = ::fork();
  if (pid < 0) return fail(MPI_ERR_SPAWN, "fork: {}", std::strerror(errno));
  if (pid == 0) {
    ::execve(argp[0], argp.data(), envp.data());
    (void)!::write(STDERR_FILENO, kNoExec, sizeof kNoExec - 1);
    ::_exit(127);
  }
  return MPI_SUCCESS;
}

// While the root accepts: the new job's lapirun still runs (its exit status kept otherwise).
struct Child {
  pid_t pid = -1;
  int status = 0;
  bool ended = false;
};

bool child_running(void* arg) {
  auto* child = static_cast<Child*>(arg);
  if (::waitpid(child->pid, &child->status, WNOHANG) == child->pid) child->ended = true;
  return !child->ended;
}

// One program's arguments, checked and its command found, from the root's directory rather
// than by the new job's lapirun. `which` names the arguments in errors ("" for MPI_Comm_spawn,
// "[i]" for the i-th of MPI_Comm_spawn_multiple).
int make_app(const char* command, char** argv, int maxprocs, MPI_Info info, const std::string& which,
             SpawnApp& app) {
  int rc = check_not_null(command, ("command" + which).c_str());
  if (rc == MPI_SUCCESS && maxprocs < 1) {
    rc = fail(MPI_ERR_ARG, "maxprocs{}={} is not a positive count", which, maxprocs);
  }
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc != MPI_SUCCESS) return rc;
  app.maxprocs = maxprocs;  // a failure from here on still has an error code per process
  std::string dirs;
  if (info != MPI_INFO_NULL) {
    InfoPtr* object = state().infos.find(info);
    if (object != nullptr) {
      if (const std::string* value = (*object)->find("wdir")) app.wdir = *value;
      if (const std::string* value = (*object)->find("path")) dirs = *value;
    }
  }
  app.program = find_program(command, dirs);
  if (app.program.empty()) {
    return fail(MPI_ERR_SPAWN, "command{} '{}' is not a program this process can run (searched {}PATH)", which,
                command, dirs.empty() ? "" : "info \"path\" " + dirs + ", then ");
  }
  for (char** a = argv; a != nullptr && *a != nullptr; ++a) {
    // lapirun would take it for the start of another program.
    if (std::strcmp(*a, ":") == 0) return fail(MPI_ERR_ARG, "argv{} holds a lone ':', which lapirun cannot pass", which);
    app.args.emplace_back(*a);
  }
  return MPI_SUCCESS;
}

// The root's part: start the job and accept its connection.
int root_spawn(const std::vector<SpawnApp>& apps, Child& child, std::unique_ptr<lapi::Link>& link) {
  std::string port;
  if (lapi::Status s = lapi_context().open_port(port); !s.ok()) return fail(MPI_ERR_SPAWN, "{}", s.message());
  int rc = start_job(apps, port, child.pid);
  if (rc == MPI_SUCCESS) {
    const lapi::Status s = lapi_context().accept_link(port, link, &child_running, &child);
    if (!s.ok()) {
      rc = child.ended ? fail(MPI_ERR_SPAWN, "the job started with '{}' ended ({} {}) before its ranks connected",
                              apps.front().program, WIFEXITED(child.status) ? "exit status" : "signal",
                              WIFEXITED(child.status) ? WEXITSTATUS(child.status) : WTERMSIG(child.status))
                       : fail(MPI_ERR_SPAWN, "{}", s.message());
    }
  }
  (void)lapi_context().close_port(port);
  return rc;
}

// Both calls: the checks every rank makes, the root's spawn (`make_apps` builds the programs
// there), and the group's join with the new job.
template <typename MakeApps>
int spawn(const char* function, int root, MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[],
          MakeApps make_apps) {
  if (int rc = check_running(function)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) rc = fail(MPI_ERR_COMM, "comm is an inter-communicator");
  if (rc == MPI_SUCCESS && (root < 0 || root >= c->size())) {
    rc = fail(MPI_ERR_ROOT, "root={} is not a rank of comm (0..{})", root, c->size() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(intercomm, "intercomm");
  if (rc != MPI_SUCCESS) return raise(c, function, rc);
  Child child;
  std::unique_ptr<lapi::Link> link;
  int root_rc = MPI_SUCCESS;
  int processes = 0;
  if (c->rank == root) {
    std::vector<SpawnApp> apps;
    root_rc = make_apps(apps);
    for (const SpawnApp& app : apps) processes += app.maxprocs;
    if (root_rc == MPI_SUCCESS) root_rc = root_spawn(apps, child, link);
    if (child.pid > 0 && !child.ended) state().spawned_launchers.push_back(child.pid);
  }
  rc = join_other_group(*c, root, link.get(), root_rc, intercomm, MPI_ERR_SPAWN);
  if (c->rank == root && array_of_errcodes != MPI_ERRCODES_IGNORE) {
    for (int i = 0; i < processes; ++i) array_of_errcodes[i] = rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_SPAWN;
  }
  return raise(c, function, rc);
}

}  // namespace

extern "C" int MPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info,
                              int root, MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  const ApiCall call("MPI_Comm_spawn");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return spawn("MPI_Comm_spawn", root, comm, intercomm, array_of_errcodes, [&](std::vector<SpawnApp>& apps) {
    return make_app(command, argv, maxprocs, info, "", apps.emplace_back());
  });
}

// The new job runs every command as one MPI_COMM_WORLD (lapirun's MPMD form), ranks numbered
// across the commands in order; MPI_APPNUM is each rank's command's index.
extern "C" int MPI_Comm_spawn_multiple(int count, char* array_of_commands[], char** array_of_argv[],
                                       const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                       MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  const ApiCall call("MPI_Comm_spawn_multiple");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return spawn("MPI_Comm_spawn_multiple", root, comm, intercomm, array_of_errcodes,
               [&](std::vector<SpawnApp>& apps) {
                 if (count < 1) return fail(MPI_ERR_ARG, "count={} is not a positive count", count);
                 int rc = check_not_null(array_of_commands, "array_of_commands");
                 if (rc == MPI_SUCCESS) rc = check_not_null(array_of_maxprocs, "array_of_maxprocs");
                 if (rc == MPI_SUCCESS) rc = check_not_null(array_of_info, "array_of_info");
                 for (int i = 0; i < count && rc == MPI_SUCCESS; ++i) {
                   char** argv = array_of_argv == MPI_ARGVS_NULL ? nullptr : array_of_argv[i];
                   rc = make_app(array_of_commands[i], argv, array_of_maxprocs[i], array_of_info[i],
                                 "[" + std::to_string(i) + "]", apps.emplace_back());
                 }
                 return rc;
               });
}
