#include "runtime/launcher_options.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace lapis::runtime {
namespace {

constexpr int kMaxRanks = 1 << 16;

std::optional<int> parse_rank_count(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < 1 || value > kMaxRanks) return std::nullopt;
  return value;
}

std::optional<double> parse_seconds(std::string_view text) {
  const std::string copy(text);  // strtod needs a terminated string
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value) || value <= 0) return std::nullopt;
  return value;
}

bool is_env_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::optional<EnvSetting> parse_env_setting(std::string_view text) {
  const auto eq = text.find('=');
  EnvSetting setting{std::string(text.substr(0, eq)), std::nullopt};
  if (eq != std::string_view::npos) setting.value = std::string(text.substr(eq + 1));
  if (!is_env_name(setting.name)) return std::nullopt;
  return setting;
}

enum class Flag { tag_output, report_bindings, get_stack_traces, continue_on_failure, ignored };

// Options without a value; `ignored` ones are accepted for other launchers' scripts.
std::optional<Flag> flag_option(std::string_view name) {
  if (name == "--tag-output" || name == "-tag-output") return Flag::tag_output;
  if (name == "--report-bindings" || name == "-report-bindings") return Flag::report_bindings;
  if (name == "--get-stack-traces" || name == "-get-stack-traces") return Flag::get_stack_traces;
  if (name == "--continue-on-failure") return Flag::continue_on_failure;
  if (name == "--oversubscribe" || name == "-oversubscribe" || name == "--allow-run-as-root") {
    return Flag::ignored;
  }
  return std::nullopt;
}

std::optional<BindTo> parse_bind_to(std::string_view text) {
  if (text == "core") return BindTo::core;
  if (text == "hwthread") return BindTo::hwthread;
  if (text == "none") return BindTo::none;
  return std::nullopt;
}

// Splits "--name=value" into its parts; a short option or one without '=' has no inline value.
std::pair<std::string_view, std::optional<std::string_view>> split_inline_value(std::string_view arg) {
  // Hydra's -memory-alloc-kinds=LIST is written with '=' too.
  if (arg.starts_with("--") || arg.starts_with("-memory-alloc-kinds=")) {
    if (const auto eq = arg.find('='); eq != std::string_view::npos) return {arg.substr(0, eq), arg.substr(eq + 1)};
  }
  return {arg, std::nullopt};
}

}  // namespace

