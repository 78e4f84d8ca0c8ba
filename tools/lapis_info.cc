// lapis_info: the Lapis release and build, what it finds on this machine
// (UCX, shared memory, cross-memory attach), and the LAPIS_* variables.
//
//   lapis_info                  release, machine, the LAPIS_* variables set here
//   lapis_info --all            every variable with its default and value, and UCX's transports
//   lapis_info --json           the same as JSON lines ({"kind":"variable",...})
//   lapis_info --readme-table   the README's configuration table (Markdown)
#include <sys/statvfs.h>
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lapi/variables.hpp"
#include "runtime/version.hpp"

namespace {

struct Options {
  bool all = false;
  bool json = false;
  bool readme_table = false;
};

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// kernel.yama.ptrace_scope: 0 lets a rank read a sibling's memory (split copy); 1 and up do not.
std::string cross_memory_attach() {
  std::ifstream f("/proc/sys/kernel/yama/ptrace_scope");
  int scope = -1;
  if (!(f >> scope)) return "allowed (no Yama)";
  return scope == 0 ? "allowed (ptrace_scope 0)"
                    : fmt::format("not allowed (ptrace_scope {}): large messages go by UCX", scope);
}

std::string shared_memory() {
  struct statvfs st {};
  if (::statvfs("/dev/shm", &st) != 0) return "no /dev/shm: every message goes by UCX";
  const double mib = 1024.0 * 1024.0;
  return fmt::format("/dev/shm, {:.0f} MiB free of {:.0f} MiB",
                     static_cast<double>(st.f_bavail) * st.f_frsize / mib,
                     static_cast<double>(st.f_blocks) * st.f_frsize / mib);
}

void print_ucx_resources() {
  ucp_config_t* config = nullptr;
  if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) return;
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
  ucp_context_h context = nullptr;
  if (ucp_init(&params, config, &context) == UCS_OK) {
    std::printf("UCX resources (ucp_context_print_info):\n");
    std::fflush(stdout);
    ucp_context_print_info(context, stdout);
    ucp_cleanup(context);
  }
  ucp_config_release(config);
}

int usage(const char* bad) {
  std::fprintf(stderr,
               "lapis_info: unknown argument '%s'\n"
               "usage: lapis_info [--all] [--json] [--readme-table]\n",
               bad);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--all") {
      o.all = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--readme-table") {
      o.readme_table = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: lapis_info [--all] [--json] [--readme-table]\n");
      return 0;
    } else {
      return usage(argv[i]);
    }
  }
  if (o.readme_table) {
    std::fputs(lapi::variables_table().c_str(), stdout);
    return 0;
  }
  const std::string build = fmt::format("g++ {}, C++{}", __VERSION__, __cplusplus / 100 % 100);
  const std::string ucx = ucp_get_version_string();
  if (o.json) {
    std::printf("{\"kind\":\"lapis\",\"version\":%s,\"build\":%s,\"ucx\":%s,\"shared_memory\":%s,"
                "\"cross_memory_attach\":%s}\n",
                json_string(lapis::kLapisVersion).c_str(), json_string(build).c_str(),
                json_string(ucx).c_str(), json_string(shared_memory()).c_str(),
                json_string(cross_memory_attach()).c_str());
  } else {
    std::printf("Lapis %s (%s)\n  UCX %s\n  shared memory: %s\n  cross-memory attach: %s\n",
                lapis::kLapisVersion, build.c_str(), ucx.c_str(), shared_memory().c_str(),
                cross_memory_attach().c_str());
    std::printf("%s:\n", o.all ? "variables" : "variables set here (--all: every one)");
  }
  for (const lapi::Variable& v : lapi::variables()) {
    const char* value = std::getenv(std::string(v.name).c_str());
    if (!o.all && value == nullptr) continue;
    if (o.json) {
      std::printf("{\"kind\":\"variable\",\"name\":%s,\"default\":%s,\"value\":%s,\"layer\":%s,"
                  "\"doc\":%s}\n",
                  json_string(v.name).c_str(), json_string(v.default_value).c_str(),
                  value != nullptr ? json_string(value).c_str() : "null",
                  json_string(v.layer).c_str(), json_string(v.doc).c_str());
    } else {
      std::printf("  %-26s = %-14s (default %s; %s) %s\n", std::string(v.name).c_str(),
                  value != nullptr ? value : "-", std::string(v.default_value).c_str(),
                  std::string(v.layer).c_str(), std::string(v.doc).c_str());
    }
  }
  for (const lapi::UnknownVariable& u : lapi::unknown_variables(environ)) {
    if (o.json) {
      std::printf("{\"kind\":\"unknown_variable\",\"name\":%s,\"closest\":%s}\n",
                  json_string(u.name).c_str(), json_string(u.closest).c_str());
    } else {
      std::printf("  %s is not a Lapis variable%s%s\n", u.name.c_str(),
                  u.closest.empty() ? "" : "; did you mean ", u.closest.empty() ? "" : (u.closest + "?").c_str());
    }
  }
  if (o.all && !o.json) print_ucx_resources();
  return 0;
}
