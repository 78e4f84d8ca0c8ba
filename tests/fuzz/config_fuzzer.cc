// Fuzzes the LAPIS_* configuration parsers: lapi::Config::from_env
// (lapi/config.cc), mpcpi::Options::from_env (mpcpi/options.cc) and the
// launcher's command line with LAPIS_TIMEOUT (runtime/launcher_options.cc).
//
// Input: fields separated by '\n'. The first kVars fields are the values of
// the variables below (an empty field unsets it); the rest are lapirun's
// arguments, the first of them standing for LAPIS_TIMEOUT.
//
// Checks, besides the sanitizers: a refusal names the variable (or says
// what is wrong with the command line), an accepted value reads back within
// its documented range, and a failed parse leaves the output untouched.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lapi/config.hpp"
#include "mpcpi/mpcpi.hpp"
#include "runtime/launcher_options.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

constexpr const char* kVars[] = {
    "LAPIS_MODE",        "LAPIS_POLICY",      "LAPIS_AM_EAGER_LIMIT",    "LAPIS_TAKEOVER_GRACE_US",
    "LAPIS_ERROR_CHECK", "LAPIS_SHM",         "LAPIS_SPLIT_COPY",        "LAPIS_MPI_VARIANT",
    "LAPIS_EAGER_LIMIT", "LAPIS_EARLY_ARRIVAL_MAX", "LAPIS_TRANSPORTS", "LAPIS_PROGRESS_NICE",
    "LAPIS_SPLIT_MIN",
};
constexpr std::size_t kNumVars = sizeof kVars / sizeof kVars[0];

bool names_a_variable(std::string_view text) {
  for (const char* v : kVars) {
    if (text.find(v) != std::string_view::npos) return true;
  }
  return false;
}

void check_lapi_config() {
  lapi::Config config;
  const lapi::Status s = lapi::Config::from_env(config);
  if (!s.ok()) {
    require(names_a_variable(s.message()));
    return;
  }
  require(config.takeover_grace_us >= 1 && config.takeover_grace_us <= 10'000'000);
  require(config.transports != 0 && (config.transports & ~lapi::kTransportsAll) == 0);
}

void check_mpcpi_options() {
  mpcpi::Options options;
  options.eager_limit = 12345;  // sentinel: a failed parse must leave it
  const mpcpi::Errc rc = mpcpi::Options::from_env(options);
  if (rc != mpcpi::Errc::success) {
    require(rc == mpcpi::Errc::invalid_arg);
    require(options.eager_limit == 12345);
    require(names_a_variable(mpcpi::last_error_detail()));
    return;
  }
  require(options.eager_limit <= (std::size_t{1} << 30));
}

void check_launcher(const std::vector<std::string>& fields) {
  if (fields.empty()) return;
  const std::string& timeout_env = fields[0];
  std::vector<std::string_view> args(fields.begin() + 1, fields.end());
  const auto parsed = lapis::runtime::parse_launcher_options(
      args, timeout_env.empty() ? std::nullopt : std::optional<std::string_view>(timeout_env));
  if (const auto* error = std::get_if<lapis::runtime::UsageError>(&parsed)) {
    require(!error->message.empty() && error->message.find('\n') == std::string::npos);
  } else if (const auto* options = std::get_if<lapis::runtime::LauncherOptions>(&parsed)) {
    // With hosts (-H/--hostfile) -n may be left out: 0 means "fill every place".
    const bool hosts = !options->hosts.empty() || !options->hostfile.empty();
    require((options->nranks >= 1 || (hosts && options->nranks == 0)) && options->nranks <= (1 << 16));
    for (const auto& h : options->hosts) require(!h.name.empty() && h.slots >= 1);
    require(!options->apps.empty());
    long ranks = 0;
    for (const auto& app : options->apps) {
      require(!app.command.empty() && app.nranks >= 0);
      ranks += app.nranks;
      for (const auto& e : app.env) require(!e.name.empty());
    }
    require(ranks == options->nranks);
    require(!options->timeout_seconds || *options->timeout_seconds > 0);
    for (const auto& e : options->env) require(!e.name.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> fields(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      fields.emplace_back();
    } else {
      fields.back().push_back(static_cast<char>(data[i]));
    }
  }
  for (std::size_t i = 0; i < kNumVars; ++i) {
    // The environment holds C strings: a value ends at its first NUL.
    const std::string value = i < fields.size() ? std::string(fields[i].c_str()) : std::string();
    if (value.empty()) {
      ::unsetenv(kVars[i]);
    } else {
      ::setenv(kVars[i], value.c_str(), 1);
    }
  }
  check_lapi_config();
  check_mpcpi_options();
  if (fields.size() > kNumVars) {
    check_launcher(std::vector<std::string>(fields.begin() + kNumVars, fields.end()));
  }
  return 0;
}
