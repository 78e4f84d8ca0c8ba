#include "runtime/bootstrap.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "runtime/internal/lapirun_bootstrap.hpp"
#include "runtime/internal/pmix_bootstrap.hpp"
#include "runtime/internal/singleton_bootstrap.hpp"

namespace lapis::runtime {
namespace {

int env_int(const char* name) {
  const char* text = std::getenv(name);
  const std::string_view view = text ? text : "";
  int value = 0;
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (view.empty() || ec != std::errc() || end != view.data() + view.size()) {
    throw BootstrapError(std::string("LAPIS_RENDEZVOUS is set but ") + name +
                         (text ? " is not an integer: '" + std::string(view) + "'" : std::string(" is missing")));
  }
  return value;
}

// LAPIS_BOOTSTRAP_TIMEOUT in seconds; -1 (wait forever) when unset.
int bootstrap_timeout_ms() {
  const char* text = std::getenv("LAPIS_BOOTSTRAP_TIMEOUT");
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds > 0) || seconds > 1e6) {
    throw BootstrapError(std::string("LAPIS_BOOTSTRAP_TIMEOUT must be a positive number of seconds, got '") + text + "'");
  }
  return static_cast<int>(std::ceil(seconds * 1000));
}

std::unique_ptr<Bootstrap> make_process_bootstrap() {
  if (std::getenv("PMIX_RANK") != nullptr) return std::make_unique<internal::PmixBootstrap>();
  if (const char* path = std::getenv("LAPIS_RENDEZVOUS"); path != nullptr) {
    return std::make_unique<internal::LapirunBootstrap>(path, env_int("LAPIS_RANK"), env_int("LAPIS_SIZE"),
                                                        bootstrap_timeout_ms());
  }
  return std::make_unique<internal::SingletonBootstrap>();
}

}  // namespace

Bootstrap& process_bootstrap() {
  // A function-local static is initialized once even with concurrent first callers; if the
  // constructor throws, the next call tries again.
  static const std::unique_ptr<Bootstrap> instance = make_process_bootstrap();
  return *instance;
}

}  // namespace lapis::runtime
