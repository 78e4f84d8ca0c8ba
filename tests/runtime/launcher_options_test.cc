#include "runtime/launcher_options.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>

namespace {

using lapis::runtime::AppContext;
using lapis::runtime::BindTo;
using lapis::runtime::EnvSetting;
using lapis::runtime::HelpRequested;
using lapis::runtime::LauncherOptions;
using lapis::runtime::ParsedCommandLine;
using lapis::runtime::UsageError;
using lapis::runtime::VersionRequested;

ParsedCommandLine parse(std::initializer_list<std::string_view> args,
                        std::optional<std::string_view> timeout_env = std::nullopt) {
  const std::vector<std::string_view> list(args);
  return lapis::runtime::parse_launcher_options(list, timeout_env);
}

LauncherOptions parse_ok(std::initializer_list<std::string_view> args,
                         std::optional<std::string_view> timeout_env = std::nullopt) {
  auto parsed = parse(args, timeout_env);
  if (const auto* error = std::get_if<UsageError>(&parsed)) FAIL("unexpected usage error: " << error->message);
  REQUIRE(std::holds_alternative<LauncherOptions>(parsed));
  return std::get<LauncherOptions>(parsed);
}

std::string parse_error(std::initializer_list<std::string_view> args,
                        std::optional<std::string_view> timeout_env = std::nullopt) {
  auto parsed = parse(args, timeout_env);
  REQUIRE(std::holds_alternative<UsageError>(parsed));
  return std::get<UsageError>(parsed).message;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("minimal command line") {
  const auto options = parse_ok({"-n", "4", "prog"});
  CHECK(options.nranks == 4);
  CHECK(options.apps.front().command == std::vector<std::string>{"prog"});
  CHECK_FALSE(options.timeout_seconds);
  CHECK_FALSE(options.tag_output);
  CHECK(options.env.empty());
}

TEST_CASE("options stop at the program; its own options are left alone") {
  const auto options = parse_ok({"-n", "2", "prog", "-n", "7", "--tag-output", "--"});
  CHECK(options.nranks == 2);
  CHECK_FALSE(options.tag_output);
  CHECK(options.apps.front().command == std::vector<std::string>{"prog", "-n", "7", "--tag-output", "--"});
}

TEST_CASE("every option, in both spellings") {
  const auto options = parse_ok({"-np", "3", "--timeout", "2.5", "-x", "A=b", "-x", "PATH", "-x", "EMPTY=",
                                 "--tag-output", "--", "-prog-with-dash", "arg"});
  CHECK(options.nranks == 3);
  REQUIRE(options.timeout_seconds);
  CHECK(*options.timeout_seconds == doctest::Approx(2.5));
  CHECK(options.tag_output);
  CHECK(options.env == std::vector<EnvSetting>{{"A", "b"}, {"PATH", std::nullopt}, {"EMPTY", ""}});
  CHECK(options.apps.front().command == std::vector<std::string>{"-prog-with-dash", "arg"});

  const auto long_forms = parse_ok({"--np=5", "--timeout=1", "prog"});
  CHECK(long_forms.nranks == 5);
  CHECK(*long_forms.timeout_seconds == doctest::Approx(1.0));
  CHECK(parse_ok({"-n", "1", "-n", "6", "prog"}).nranks == 6);  // the last one wins
  CHECK(parse_ok({"-x", "V=a=b", "-n", "1", "prog"}).env == std::vector<EnvSetting>{{"V", "a=b"}});
  // MPI 4.1's memory kinds reach every rank as LAPIS_MEMORY_ALLOC_KINDS (Hydra's spelling too).
  const std::vector<EnvSetting> kinds{{"LAPIS_MEMORY_ALLOC_KINDS", "mpi:alloc_mem"}};
  CHECK(parse_ok({"--memory-alloc-kinds", "mpi:alloc_mem", "-n", "1", "prog"}).env == kinds);
  CHECK(parse_ok({"--memory-alloc-kinds=mpi:alloc_mem", "-n", "1", "prog"}).env == kinds);
  CHECK(parse_ok({"-memory-alloc-kinds=mpi:alloc_mem", "-n", "1", "prog"}).env == kinds);
}

TEST_CASE("LAPIS_TIMEOUT applies only without --timeout") {
  CHECK(*parse_ok({"-n", "1", "prog"}, "7").timeout_seconds == doctest::Approx(7.0));
  CHECK(*parse_ok({"-n", "1", "--timeout", "3", "prog"}, "7").timeout_seconds == doctest::Approx(3.0));
  CHECK_FALSE(parse_ok({"-n", "1", "prog"}, "").timeout_seconds);
  CHECK(contains(parse_error({"-n", "1", "prog"}, "soon"), "LAPIS_TIMEOUT"));
  // An explicit --timeout makes a bad environment value irrelevant.
  CHECK(parse_ok({"-n", "1", "--timeout", "3", "prog"}, "soon").timeout_seconds);
}

TEST_CASE("help") {
  CHECK(std::holds_alternative<HelpRequested>(parse({"--help"})));
  CHECK(std::holds_alternative<HelpRequested>(parse({"-n", "2", "-h", "prog"})));
  const std::string usage = lapis::runtime::launcher_usage();
  CHECK(contains(usage, "usage: lapirun -n N"));
  CHECK(contains(usage, "--tag-output"));
  CHECK(contains(lapis::runtime::launcher_usage("mpirun"), "usage: mpirun"));
}

TEST_CASE("version") {
  CHECK(std::holds_alternative<VersionRequested>(parse({"--version"})));
  CHECK(std::holds_alternative<VersionRequested>(parse({"-V"})));
}

TEST_CASE("binding and the other launchers' options") {
  CHECK(parse_ok({"-n", "2", "prog"}).bind_to == BindTo::automatic);
  CHECK(parse_ok({"-n", "2", "--bind-to", "core", "prog"}).bind_to == BindTo::core);
  CHECK(parse_ok({"-n", "2", "--bind-to=hwthread", "prog"}).bind_to == BindTo::hwthread);
  CHECK(parse_ok({"-n", "2", "-bind-to", "none", "prog"}).bind_to == BindTo::none);
  CHECK(parse_ok({"-n", "2", "--report-bindings", "prog"}).report_bindings);
  CHECK(parse_ok({"-n", "2", "-report-bindings", "prog"}).report_bindings);
  CHECK_FALSE(parse_ok({"-n", "2", "prog"}).report_bindings);
  for (std::string_view map : {"core", "slot"}) {
    CHECK(parse_ok({"-n", "2", "--map-by", map, "prog"}).apps.front().command.front() == "prog");
  }
  const LauncherOptions compat =
      parse_ok({"--oversubscribe", "--allow-run-as-root", "-c", "3", "prog"});
  CHECK(compat.nranks == 3);
  CHECK(contains(parse_error({"-n", "2", "--bind-to", "socket", "prog"}), "invalid --bind-to 'socket'"));
  CHECK(contains(parse_error({"-n", "2", "--map-by", "node", "prog"}), "invalid --map-by 'node'"));
  CHECK(contains(parse_error({"-n", "2", "--bind-to"}), "--bind-to needs a value"));
  CHECK(contains(parse_error({"-n", "2", "--report-bindings=yes", "prog"}), "takes no value"));
  CHECK(parse_ok({"-n", "2", "--output-filename", "out", "prog"}).output_dir == "out");
  CHECK(parse_ok({"-n", "2", "-output-filename", "o2", "prog"}).output_dir == "o2");
  CHECK(parse_ok({"-n", "2", "prog"}).output_dir.empty());
  CHECK(parse_ok({"-n", "2", "--get-stack-traces", "prog"}).get_stack_traces);
  CHECK_FALSE(parse_ok({"-n", "2", "prog"}).get_stack_traces);
  CHECK(parse_ok({"-n", "2", "--continue-on-failure", "prog"}).continue_on_failure);
  CHECK_FALSE(parse_ok({"-n", "2", "prog"}).continue_on_failure);
  CHECK(contains(parse_error({"-n", "2", "--continue-on-failure=1", "prog"}), "takes no value"));
  CHECK(contains(parse_error({"-n", "2", "--output-filename=", "prog"}), "invalid --output-filename"));
  CHECK(contains(parse_error({"-n", "2", "--output-filename"}), "--output-filename needs a value"));
}

TEST_CASE("the usage text names every option the parser takes") {
  const std::string usage = lapis::runtime::launcher_usage();
  for (const char* option : {"-n", "-np", "-c", "--timeout", "-x", "--tag-output", "--bind-to",
                             "--map-by", "--report-bindings", "--output-filename", "--get-stack-traces", "--continue-on-failure", "--oversubscribe",
                             "--allow-run-as-root", "--memory-alloc-kinds", "--help", "--version"}) {
    CAPTURE(option);
    CHECK(contains(usage, option));
  }
}

TEST_CASE("bad rank counts") {
  for (std::string_view bad : {"0", "-1", "abc", "4x", "", "99999999", "1.5"}) {
    CAPTURE(bad);
    const std::string error = parse_error({"-n", bad, "prog"});
    CHECK(contains(error, "invalid number of ranks"));
  }
  CHECK(contains(parse_error({"-n"}), "-n needs a value"));
  CHECK(contains(parse_error({"prog"}), "missing -n"));
}

TEST_CASE("other bad input") {
  CHECK(contains(parse_error({"-n", "2"}), "missing the program"));
  CHECK(contains(parse_error({"-n", "2", "--"}), "missing the program"));
  CHECK(contains(parse_error({"-n", "2", "--bogus", "prog"}), "unknown option '--bogus'"));
  CHECK(contains(parse_error({"-q", "-n", "2", "prog"}), "unknown option '-q'"));
  CHECK(contains(parse_error({"-n4", "prog"}), "unknown option '-n4'"));
  for (std::string_view bad : {"0", "-3", "abc", "inf", "nan", ""}) {
    CAPTURE(bad);
    CHECK(contains(parse_error({"-n", "2", "--timeout", bad, "prog"}), "invalid --timeout"));
  }
  for (std::string_view bad : {"=x", "1A=x", "A-B=x", ""}) {
    CAPTURE(bad);
    CHECK(contains(parse_error({"-n", "2", "-x", bad, "prog"}), "invalid -x"));
  }
  CHECK(contains(parse_error({"-n", "2", "-x"}), "-x needs a value"));
  CHECK(contains(parse_error({"-n", "2", "--memory-alloc-kinds"}), "--memory-alloc-kinds needs a value"));
  CHECK(contains(parse_error({"-n", "2", "--tag-output=yes", "prog"}), "takes no value"));
}

TEST_CASE("MPMD: ':' starts another program with its own -n, -x and --wdir") {
  const auto options = parse_ok({"--timeout", "9", "-x", "ALL=1", "-n", "1", "--wdir", "/tmp", "a", "x", ":",
                                 "-np", "2", "-x", "ONLY=2", "-wdir", "/", "--", "-b", ":y"});
  CHECK(options.nranks == 3);
  CHECK(*options.timeout_seconds == doctest::Approx(9.0));
  CHECK(options.env == std::vector<EnvSetting>{{"ALL", "1"}});
  REQUIRE(options.apps.size() == 2);
  CHECK(options.apps[0] == AppContext{1, {}, "/tmp", {"a", "x"}});
  CHECK(options.apps[1] == AppContext{2, {{"ONLY", "2"}}, "/", {"-b", ":y"}});
  CHECK(parse_ok({"-n", "1", "a", ":", "-n", "1", "b", ":", "-n", "4", "c"}).nranks == 6);
  const auto one = parse_ok({"-n", "2", "prog"});
  CHECK(one.apps == std::vector<AppContext>{{2, {}, "", {"prog"}}});
}

TEST_CASE("MPMD: bad input") {
  CHECK(contains(parse_error({"-n", "1", "a", ":", "b"}), "after ':' needs its own -n"));
  CHECK(contains(parse_error({"-n", "1", "a", ":", "-n", "1"}), "missing the program after ':'"));
  CHECK(contains(parse_error({"-n", "1", "a", ":"}), "missing the program after ':'"));
  CHECK(contains(parse_error({"-n", "1", "a", ":", "--timeout", "3", "-n", "1", "b"}),
                 "--timeout applies to the whole job"));
  CHECK(contains(parse_error({"-n", "1", "a", ":", "--tag-output", "-n", "1", "b"}), "applies to the whole job"));
  CHECK(contains(parse_error({"-H", "h1:2", "a", ":", "-n", "1", "b"}), "missing -n"));
  CHECK(contains(parse_error({"-n", "60000", "a", ":", "-n", "6000", "b"}), "more than 65536"));
  CHECK(contains(parse_error({"-n", "1", "--wdir", "", "a"}), "invalid --wdir"));
}

TEST_CASE("resolve_program") {
  using lapis::runtime::resolve_program;
  auto error_of = [](const std::variant<std::string, UsageError>& result) {
    REQUIRE(std::holds_alternative<UsageError>(result));
    return std::get<UsageError>(result).message;
  };
  const auto sh = resolve_program("sh", "/nonexistent-dir:/usr/bin:/bin");
  REQUIRE(std::holds_alternative<std::string>(sh));
  CHECK(std::get<std::string>(sh).ends_with("/sh"));
  CHECK(std::get<std::string>(resolve_program("/bin/sh", "")) == "/bin/sh");

  CHECK(contains(error_of(resolve_program("no-such-program-lapis", "/usr/bin:/bin")), "not found in PATH"));
  CHECK(contains(error_of(resolve_program("/nonexistent/prog", "/usr/bin")), "not found"));
  CHECK(contains(error_of(resolve_program("/tmp", "")), "not a regular file"));

  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp ? tmp : "/tmp";
  const std::string plain = dir + "/not_executable";
  std::ofstream(plain) << "data\n";
  ::chmod(plain.c_str(), 0644);
  CHECK(contains(error_of(resolve_program(plain, "")), "not executable"));
  CHECK(contains(error_of(resolve_program("not_executable", dir)), "not executable"));
}

TEST_CASE("hosts: -H (repeatable, both spellings), --hostfile, -ppn; -n optional with hosts") {
  const auto h = parse_ok({"-H", "a:2", "--host", "b", "-ppn", "3", "prog"});
  CHECK(h.nranks == 0);
  CHECK(h.hosts == std::vector<lapis::runtime::HostSlots>{{"a", 2}, {"b", 1}});
  CHECK(h.ranks_per_host == 3);
  const auto f = parse_ok({"-n", "4", "--hostfile=hosts.txt", "prog"});
  CHECK(f.nranks == 4);
  CHECK(f.hostfile == "hosts.txt");
  CHECK(parse_ok({"-machinefile", "m", "prog"}).hostfile == "m");
  CHECK(parse_error({"-H", "a:0", "prog"}) ==
        "invalid host list 'a:0': invalid slot count in 'a:0': expected host:N with N from 1 to 65536");
  CHECK(parse_error({"-H", "a", "--hostfile", "f", "prog"}) == "-H and --hostfile exclude each other: name the hosts once");
  CHECK(parse_error({"-n", "2", "-ppn", "2", "prog"}) == "-ppn needs hosts (-H or --hostfile)");
  CHECK(parse_error({"-H", "a", "-ppn", "0", "prog"}) == "invalid -ppn '0': expected a positive integer");
  CHECK(parse_error({"prog"}) == "missing -n N (the number of ranks)");
}
