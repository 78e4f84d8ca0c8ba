#pragma once
// A remote error handler (Context::set_remote_error_handler) that records
// what the targets refused, for rank programs that wait for a refusal.

#include <atomic>

#include "lapi/context.hpp"

namespace lapis::testing {

struct Reported {
  std::atomic<int> calls{0};
  std::atomic<int> last_code{0};
};

inline void on_remote_error(lapi::Context&, lapi::TaskId, lapi::Errc code, const char*, void* arg) {
  auto* r = static_cast<Reported*>(arg);
  r->last_code.store(static_cast<int>(code));
  r->calls.fetch_add(1);
}

}  // namespace lapis::testing