namespace {

// One program's part of the command line: its options, then the program and its arguments.
// The first part takes every option (the job's, and -n, -x, --wdir for its program); a part
// after ':' takes only -n, -x and --wdir. Fills `app` (and the job's options, first part only).
// Returns what ends the parse early (help, version, an error), or nullopt.
std::optional<ParsedCommandLine> parse_part(std::span<const std::string_view> args, bool first,
                                            LauncherOptions& options, AppContext& app, bool& have_nranks) {
  std::size_t i = 0;
  // Returns the option's value (inline or the next argument), or nullopt if there is none.
  auto take_value = [&](std::optional<std::string_view> inline_value) -> std::optional<std::string_view> {
    if (inline_value) return inline_value;
    if (i + 1 < args.size()) return args[++i];
    return std::nullopt;
  };
  for (; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!arg.starts_with("-") || arg == "-") break;  // the command starts here
    const auto [name, inline_value] = split_inline_value(arg);
    const bool per_program = name == "-n" || name == "-np" || name == "--np" || name == "-c" || name == "-x" ||
                             name == "--wdir" || name == "-wdir" || name == "-wd";
    if (!first && !per_program) {
      return UsageError{"option " + std::string(name) + " applies to the whole job: give it before the first program"};
    }
    if (name == "-h" || name == "--help") return HelpRequested{};
    if (name == "-V" || name == "--version") return VersionRequested{};
    if (const auto flag = flag_option(name)) {
      if (inline_value) return UsageError{"option " + std::string(name) + " takes no value"};
      if (*flag == Flag::tag_output) options.tag_output = true;
      if (*flag == Flag::report_bindings) options.report_bindings = true;
      if (*flag == Flag::get_stack_traces) options.get_stack_traces = true;
      if (*flag == Flag::continue_on_failure) options.continue_on_failure = true;
      continue;
    }
    const bool known = per_program || name == "--timeout" || name == "--bind-to" ||
                       name == "-bind-to" || name == "--map-by" || name == "-map-by" ||
                       name == "--output-filename" || name == "-output-filename" || name == "-H" ||
                       name == "--host" || name == "-host" || name == "--hostfile" || name == "-hostfile" ||
                       name == "--machinefile" || name == "-machinefile" || name == "-f" || name == "-ppn" ||
                       name == "--ppn" || name == "--npernode" || name == "-npernode" ||
                       name == "--memory-alloc-kinds" || name == "-memory-alloc-kinds";
    if (!known) return UsageError{"unknown option '" + std::string(arg) + "'"};
    const auto value = take_value(inline_value);
    if (!value) return UsageError{"option " + std::string(name) + " needs a value"};
    if (name == "--bind-to" || name == "-bind-to") {
      const auto bind = parse_bind_to(*value);
      if (!bind) {
        return UsageError{"invalid --bind-to '" + std::string(*value) +
                          "': expected core, hwthread or none"};
      }
      options.bind_to = *bind;
    } else if (name == "--map-by" || name == "-map-by") {
      // One host, one slot per core: mapping by core and by slot place ranks alike.
      if (*value != "core" && *value != "slot") {
        return UsageError{"invalid --map-by '" + std::string(*value) + "': expected core or slot"};
      }
    } else if (name == "--output-filename" || name == "-output-filename") {
      if (value->empty()) return UsageError{"invalid --output-filename '': expected a directory"};
      options.output_dir = std::string(*value);
    } else if (name == "--wdir" || name == "-wdir" || name == "-wd") {
      if (value->empty()) return UsageError{"invalid --wdir '': expected a directory"};
      app.wdir = std::string(*value);
    } else if (name == "-H" || name == "--host" || name == "-host") {
      auto hosts = parse_host_list(*value);
      if (const auto* error = std::get_if<HostError>(&hosts)) return UsageError{error->message};
      for (auto& host : std::get<std::vector<HostSlots>>(hosts)) options.hosts.push_back(std::move(host));
    } else if (name == "--hostfile" || name == "-hostfile" || name == "--machinefile" || name == "-machinefile" ||
               name == "-f") {
      if (value->empty()) return UsageError{"invalid --hostfile '': expected a file"};
      options.hostfile = std::string(*value);
    } else if (name == "-ppn" || name == "--ppn" || name == "--npernode" || name == "-npernode") {
      const auto n = parse_rank_count(*value);
      if (!n) return UsageError{"invalid -ppn '" + std::string(*value) + "': expected a positive integer"};
      options.ranks_per_host = *n;
    } else if (name == "--timeout") {
      options.timeout_seconds = parse_seconds(*value);
      if (!options.timeout_seconds) {
        return UsageError{"invalid --timeout '" + std::string(*value) + "': expected a positive number of seconds"};
      }
    } else if (name == "--memory-alloc-kinds" || name == "-memory-alloc-kinds") {
      // MPI 4.1's mpiexec option: the kinds every rank asks for (the MPI
      // library says which it supports, in MPI_Comm_get_info).
      options.env.push_back(EnvSetting{"LAPIS_MEMORY_ALLOC_KINDS", std::string(*value)});
    } else if (name == "-x") {
      auto setting = parse_env_setting(*value);
      if (!setting) return UsageError{"invalid -x '" + std::string(*value) + "': expected VAR or VAR=VALUE"};
      (first ? options.env : app.env).push_back(std::move(*setting));
    } else {
      const auto n = parse_rank_count(*value);
      if (!n) {
        return UsageError{"invalid number of ranks '" + std::string(*value) + "': expected an integer from 1 to " +
                          std::to_string(kMaxRanks)};
      }
      app.nranks = *n;
      have_nranks = true;
    }
  }
  app.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (app.command.empty()) {
    return UsageError{first ? "missing the program to run" : "missing the program after ':'"};
  }
  return std::nullopt;
}

}  // namespace

ParsedCommandLine parse_launcher_options(std::span<const std::string_view> args,
                                         std::optional<std::string_view> timeout_env,
                                         std::string_view timeout_env_name) {
  LauncherOptions options;
  bool first_has_nranks = false;
  std::size_t begin = 0;
  for (std::size_t end = 0; end <= args.size(); ++end) {
    if (end < args.size() && args[end] != ":") continue;
    const bool first = options.apps.empty();
    AppContext& app = options.apps.emplace_back();
    bool have_nranks = false;
    if (auto early = parse_part(args.subspan(begin, end - begin), first, options, app, have_nranks)) return *early;
    if (first) first_has_nranks = have_nranks;
    if (!first && !have_nranks) return UsageError{"the program after ':' needs its own -n N"};
    begin = end + 1;
  }
  if (!options.hosts.empty() && !options.hostfile.empty()) {
    return UsageError{"-H and --hostfile exclude each other: name the hosts once"};
  }
  const bool have_hosts = !options.hosts.empty() || !options.hostfile.empty();
  if (options.ranks_per_host > 0 && !have_hosts) return UsageError{"-ppn needs hosts (-H or --hostfile)"};
  if (!first_has_nranks && (!have_hosts || options.apps.size() > 1)) {
    return UsageError{"missing -n N (the number of ranks)"};
  }
  long total = 0;
  for (const AppContext& app : options.apps) total += app.nranks;
  if (total > kMaxRanks) {
    return UsageError{"the programs ask for " + std::to_string(total) + " ranks, more than " +
                      std::to_string(kMaxRanks)};
  }
  options.nranks = static_cast<int>(total);
  if (!options.timeout_seconds && timeout_env && !timeout_env->empty()) {
    options.timeout_seconds = parse_seconds(*timeout_env);
    if (!options.timeout_seconds) {
      return UsageError{"invalid " + std::string(timeout_env_name) + " '" + std::string(*timeout_env) +
                        "': expected a positive number of seconds"};
    }
  }
  return options;
}

