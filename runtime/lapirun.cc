// lapirun: starts the ranks of a Lapis job on this host and hosts their rendezvous.
// See runtime/launcher_options.hpp for the command line and internal/launcher.hpp for the rules.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/foreign_mpi.hpp"
#include "runtime/internal/launcher.hpp"
#include "runtime/hosts.hpp"
#include "runtime/launcher_options.hpp"
#include "runtime/version.hpp"

namespace {

constexpr int kUsageStatus = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "lapirun: %s\n%s", message.c_str(), lapis::runtime::launcher_usage().c_str());
  return kUsageStatus;
}

std::string hostfile_error;  // why read_hostfile() returned nothing

std::vector<lapis::runtime::HostSlots> read_hostfile(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    hostfile_error = "cannot read hostfile '" + path + "': " + std::strerror(errno);
    return {};
  }
  std::stringstream contents;
  contents << file.rdbuf();
  auto parsed = lapis::runtime::parse_hostfile(contents.str(), path);
  if (const auto* error = std::get_if<lapis::runtime::HostError>(&parsed)) {
    hostfile_error = error->message;
    return {};
  }
  return std::get<std::vector<lapis::runtime::HostSlots>>(std::move(parsed));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lapis::runtime;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  // LAPIS_TIMEOUT, else MPICH's MPIEXEC_TIMEOUT (test suites written for mpiexec set it).
  const char* timeout_name = std::getenv("LAPIS_TIMEOUT") != nullptr ? "LAPIS_TIMEOUT" : "MPIEXEC_TIMEOUT";
  const char* timeout_env = std::getenv(timeout_name);
  const ParsedCommandLine parsed = parse_launcher_options(
      args, timeout_env ? std::optional<std::string_view>(timeout_env) : std::nullopt, timeout_name);
  if (std::holds_alternative<HelpRequested>(parsed)) {
    std::fputs(launcher_usage().c_str(), stdout);
    return 0;
  }
  if (std::holds_alternative<VersionRequested>(parsed)) {
    std::printf("lapirun (Lapis) %s\n", lapis::kLapisVersion);
    return 0;
  }
  if (const auto* error = std::get_if<UsageError>(&parsed)) return usage_error(error->message);
  LauncherOptions options = std::get<LauncherOptions>(parsed);
  std::vector<std::string> places;  // host of each rank; empty: this host
  if (!options.hosts.empty() || !options.hostfile.empty()) {
    auto hosts = options.hostfile.empty() ? options.hosts : read_hostfile(options.hostfile);
    if (hosts.empty()) return usage_error(hostfile_error);
    auto placed = place_ranks(hosts, options.nranks, options.ranks_per_host);
    if (const auto* error = std::get_if<HostError>(&placed)) return usage_error(error->message);
    places = std::get<std::vector<std::string>>(std::move(placed));
    options.nranks = static_cast<int>(places.size());
    if (options.apps.size() == 1) options.apps.front().nranks = options.nranks;  // -n left out: fill the hosts
    for (const AppContext& app : options.apps) {
      if (!app.wdir.empty()) return usage_error("--wdir is for ranks on this host; not with -H or --hostfile");
    }
  }

  const char* path_env = std::getenv("PATH");
  std::vector<std::string> programs;  // each app's, resolved
  for (const AppContext& app : options.apps) {
    const auto program = resolve_program(app.command.front(), path_env ? path_env : "/usr/bin:/bin");
    if (const auto* error = std::get_if<UsageError>(&program)) return usage_error(error->message);
    if (const auto foreign = foreign_mpi(std::get<std::string>(program))) {
      std::fprintf(stderr, "lapirun: %s\n", foreign->c_str());
      return kUsageStatus;
    }
    programs.push_back(std::get<std::string>(program));
  }

  try {
    return internal::run_launcher(options, programs, places);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lapirun: %s\n", e.what());
    return 1;
  }
}
