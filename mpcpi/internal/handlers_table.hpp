#pragma once
// The handler table (defined in handlers.cc): wire message type → header
// handler. Engine::create registers entry i at first_handler_id + i.

#include <array>

#include "handlers/handler.hpp"
#include "mpcpi/internal/wire.hpp"

namespace mpcpi {

struct HandlerEntry {
  detail::Msg type;
  lapi::HeaderHandler handler;
};

extern const std::array<HandlerEntry, detail::kMsgCount> kHandlerTable;

}  // namespace mpcpi
