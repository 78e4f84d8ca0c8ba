#include "mpcpi/internal/wait_state.hpp"

std::atomic<std::int32_t> lapis_wait_state[mpcpi::kWaitFields];

namespace mpcpi {
namespace {

void set(WaitField f, std::int64_t v) {
  lapis_wait_state[f].store(static_cast<std::int32_t>(v), std::memory_order_relaxed);
}

}  // namespace

WaitNote::WaitNote(WaitKind kind, int peer, int tag, std::uint32_t context, std::size_t posted,
                   std::size_t unexpected) {
  set(kWaitKind, static_cast<std::int32_t>(kind));
  set(kWaitPeer, peer);
  set(kWaitTag, tag);
  set(kWaitContext, context);
  set(kWaitPosted, static_cast<std::int64_t>(posted));
  set(kWaitUnexpected, static_cast<std::int64_t>(unexpected));
  set(kWaitMagic, kWaitStateMagic);
}

WaitNote::~WaitNote() { set(kWaitKind, static_cast<std::int32_t>(WaitKind::none)); }

}  // namespace mpcpi