std::string launcher_usage(std::string_view program_name) {
  const std::string p(program_name);
  return "usage: " + p + " -n N [options] [--] program [args...] [: -n N [-x ...] [--wdir DIR] program [args...]]...\n"
         "  -n, -np, -c N        start N ranks (on this host unless hosts are given)\n"
         "  -H, --host H1[:N],H2[:N],...\n"
         "                       run on these hosts, N ranks (slots) each, default 1; hosts are filled\n"
         "                       in order; -n may be left out to fill them all\n"
         "  --hostfile FILE      the hosts, one a line: 'host', 'host slots=N' or 'host:N' (# comments)\n"
         "  -ppn N               N ranks on each host (slots ignored)\n"
         "                       Ranks on other hosts start through $LAPIS_LAUNCH_AGENT (default ssh)\n"
         "                       as 'AGENT HOST env LAPIS_...=... program args'; the rendezvous then\n"
         "                       listens on TCP at $LAPIS_RENDEZVOUS_ADDR (default: the address that\n"
         "                       reaches the first other host) and checks a per-job secret\n"
         "  --timeout S          kill all ranks after S seconds and exit 124 (default: $LAPIS_TIMEOUT,\n"
         "                       else MPICH's $MPIEXEC_TIMEOUT, else none), first saying where each\n"
         "                       rank waits (gdb; SIGUSR1 to lapirun says it at any time)\n"
         "  --get-stack-traces   with that report, every rank's backtraces\n"
         "  -x VAR[=VAL]         set VAR=VAL in every rank, or forward this process's VAR (repeatable;\n"
         "                       after ':', in that program's ranks only)\n"
         "  --wdir DIR           start the program's ranks in DIR (this host's ranks only)\n"
         "  : -n N program ...   another program in the same job (MPMD): ranks are numbered across the\n"
         "                       programs in order; MPI_APPNUM is each rank's program's index\n"
         "  --tag-output         prefix each line of output with [rank]\n"
         "  --continue-on-failure\n"
         "                       a rank that fails (dies, or exits inside the job) ends alone: the\n"
         "                       others are told and go on (LAPI: LAPI_ERR_TGT_PURGED; MPI:\n"
         "                       MPIX_ERR_PROC_FAILED); the exit status is still the failure's\n"
         "  --bind-to core|hwthread|none\n"
         "                       bind each rank to a core (all its hardware threads) or to one hardware\n"
         "                       thread, round-robin over the CPUs this launcher may use (default: core\n"
         "                       when every rank gets a core of its own, else none)\n"
         "  --map-by core|slot   place ranks round-robin over cores (the same on one host)\n"
         "  --report-bindings    say on stderr where each rank is bound\n"
         "  --memory-alloc-kinds LIST\n"
         "                       the memory kinds the ranks ask MPI for (MPI 4.1; e.g. mpi:alloc_mem,system)\n"
         "  --output-filename DIR\n"
         "                       write rank N's output to DIR/1/rank.N/stdout and .../stderr (as Open\n"
         "                       MPI does; the directories are made), not to the terminal\n"
         "  --oversubscribe, --allow-run-as-root\n"
         "                       accepted for Open MPI's scripts; change nothing (more ranks than\n"
         "                       cores always run, unbound unless --bind-to says otherwise)\n"
         "  -h, --help           show this help\n"
         "  -V, --version        show the Lapis version\n"
         "Single-dash spellings (-bind-to, -map-by, -report-bindings) work too.\n"
         "Exit status: 0 if every rank exits 0, else that of the first rank to fail\n"
         "(128+N for signal N), 124 on timeout, 2 on bad usage.\n";
}

std::variant<std::string, UsageError> resolve_program(std::string_view program, std::string_view path_env) {
  auto check = [](const std::string& path) -> std::optional<std::string> {  // nullopt: usable
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "not found";
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if (::access(path.c_str(), X_OK) != 0) return "not executable";
    return std::nullopt;
  };
  const std::string name(program);
  if (name.empty()) return UsageError{"empty program name"};
  if (name.find('/') != std::string::npos) {
    if (auto problem = check(name)) return UsageError{"program '" + name + "': " + *problem};
    return name;
  }
  std::optional<std::string> first_problem;  // report a found-but-unusable file over "not found"
  for (std::size_t start = 0; start <= path_env.size();) {
    std::size_t end = path_env.find(':', start);
    if (end == std::string_view::npos) end = path_env.size();
    const std::string_view dir = path_env.substr(start, end - start);
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    const auto problem = check(candidate);
    if (!problem) return candidate;
    if (*problem != "not found" && !first_problem) first_problem = "'" + candidate + "' is " + *problem;
    start = end + 1;
  }
  if (first_problem) return UsageError{"program '" + name + "': " + *first_problem};
  return UsageError{"program '" + name + "' not found in PATH"};
}

}  // namespace lapis::runtime
