// Runs lapi_latency and lapi_bandwidth under lapirun with tiny sizes and
// iteration counts and checks their --json output: every expected row is
// there, parses, and carries positive numbers. Timings are never asserted.

#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace {

std::string runfile(const std::string& relative) {
  const char* root = std::getenv("TEST_SRCDIR");
  REQUIRE_MESSAGE(root != nullptr, "TEST_SRCDIR is not set: run under bazel test");
  return std::string(root) + "/lapis/" + relative;
}

struct RunResult {
  int exit_code = -1;
  std::string output;
};

// Runs a shell command, capturing stdout (stderr too when asked).
RunResult run(const std::string& command, bool with_stderr = false) {
  const std::string full = command + (with_stderr ? " 2>&1" : "");
  std::FILE* pipe = ::popen(full.c_str(), "r");
  REQUIRE(pipe != nullptr);
  RunResult result;
  char chunk[4096];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) result.output.append(chunk, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string under_lapirun(const std::string& bench, const std::string& args) {
  return runfile("runtime/lapirun") + " -n 2 --timeout 120 " + runfile("benchmarks/" + bench) +
         " " + args;
}

// A flat JSON object of string and number values — all the benchmarks emit.
using JsonValue = std::string;  // strings unquoted, numbers as written
using JsonObject = std::map<std::string, JsonValue>;

std::optional<JsonObject> parse_flat_object(const std::string& line) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  };
  const auto parse_string = [&](std::string& out) {
    if (i >= line.size() || line[i] != '"') return false;
    const std::size_t end = line.find('"', i + 1);
    if (end == std::string::npos) return false;
    out = line.substr(i + 1, end - i - 1);
    i = end + 1;
    return true;
  };
  JsonObject object;
  skip_space();
  if (i >= line.size() || line[i++] != '{') return std::nullopt;
  while (true) {
    skip_space();
    std::string key;
    if (!parse_string(key)) return std::nullopt;
    skip_space();
    if (i >= line.size() || line[i++] != ':') return std::nullopt;
    skip_space();
    std::string value;
    if (i < line.size() && line[i] == '"') {
      if (!parse_string(value)) return std::nullopt;
    } else {
      const std::size_t start = i;
      while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) ||
                                 line[i] == '.' || line[i] == '-' || line[i] == 'e' ||
                                 line[i] == 'E' || line[i] == '+')) {
        ++i;
      }
      value = line.substr(start, i - start);
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size()) return std::nullopt;
    }
    if (!object.emplace(key, value).second) return std::nullopt;  // duplicate key
    skip_space();
    if (i < line.size() && line[i] == ',') {
      ++i;
      continue;
    }
    if (i < line.size() && line[i] == '}') {
      ++i;
      skip_space();
      return i == line.size() ? std::optional(object) : std::nullopt;
    }
    return std::nullopt;
  }
}

std::vector<JsonObject> parse_lines(const std::string& output) {
  std::vector<JsonObject> objects;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const auto object = parse_flat_object(line);
    CHECK_MESSAGE(object.has_value(), "not a JSON object: " << line);
    if (object) objects.push_back(*object);
  }
  return objects;
}

void check_positive(const JsonObject& row, const std::string& key) {
  const auto it = row.find(key);
  REQUIRE_MESSAGE(it != row.end(), "missing key " << key);
  CHECK_MESSAGE(std::strtod(it->second.c_str(), nullptr) > 0, key << " = " << it->second);
}

std::string field(const JsonObject& row, const std::string& key) {
  const auto it = row.find(key);
  return it == row.end() ? std::string() : it->second;
}

std::size_t count_rows(const std::vector<JsonObject>& rows, const std::string& bench) {
  std::size_t n = 0;
  for (const auto& row : rows) n += field(row, "bench") == bench ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("lapi_latency --json: every row parses and carries positive numbers") {
  // 16K is above the default eager limit (8K), so rendezvous runs too.
  const RunResult result =
      run(under_lapirun("lapi_latency", "--sizes 8,16K --iters 5 --reps 2 --json"));
  REQUIRE_MESSAGE(result.exit_code == 0, result.output);
  const auto rows = parse_lines(result.output);
  // 2 modes x (Amsend under 3 policies + Put) x 2 sizes.
  CHECK(count_rows(rows, "latency") == 16);
  // thread/inline and fiber/inline per mode and size.
  CHECK(count_rows(rows, "latency_policy") == 4);
  for (const auto& row : rows) {
    if (field(row, "bench") == "latency") {
      CHECK((field(row, "op") == "amsend" || field(row, "op") == "put"));
      CHECK((field(row, "mode") == "polling" || field(row, "mode") == "interrupt"));
      CHECK(!field(row, "policy").empty());
      for (const char* key : {"size", "iters", "lapis_us", "lapis_min_us", "ucx_us",
                              "ucx_min_us", "ratio"}) {
        check_positive(row, key);
      }
      if (field(row, "op") == "put" && field(row, "mode") == "polling") {
        check_positive(row, "ucx_mempoll_us");
      }
    } else {
      REQUIRE(field(row, "bench") == "latency_policy");
      for (const char* key : {"inline_us", "thread_us", "thread_over_inline", "fiber_us",
                              "fiber_over_inline"}) {
        check_positive(row, key);
      }
    }
  }
}

TEST_CASE("lapi_bandwidth --json: every row parses and carries positive numbers") {
  const RunResult result = run(under_lapirun(
      "lapi_bandwidth", "--sizes 8,64K --iters 3 --reps 2 --window 4 --policy inline --json"));
  REQUIRE_MESSAGE(result.exit_code == 0, result.output);
  const auto rows = parse_lines(result.output);
  // 2 modes x (Amsend + Put) x 2 sizes.
  CHECK(rows.size() == 8);
  for (const auto& row : rows) {
    CHECK(field(row, "bench") == "bandwidth");
    CHECK(field(row, "policy") == "inline");
    for (const char* key : {"size", "window", "lapis_MBps", "ucx_MBps", "ratio"}) {
      check_positive(row, key);
    }
  }
}

TEST_CASE("bad arguments are reported with the argument's name") {
  const auto latency = runfile("benchmarks/lapi_latency");
  RunResult bad_size = run(latency + " --sizes 0", /*with_stderr=*/true);
  CHECK(bad_size.exit_code == 2);
  CHECK(bad_size.output.find("--sizes") != std::string::npos);

  RunResult bad_policy = run(latency + " --policy eager", true);
  CHECK(bad_policy.exit_code == 2);
  CHECK(bad_policy.output.find("--policy") != std::string::npos);

  RunResult window_on_latency = run(latency + " --window 8", true);
  CHECK(window_on_latency.exit_code == 2);
  CHECK(window_on_latency.output.find("--window") != std::string::npos);
}

TEST_CASE("a task count other than 2 is refused with a clear error, not a hang") {
  SUBCASE("one task (no launcher: singleton bootstrap)") {
    const RunResult result =
        run(runfile("benchmarks/lapi_latency") + " --sizes 8 --iters 1 --reps 1", true);
    CHECK(result.exit_code == 1);
    CHECK(result.output.find("exactly 2 tasks") != std::string::npos);
  }
  SUBCASE("four tasks on two cores") {
    const std::string command = runfile("runtime/lapirun") + " -n 4 --timeout 60 " +
                                runfile("benchmarks/lapi_bandwidth") + " --sizes 8 --iters 1";
    const RunResult result = run(command, true);
    CHECK(result.exit_code != 0);
    CHECK(result.exit_code != 124);  // lapirun's timeout status: it hung
    CHECK(result.output.find("exactly 2 tasks") != std::string::npos);
  }
}
