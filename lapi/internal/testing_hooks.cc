// Fault injection for tests (declared in lapi/testing.hpp).

#include "lapi/internal/engine.hpp"
#include "lapi/testing.hpp"

#include <cstring>

namespace lapi::testing {

struct EngineAccess {
  static Context::Impl& of(Context& ctx) { return *ctx.impl_; }
};

Status send_raw(Context& ctx, TaskId tgt, unsigned am_id, const void* header,
                std::size_t header_len, const void* data, std::size_t data_len) {
  Context::Impl& e = EngineAccess::of(ctx);
  if (tgt >= e.npeers()) return fail(Errc::tgt, "send_raw: tgt={} out of range", tgt);
  if (header_len > internal::kSendHeaderCapacity) return fail(Errc::hdr_len, "send_raw: header too long");
  Counter sent;
  {
    internal::Guard guard(e.lock_);
    Status s = e.post_send_locked(tgt, static_cast<internal::Proto>(am_id), header, header_len,
                                  data, data_len, UCP_AM_SEND_FLAG_EAGER, &sent);
    if (!s.ok()) return s;
  }
  return ctx.waitcntr(sent, 1);
}

Status shm_send_raw(Context& ctx, TaskId tgt, const void* frame, std::size_t len,
                    std::uint32_t claimed_len) {
  Context::Impl& e = EngineAccess::of(ctx);
  internal::Guard guard(e.lock_);
  if (!e.shm_.reaches(tgt)) return fail(Errc::tgt, "shm_send_raw: tgt={} not on this node", tgt);
  if (len > internal::ShmChannel::kFrameLimit) return fail(Errc::hdr_len, "shm_send_raw: len={} too long", len);
  const internal::ShmSend sent = e.shm_.send(tgt, frame, len, nullptr, 0, claimed_len);
  if (sent != internal::ShmSend::done && sent != internal::ShmSend::done_wake) {
    return fail(Errc::transport, "shm_send_raw: ring full or target asleep");
  }
  return Errc::success;
}

Status stage_send_raw(Context& ctx, TaskId tgt, std::uint64_t token, std::uint64_t offset,
                      const void* data, std::uint32_t len, std::uint32_t crc) {
  Context::Impl& e = EngineAccess::of(ctx);
  internal::Guard guard(e.lock_);
  if (!e.shm_.stages_to(tgt)) return fail(Errc::tgt, "stage_send_raw: tgt={} has no staging area for us", tgt);
  if (len > internal::ShmChannel::kStageChunk) return fail(Errc::hdr_len, "stage_send_raw: len={} too long", len);
  std::byte* slot = e.shm_.stage_begin(tgt);
  if (slot == nullptr) return fail(Errc::transport, "stage_send_raw: every slot taken");
  std::memcpy(slot, data, len);
  if (e.shm_.stage_publish(tgt, token, offset, len, crc, false) == internal::ShmSend::done_wake) {
    e.send_wake_locked(tgt);
  }
  return Errc::success;
}

bool shm_peer_sleeping(Context& ctx, TaskId tgt) {
  Context::Impl& e = EngineAccess::of(ctx);
  internal::Guard guard(e.lock_);
  return e.shm_.peer_sleeping(tgt);
}

bool shm_peer_waiter_asleep(Context& ctx, TaskId tgt) {
  Context::Impl& e = EngineAccess::of(ctx);
  internal::Guard guard(e.lock_);
  return e.shm_.peer_waiter_asleep(tgt);
}

}  // namespace lapi::testing
