#pragma once
// Runs C header and completion handlers from the core's typed handlers.
//
// Target side of LAPI_Amsend:
//   core handler id i < LOC_ADDRTBL_SZ -> index_header_handler: the function
//       LAPI_Addr_set stored at index i (handler_arg = that AddrSlot);
//   core handler id kRawHandlerId      -> raw_header_handler: a function
//       address; the user header starts with a RawHandlerPrefix and the
//       function must be one this task made known (HandlerRegistry).
// Both call the C handler with an aligned copy of the user header and a
// lapi_return_info_t behind `msg_len`, then hand the core a Landing whose
// completion_arg is the C completion handler (run by completion_trampoline).

#include <string_view>

#include "handlers/handler.hpp"
#include "lapi/c_api/handles.hpp"

namespace lapi::c_api {

Landing index_header_handler(Context& ctx, const AmHeaderInfo& info);
Landing raw_header_handler(Context& ctx, const AmHeaderInfo& info);

// Calls the handle's err_hndlr (if any) for an asynchronous error. May run in
// the progress context.
void report_async(HandleState& state, int code, lapi_err_t type, int src, std::string_view detail);

}  // namespace lapi::c_api
