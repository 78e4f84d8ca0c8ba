// lapirun: starts the ranks of a Lapis job on this host and hosts their rendezvous.
// See runtime/launcher_options.hpp for the command line and internal/launcher.hpp for the rules.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/internal/launcher.hpp"
#include "runtime/launcher_options.hpp"
#include "runtime/version.hpp"

namespace {

constexpr int kUsageStatus = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "lapirun: %s\n%s", message.c_str(), lapis::runtime::launcher_usage().c_str());
  return kUsageStatus;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lapis::runtime;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const char* timeout_env = std::getenv("LAPIS_TIMEOUT");
  const ParsedCommandLine parsed =
      parse_launcher_options(args, timeout_env ? std::optional<std::string_view>(timeout_env) : std::nullopt);
  if (std::holds_alternative<HelpRequested>(parsed)) {
    std::fputs(launcher_usage().c_str(), stdout);
    return 0;
  }
  if (std::holds_alternative<VersionRequested>(parsed)) {
    std::printf("lapirun (Lapis) %s\n", lapis::kLapisVersion);
    return 0;
  }
  if (const auto* error = std::get_if<UsageError>(&parsed)) return usage_error(error->message);
  const auto& options = std::get<LauncherOptions>(parsed);

  const char* path_env = std::getenv("PATH");
  const auto program = resolve_program(options.command.front(), path_env ? path_env : "/usr/bin:/bin");
  if (const auto* error = std::get_if<UsageError>(&program)) return usage_error(error->message);

  try {
    return internal::run_launcher(options, std::get<std::string>(program));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lapirun: %s\n", e.what());
    return 1;
  }
}
