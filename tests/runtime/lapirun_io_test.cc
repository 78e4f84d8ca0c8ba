// What ranks see (environment) and how their output reaches the user.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/runtime/subprocess.hpp"

namespace {

using namespace lapis::runtime::testing;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("ranks see LAPIS_* and -x variables") {
  const Outcome outcome = run({{lapirun_path(), "-n", "2", "-x", "XTEST_SET=hello world", "-x", "XTEST_FORWARD", "-x",
                                "XTEST_EMPTY=", "-x", "XTEST_UNSET", probe_path(), "env", "XTEST_SET", "XTEST_FORWARD",
                                "XTEST_EMPTY", "XTEST_UNSET", "LAPIS_RANK", "LAPIS_SIZE", "PMIX_RANK"},
                               {{"XTEST_FORWARD", "from launcher"}, {"PMIX_RANK", "7"}}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(count(outcome.out, "XTEST_SET=hello world\n") == 2);
  CHECK(count(outcome.out, "XTEST_FORWARD=from launcher\n") == 2);
  CHECK(count(outcome.out, "XTEST_EMPTY=\n") == 2);
  CHECK(count(outcome.out, "XTEST_UNSET unset\n") == 2);
  CHECK(count(outcome.out, "LAPIS_RANK=0\n") == 1);
  CHECK(count(outcome.out, "LAPIS_RANK=1\n") == 1);
  CHECK(count(outcome.out, "LAPIS_SIZE=2\n") == 2);
  // A stray PMIX_RANK would make the ranks pick PMIx instead of lapirun's rendezvous.
  CHECK(count(outcome.out, "PMIX_RANK unset\n") == 2);
}

TEST_CASE("-x overrides the launcher's own value") {
  const Outcome outcome = run({{lapirun_path(), "-n", "1", "-x", "XTEST_VAR=new", probe_path(), "env", "XTEST_VAR"},
                               {{"XTEST_VAR", "old"}}});
  INFO(describe(outcome));
  CHECK(outcome.out == "XTEST_VAR=new\n");
}

TEST_CASE("--tag-output prefixes whole lines with the rank") {
  const Outcome outcome = run({{lapirun_path(), "-n", "3", "--tag-output", probe_path(), "output"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  std::vector<std::string> expected_out, expected_err;
  for (int r = 0; r < 3; ++r) {
    const std::string R = std::to_string(r);
    expected_out.push_back("[" + R + "] first half " + R + " second half " + R);
    expected_out.push_back("[" + R + "] line two " + R);
    expected_out.push_back("[" + R + "] no newline " + R);  // the launcher ends the unfinished line
    expected_err.push_back("[" + R + "] error line " + R);
  }
  std::sort(expected_out.begin(), expected_out.end());
  std::sort(expected_err.begin(), expected_err.end());
  CHECK(sorted_lines(outcome.out) == expected_out);
  CHECK(sorted_lines(outcome.err) == expected_err);
}

TEST_CASE("without --tag-output ranks write straight to the launcher's stdout") {
  const Outcome outcome = run({{lapirun_path(), "-n", "2", probe_path(), "env", "LAPIS_RANK"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(sorted_lines(outcome.out) == std::vector<std::string>{"LAPIS_RANK=0", "LAPIS_RANK=1"});
  CHECK_FALSE(contains(outcome.out, "["));
}

TEST_CASE("--output-filename writes each rank's output to DIR/1/rank.N/stdout and stderr") {
  const char* tmp = std::getenv("TEST_TMPDIR");
  REQUIRE(tmp != nullptr);
  const std::string dir = std::string(tmp) + "/outputs";
  // --tag-output beside it changes nothing in the files (as in Open MPI).
  const Outcome outcome =
      run({{lapirun_path(), "-n", "3", "--output-filename", dir, "--tag-output", probe_path(), "output"}});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(outcome.out.empty());  // nothing on the terminal
  for (int r = 0; r < 3; ++r) {
    const std::string R = std::to_string(r);
    CAPTURE(r);
    CHECK(read_file(dir + "/1/rank." + R + "/stdout") ==
          "first half " + R + " second half " + R + "\nline two " + R + "\nno newline " + R);
    CHECK(read_file(dir + "/1/rank." + R + "/stderr") == "error line " + R + "\n");
  }
  // A directory that cannot be made: the rank is not started, the job fails with the reason.
  const Outcome bad = run({{lapirun_path(), "-n", "1", "--output-filename", "/proc/no/such", probe_path(), "output"}});
  CHECK(bad.status != 0);
  CHECK(contains(bad.err, "--output-filename: mkdir /proc/no"));
}
