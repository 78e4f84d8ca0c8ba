// Fault injection for tests (declared in lapi/testing.hpp).

#include "lapi/internal/engine.hpp"
#include "lapi/testing.hpp"

namespace lapi::testing {

Status send_raw(Context& ctx, TaskId tgt, unsigned am_id, const void* header,
                std::size_t header_len, const void* data, std::size_t data_len) {
  Context::Impl& e = ctx.impl();
  if (tgt >= e.ntasks_) return fail(Errc::tgt, "send_raw: tgt={} out of range", tgt);
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

}  // namespace lapi::testing
