#pragma once
// Command line of `lapirun` (and of the mpirun/mpiexec wrappers built on it):
//   lapirun -n N [--timeout S] [-x VAR[=VAL]]... [--tag-output] [--bind-to core|hwthread|none]
//           [--map-by core|slot] [--report-bindings] [-H host[:N],... | --hostfile FILE] [-ppn N]
//           [--wdir DIR] [--] prog [args...] [: -n N [-x VAR[=VAL]]... [--wdir DIR] prog [args...]]...
// Parsing is pure (no environment access, no I/O) so it can be unit tested.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/hosts.hpp"

namespace lapis::runtime {

// One -x option: set NAME=VALUE in every rank, or forward the launcher's own NAME when no value.
struct EnvSetting {
  std::string name;
  std::optional<std::string> value;
  bool operator==(const EnvSetting&) const = default;
};

// One program of the job. `lapirun -n 2 a : -n 3 b` (MPMD) has two: ranks are numbered across
// them in order (a's are 0-1, b's 2-4), and each rank learns its program's index (LAPIS_APPNUM,
// MPI_APPNUM).
struct AppContext {
  int nranks = 0;
  std::vector<EnvSetting> env;       // -x given in this program's part, after the job's own
  std::string wdir;                  // --wdir: its ranks start in this directory; empty: ours
  std::vector<std::string> command;  // program (as written) followed by its arguments; never empty
  bool operator==(const AppContext&) const = default;
};

// --bind-to. automatic: core when every rank gets a core of its own, else none (as Open MPI).
enum class BindTo { automatic, none, core, hwthread };

struct LauncherOptions {
  int nranks = 0;                         // the whole job's (every program's ranks)
  std::optional<double> timeout_seconds;  // kill the job after this long; from --timeout or LAPIS_TIMEOUT
  std::vector<EnvSetting> env;            // -x before the first program: every rank's
  bool tag_output = false;                // prefix each output line with "[rank] "
  BindTo bind_to = BindTo::automatic;
  bool report_bindings = false;           // say on stderr where each rank is bound
  bool get_stack_traces = false;          // on --timeout: every rank's backtraces too
  bool continue_on_failure = false;       // a rank's failure ends it alone; the others are told
  std::string output_dir;                 // --output-filename: rank N writes DIR/1/rank.N/{stdout,stderr}
  std::vector<HostSlots> hosts;           // -H/--host (all of them, in order); empty: this host only
  std::string hostfile;                   // --hostfile FILE (read by the launcher, not the parser)
  int ranks_per_host = 0;                 // -ppn N; 0: fill each host's slots
  std::vector<AppContext> apps;           // the programs, in rank order; never empty
};

struct HelpRequested {};
struct VersionRequested {};
struct UsageError {
  std::string message;  // one line naming the problem, without "lapirun: " or the usage text
};

using ParsedCommandLine = std::variant<LauncherOptions, HelpRequested, VersionRequested, UsageError>;

// `args` excludes argv[0]. `timeout_env` is the value of LAPIS_TIMEOUT (or, unset, MPICH's
// MPIEXEC_TIMEOUT: `timeout_env_name` says which, for its error), used when --timeout is absent.
// Options: -n/-np/--np/-c N, --wdir DIR, --timeout S, -x VAR[=VAL], --tag-output, --bind-to, --map-by,
// --report-bindings, --continue-on-failure, --output-filename DIR, -H/--host LIST, --hostfile FILE, -ppn N,
// --memory-alloc-kinds LIST (sets LAPIS_MEMORY_ALLOC_KINDS in every rank), -h/--help, -V/--version, "--" ends options; --oversubscribe and
// --allow-run-as-root are accepted for scripts written for Open MPI (they change nothing here).
// Long options also accept --opt=value, and the single-dash spellings of Open MPI and MPICH
// (-bind-to, -map-by, -report-bindings). The first non-option argument starts the command. A
// lone ':' starts another program (MPMD), which may take only -n (required), -x and --wdir.
ParsedCommandLine parse_launcher_options(std::span<const std::string_view> args,
                                         std::optional<std::string_view> timeout_env = std::nullopt,
                                         std::string_view timeout_env_name = "LAPIS_TIMEOUT");

// The usage text printed after a UsageError and for --help (several lines, ends in '\n').
// It lists every option parse_launcher_options accepts.
std::string launcher_usage(std::string_view program_name = "lapirun");

// Finds the program to execute the way execvp would: a name containing '/' is used as is,
// otherwise each directory of `path_env` (PATH) is searched. Returns the path, or a UsageError
// saying whether the program is missing, not a regular file, or not executable.
std::variant<std::string, UsageError> resolve_program(std::string_view program, std::string_view path_env);

}  // namespace lapis::runtime
