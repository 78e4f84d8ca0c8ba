#pragma once
// Error reporting of the C API: every LAPI_* function returns an int code and
// leaves a one-line detail in a per-thread slot, which LAPI_Msg_string appends
// when asked about the same code on the same thread.

#include <cstring>
#include <exception>
#include <new>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "lapi/lapi.h"
#include "lapi/status.hpp"

namespace lapi::c_api {

// Name ("LAPI_ERR_TGT") and fixed meaning of a code this API can return;
// empty name for a code it does not know.
struct CodeText {
  std::string_view name;
  std::string_view meaning;
};
CodeText code_text(int code);

// Stores `detail` as this thread's most recent failure and returns `code`.
int record_failure(int code, std::string_view detail);

// Rejects a call's arguments: record "<function>: <detail>" and return code.
template <typename... Args>
int reject(int code, const char* function, fmt::format_string<Args...> format, Args&&... args) {
  return record_failure(
      code, fmt::format("{}: {}", function, fmt::format(format, std::forward<Args>(args)...)));
}

// Turns a core Status into the C return code, keeping the core's detail text
// (lapi::last_error_detail) prefixed with the C function's name.
int from_status(const char* function, Status status);

// Runs the body of a C entry point: no exception crosses the C ABI. Out of
// memory becomes LAPI_ERR_MEMORY_EXHAUSTED, anything else LAPI_ERR_UNKNOWN.
template <typename Body>
int guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return record_failure(LAPI_ERR_MEMORY_EXHAUSTED, function);
  } catch (const std::exception& e) {
    return record_failure(LAPI_ERR_UNKNOWN, e.what());
  } catch (...) {
    return record_failure(LAPI_ERR_UNKNOWN, function);
  }
}

// The int a C caller stored in an enum-typed argument or field. C enums are
// ints and may hold any value; in C++ reading an out-of-range enum is
// undefined, so the bytes are copied instead of the enum read.
template <typename Enum>
int raw_enum(const Enum& e) {
  static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Writes LAPI_Msg_string's text for `code` into buf (LAPI_MAX_ERR_STRING bytes).
int write_message(int code, char* buf);

}  // namespace lapi::c_api
