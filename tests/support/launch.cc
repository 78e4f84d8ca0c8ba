#include "tests/support/launch.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace lapis::testing {

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string runfile(const std::string& relative) {
  const char* root = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  if (root == nullptr) return relative;  // run by hand from the workspace root
  return std::string(root) + "/" + (ws ? ws : "lapis") + "/" + relative;
}

LaunchResult launch(const LaunchOptions& options, const std::string& program,
                    const std::vector<std::string>& args) {
  std::string cmd = quote(runfile("runtime/lapirun")) + " -n " + std::to_string(options.ranks) +
                    " --timeout " + std::to_string(options.timeout_s);
  for (const auto& e : options.env) cmd += " -x " + quote(e);
  for (const auto& f : options.flags) cmd += " " + quote(f);
  cmd += " " + quote(runfile(program));
  for (const auto& a : args) cmd += " " + quote(a);
  return run_shell(cmd + " 2>&1");
}

LaunchResult run_shell(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  LaunchResult result;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  if (WIFEXITED(raw)) {
    result.status = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    result.status = 128 + WTERMSIG(raw);
  }
  return result;
}

LaunchResult run_user_command(const std::string& command) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  return run_shell("export ASAN_OPTIONS='" + std::string(asan ? asan : "") +
                   ":verify_asan_link_order=0'; " + command + " 2>&1");
}

}  // namespace lapis::testing
