// Runs the C program lapi_c_demo as N real tasks under lapirun, in the
// configurations that change its paths: rank counts above the core count,
// polling vs interrupt mode, each completion policy, all-rendezvous Amsend.

#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string runfile(const char* path) {
  const char* root = std::getenv("TEST_SRCDIR");
  REQUIRE_MESSAGE(root != nullptr, "TEST_SRCDIR is not set: run under bazel test");
  return std::string(root) + "/lapis/" + path;
}

struct Run {
  int exit_code = -1;
  std::string output;
};

Run run(const std::string& command) {
  Run result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) result.output.append(buf, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

int count(const std::string& text, const std::string& needle) {
  int found = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++found;
  return found;
}

// `launcher_flags` go to lapirun (e.g. "-x LAPIS_POLICY=thread"), `demo_flags` to the program.
void run_demo(int ranks, const std::string& launcher_flags = "", const std::string& demo_flags = "") {
  std::string command = runfile("runtime/lapirun") + " -n " + std::to_string(ranks) +
                        " --timeout 120 " + launcher_flags + " " +
                        runfile("tests/c_api/lapi_c_demo") + " --expect-tasks " +
                        std::to_string(ranks) + " " + demo_flags;
  Run result = run(command);
  INFO("command: ", command);
  INFO("output:\n", result.output);
  CHECK(result.exit_code == 0);
  CHECK(count(result.output, "OK\n") == ranks);
  CHECK(count(result.output, "FAILED") == 0);
}

}  // namespace

TEST_CASE("C API demo, interrupt mode (LAPI's default)") {
  SUBCASE("2 tasks") { run_demo(2); }
  SUBCASE("4 tasks") { run_demo(4); }
  SUBCASE("8 tasks") { run_demo(8); }
}

TEST_CASE("C API demo, polling mode (LAPI_INTERRUPT_OFF)") {
  SUBCASE("2 tasks") { run_demo(2, "", "--polling"); }
  SUBCASE("4 tasks") { run_demo(4, "", "--polling"); }
}

TEST_CASE("C API demo, completion policies") {
  SUBCASE("thread") { run_demo(4, "-x LAPIS_POLICY=thread"); }
  SUBCASE("fiber") { run_demo(4, "-x LAPIS_POLICY=fiber"); }
}

TEST_CASE("a task exiting without LAPI_Term ends the job instead of hanging it") {
  const std::string command = runfile("runtime/lapirun") + " -n 3 --timeout 60 " +
                              runfile("tests/c_api/lapi_c_demo") + " --expect-tasks 3 --exit-without-term";
  Run result = run(command);
  INFO("output:\n", result.output);
  CHECK(result.exit_code != 0);
  CHECK(result.exit_code != 124);  // ended by the launcher's rule, not the timeout
  CHECK(count(result.output, "rank 2 exited with status 0 without calling LAPI_Term") == 1);
  CHECK(count(result.output, "NOT REACHED") == 0);
}

TEST_CASE("C API demo, every Amsend by rendezvous") { run_demo(4, "-x LAPIS_AM_EAGER_LIMIT=0"); }
