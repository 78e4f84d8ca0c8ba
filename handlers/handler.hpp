#pragma once
// Typed active-message handlers.
//
// A header handler runs at the target when an Amsend's header arrives. It
// decides where the data lands and what runs once it has. It runs inside the
// progress engine: it must be short, must not block and must not call any
// communication function (such calls fail with Errc::in_header_handler).
// A completion handler runs once all data is in the landing buffer, on the
// context's completion policy (inline, thread or fiber); it may communicate.
//
// Ordering: for eager messages (below the eager limit) the data copy and, when
// no completion handler is named, the target-counter increment happen while
// the message is being dispatched, in arrival order.

#include <cstddef>
#include <cstdint>

namespace lapi {

class Context;
using TaskId = std::uint32_t;
using HandlerId = std::uint32_t;

// Handler ids a user may register: 1 .. kMaxUserHandlers-1. Id 0 is "none".
inline constexpr HandlerId kMaxUserHandlers = 256;

struct AmHeaderInfo {
  TaskId src;            // sending task
  const void* uhdr;      // user header; valid only during the header handler
  std::size_t uhdr_len;  // bytes of user header
  std::size_t data_len;  // bytes of user data that will land
  void* handler_arg;     // the pointer given when the handler was registered
  // The whole payload when it already sits in local memory (eager), valid
  // only during the header handler; null for rendezvous. A handler may copy
  // a small message from here itself and return no landing buffer.
  const void* data = nullptr;
};

using CompletionHandler = void (*)(Context& ctx, void* user_info, void* completion_arg);

struct Landing {
  void* buffer = nullptr;              // where data_len bytes land; null = discard
  CompletionHandler on_complete = nullptr;
  void* user_info = nullptr;           // first argument to on_complete
  void* completion_arg = nullptr;      // second argument (bridges, e.g. the C API)
  // Non-zero (a lapi::Errc value): refuse the message. Nothing lands, no
  // handler runs, and the origin is told with this code, as for any remote
  // fault (its completion counter fails, its remote-error handler runs).
  int refuse = 0;
};

using HeaderHandler = Landing (*)(Context& ctx, const AmHeaderInfo& info);

enum class CompletionPolicy : std::uint8_t {
  inline_run,  // in the progress context right after the data lands ("Enhanced")
  thread,      // queued to one handler thread ("Base" LAPI)
  fiber,       // on a Boost.Context fiber; a blocking handler suspends only itself
};

}  // namespace lapi
