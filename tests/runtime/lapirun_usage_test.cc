// Bad command lines make lapirun print one clear line plus the usage text, and exit 2.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tests/runtime/subprocess.hpp"

namespace {

using namespace lapis::runtime::testing;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void check_usage_error(std::vector<std::string> args, const std::string& expected) {
  args.insert(args.begin(), lapirun_path());
  const Outcome outcome = run({args, {}, 30});
  INFO(describe(outcome));
  CHECK(outcome.status == 2);
  CHECK(contains(outcome.err, "lapirun: " + expected));
  CHECK(contains(outcome.err, "usage: lapirun"));
  CHECK(outcome.out.empty());
}

}  // namespace

TEST_CASE("bad usage exits 2 with a message and the usage text") {
  check_usage_error({"-n", "0", "true"}, "invalid number of ranks '0'");
  check_usage_error({"-n", "abc", "true"}, "invalid number of ranks 'abc'");
  check_usage_error({"-n", "2"}, "missing the program to run");
  check_usage_error({"true"}, "missing -n N");
  check_usage_error({"--frobnicate", "-n", "2", "true"}, "unknown option '--frobnicate'");
  check_usage_error({"-n", "2", "--timeout", "never", "true"}, "invalid --timeout 'never'");
  check_usage_error({"-n", "2", "--bind-to", "board", "true"}, "invalid --bind-to 'board'");
  check_usage_error({"-n", "2", "no-such-program-for-lapis"}, "program 'no-such-program-for-lapis' not found in PATH");
  check_usage_error({"-n", "2", "/nonexistent/prog"}, "program '/nonexistent/prog': not found");

  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string plain = std::string(tmp ? tmp : "/tmp") + "/plain_file";
  std::ofstream(plain) << "not a program\n";
  ::chmod(plain.c_str(), 0644);
  check_usage_error({"-n", "2", plain}, "program '" + plain + "': not executable");
}

TEST_CASE("--version prints the release and exits 0") {
  const Outcome outcome = run({{lapirun_path(), "--version"}, {}, 30});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "lapirun (Lapis) "));
}

TEST_CASE("--help prints the usage and exits 0") {
  const Outcome outcome = run({{lapirun_path(), "--help"}, {}, 30});
  INFO(describe(outcome));
  CHECK(outcome.status == 0);
  CHECK(contains(outcome.out, "usage: lapirun -n N"));
}
