#pragma once
// fail(): record the detail text (naming the function and argument) and
// return the code. The text shares lapi's thread-local slot, so
// last_error_detail() shows whichever layer failed last on this thread.

#include <string>
#include <utility>

#include <fmt/format.h>

#include "lapi/status.hpp"
#include "mpcpi/mpcpi.hpp"

namespace mpcpi {

template <typename... Args>
[[gnu::cold, gnu::noinline]] Errc fail(Errc code, fmt::format_string<Args...> format, Args&&... args) {
  lapi::set_error_detail(fmt::format(format, std::forward<Args>(args)...));
  return code;
}

}  // namespace mpcpi
