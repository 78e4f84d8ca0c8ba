// Origin side of Amsend and of every control message:
//   validate → frame the header (Lapis words + user header) → pick protocol
//   (eager below the eager limit, rendezvous at or above) → post to UCX.

#include <cstring>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

// Eager sends up to this size first try to complete inside ucp_am_send_nbx.
constexpr std::size_t kImmediateLimit = 2048;

void on_send_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<SendOp*>(user_data);
  auto* impl = static_cast<Context::Impl*>(op->engine);
  if (status != UCS_OK && status != UCS_ERR_CANCELED) {
    // A refused rendezvous Amsend also arrives here; the target's fault
    // message carries the details and the completion cookie.
    impl->send_errors_++;
  }
  if (op->origin) op->origin->add();
  impl->send_pool_.release(op);
  ucp_request_free(request);
}

}  // namespace

Status Context::Impl::post_send_locked(TaskId tgt, Proto proto, const void* header,
                                       std::size_t header_len, const void* data,
                                       std::size_t data_len, std::uint32_t am_flags,
                                       Counter* origin) {
  SendOp* op = send_pool_.acquire();
  if (header_len) std::memcpy(op->header, header, header_len);  // header may be null when empty
  op->header_len = static_cast<std::uint32_t>(header_len);
  return post_op_locked(op, tgt, proto, data, data_len, am_flags, origin);
}

Status Context::Impl::post_op_locked(SendOp* op, TaskId tgt, Proto proto, const void* data,
                                     std::size_t data_len, std::uint32_t am_flags,
                                     Counter* origin) {
  op->engine = this;
  op->origin = origin;
  const Peer& peer = peers_[tgt];
  if (peer.joined) [[unlikely]] {
    if (peer.ep == nullptr) {  // it left (leave_tasks): nothing more goes to it
      send_pool_.release(op);
      return fail(Errc::tgt_purged, "send to task {}: it left (leave_tasks)", tgt);
    }
    // Every frame and control message starts with its sender's id, as the target numbers it.
    std::memcpy(op->header, &peer.id_there, sizeof peer.id_there);
  }
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = am_flags;
  p.cb.send = on_send_done;
  p.user_data = op;
  ucs_status_ptr_t r = ucp_am_send_nbx(peers_[tgt].ep, static_cast<unsigned>(proto), op->header,
                                       op->header_len, data, data_len, &p);
  if (r == nullptr) {  // done already: UCX will not call on_send_done
    if (origin) origin->add();
    send_pool_.release(op);
    return Errc::success;
  }
  if (UCS_PTR_IS_ERR(r)) {
    send_pool_.release(op);
    return fail(Errc::transport, "send to task {}: {}", tgt, ucs_status_string(UCS_PTR_STATUS(r)));
  }
  return Errc::success;
}

void Context::Impl::send_control_locked(TaskId tgt, Proto proto, const void* header,
                                        std::size_t len, const void* data, std::size_t data_len) {
  if (data_len == 0 && !peers_[tgt].joined) {
    // Usually done at once, with the header read from the caller's memory (a joined task's
    // takes post_send_locked, which writes our id as it numbers us into a copy).
    ucp_request_param_t now;
    now.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    now.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r =
        ucp_am_send_nbx(peers_[tgt].ep, static_cast<unsigned>(proto), header, len, nullptr, 0, &now);
    if (r == nullptr) return;
  }
  // Control messages are small; a transport error here will surface through
  // the operation that waits for the reply.
  (void)post_send_locked(tgt, proto, header, len, data, data_len, UCP_AM_SEND_FLAG_EAGER, nullptr);
}

// Inlined into both senders: the shared-memory path should not pay a call.
template <bool kChecked>
[[gnu::always_inline]] inline std::size_t Context::Impl::write_frame_locked(
    std::byte* at, HandlerId handler, std::uint16_t extra_flags, const void* uhdr,
    std::size_t uhdr_len, const Counters& counters) {
  AmsendWire w{me_, static_cast<std::uint16_t>(handler), extra_flags};
  std::size_t off = sizeof w;
  if (counters.target) {
    w.flags |= kHasTargetCounter;
    std::memcpy(at + off, &counters.target.handle, 8);
    off += 8;
  }
  if (counters.completion) {
    w.flags |= kHasCompletion;
    const std::uint64_t cookie = completions_.insert(counters.completion);
    std::memcpy(at + off, &cookie, 8);
    off += 8;
  }
  if constexpr (kChecked) off += sizeof(ChecksumWire);  // sealed by the caller
  std::memcpy(at, &w, sizeof w);
  if (uhdr_len) std::memcpy(at + off, uhdr, uhdr_len);
  return off + uhdr_len;
}

std::size_t Context::Impl::write_frame_out_of_line_locked(std::byte* at, HandlerId handler,
                                                          std::uint16_t extra_flags,
                                                          const void* uhdr, std::size_t uhdr_len,
                                                          const Counters& counters) {
  return write_frame_locked<true>(at, handler, extra_flags, uhdr, uhdr_len, counters);
}

template <bool kChecked>
bool Context::Impl::amsend_shm_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                      const void* uhdr, std::size_t uhdr_len, const void* data,
                                      std::size_t data_len, const Counters& counters) {
  // The packed layout (wire.hpp), written in place in the target's ring.
  const std::size_t words = (counters.target ? 8 : 0) + (counters.completion ? 8 : 0) +
                            (kChecked ? sizeof(ChecksumWire) : 0);
  const std::size_t len = sizeof(AmsendWire) + words + uhdr_len + data_len;
  if (len > ShmChannel::kFrameLimit) return false;
  ShmSend why;
  std::byte* p = shm_.begin_send(tgt, len, why);
  if (p == nullptr) return false;  // ring full or target asleep: UCX
  const std::size_t off = write_frame_locked<kChecked>(
      p, handler, static_cast<std::uint16_t>(extra_flags | uhdr_len << kPackedUhdrShift), uhdr,
      uhdr_len, counters);
  if constexpr (kChecked) {
    seal_ring_frame_locked(tgt, extra_flags, p, off, uhdr_len, data, data_len);
  } else if (data_len) {
    std::memcpy(p + off, data, data_len);
  }
  ++peers_[tgt].sent_to;
  if (shm_.end_send(tgt, len) == ShmSend::done_wake) [[unlikely]] {
    const WakeWire wake{me_, 0};
    send_control_locked(tgt, Proto::wake, &wake, sizeof wake);
  }
  if constexpr (kChecked) {
    keep_ring_frame_locked(tgt, p, off, uhdr, uhdr_len, data, data_len);
  }
  // The data is in the ring: the origin buffer is free.
  if (counters.origin) bump(*counters.origin);
  return true;
}
template bool Context::Impl::amsend_shm_locked<false>(TaskId, HandlerId, std::uint16_t,
                                                     const void*, std::size_t, const void*,
                                                     std::size_t, const Counters&);
template bool Context::Impl::amsend_shm_locked<true>(TaskId, HandlerId, std::uint16_t,
                                                    const void*, std::size_t, const void*,
                                                    std::size_t, const Counters&);

// Names the first bad argument of an Amsend (out of line: the checks in
// amsend() only decide whether there is one).
[[gnu::cold, gnu::noinline]] Status Context::Impl::amsend_arg_error(
    TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len, const void* data,
    std::size_t data_len) const {
  if (terminated_.load(std::memory_order_relaxed)) {
    return fail(Errc::terminated, "amsend: context already terminated");
  }
  if (tgt >= npeers()) return fail(Errc::tgt, "amsend: tgt={} is not a task (0..{})", tgt, npeers() - 1);
  if (handler == 0 || handler >= kMaxUserHandlers) {
    return fail(Errc::hdr_hndlr_null, "amsend: handler={} is not a handler id (1..{})", handler,
                kMaxUserHandlers - 1);
  }
  if (uhdr == nullptr && uhdr_len > 0) {
    return fail(Errc::uhdr_null, "amsend: uhdr is null but uhdr_len={}", uhdr_len);
  }
  if (uhdr_len > max_uhdr_) {
    return fail(Errc::uhdr_len, "amsend: uhdr_len={} exceeds MAX_UHDR_SZ={}", uhdr_len, max_uhdr_);
  }
  if (data_len > 0 && data == nullptr) {
    return fail(Errc::org_addr_null, "amsend: udata is null but udata_len={}", data_len);
  }
  // Reached for well-formed arguments too once a task failed.
  return check_peer("amsend", tgt);
}

// Inlined into both Amsends: a few compares, and the cold path only when one fails.
[[gnu::always_inline]] inline Status Context::Impl::check_amsend_call(
    TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len, const void* data,
    std::size_t data_len) const {
  if (tl_header_handler_depth > 0) [[unlikely]] {
    return fail(Errc::in_header_handler, "amsend: called from inside a header handler");
  }
  if ((config_.error_checking &&
       (terminated_.load(std::memory_order_relaxed) || tgt >= npeers() || handler == 0 ||
        handler >= kMaxUserHandlers || (uhdr == nullptr && uhdr_len > 0) || uhdr_len > max_uhdr_ ||
        (data == nullptr && data_len > 0))) ||
      failures_.any_failed.load(std::memory_order_relaxed)) [[unlikely]] {
    return amsend_arg_error(tgt, handler, uhdr, uhdr_len, data, data_len);
  }
  return Errc::success;
}

Status Context::Impl::amsend(TaskId tgt, HandlerId handler, const void* uhdr,
                             std::size_t uhdr_len, const void* data, std::size_t data_len,
                             const Counters& counters) {
  if (Status s = check_amsend_call(tgt, handler, uhdr, uhdr_len, data, data_len); !s.ok()) [[unlikely]] {
    return s;
  }
  Guard guard(lock_);
  // LAPIS_CHECKSUM=crc32c: every frame carries a ChecksumWire (integrity.hpp).
  const bool checked = integrity_.on;
  // A task on this node: straight into its shared-memory ring.
  const Path path = peers_[tgt].path;
  if (uhdr_len <= kPackedUhdrLimit && data_len < config_.eager_limit && path == Path::shm &&
      (checked ? amsend_shm_locked<true>(tgt, handler, kChecksummed, uhdr, uhdr_len, data,
                                         data_len, counters)
               : amsend_shm_locked<false>(tgt, handler, 0, uhdr, uhdr_len, data, data_len,
                                          counters))) [[likely]] {
    return Errc::success;
  }
  // Large data for a task on this node: both tasks copy a part.
  if (data_len >= config_.eager_limit && data_len >= kSplitMin && peers_[tgt].split) {
    return amsend_split_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
  }
  // Large data for a task on another host: fragments over the links we share.
  if (stripes_to(tgt, data_len)) [[unlikely]] {
    return amsend_striped_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
  }
  return amsend_ucx_locked(tgt, handler, checked ? kChecksummed : 0, uhdr, uhdr_len, data,
                           data_len, counters);
}

// Out of line: its frame buffer would cost the shared-memory path a large
// stack frame.
[[gnu::noinline]] Status Context::Impl::amsend_ucx_locked(TaskId tgt, HandlerId handler,
                                                          std::uint16_t extra_flags,
                                                          const void* uhdr, std::size_t uhdr_len,
                                                          const void* data, std::size_t data_len,
                                                          const Counters& counters) {
  if (extra_flags & kChecksummed) [[unlikely]] {
    return amsend_ucx_checked_locked(tgt, handler, extra_flags, uhdr, uhdr_len, data, data_len,
                                     counters);
  }
  // Frame: AmsendWire, optional counter handle and completion cookie, then
  // the user header, built on the stack (with room to append packed data).
  alignas(8) std::byte frame[kSendHeaderCapacity + kPackedDataLimit];
  const std::size_t off =
      write_frame_locked<false>(frame, handler, extra_flags, uhdr, uhdr_len, counters);
  ++peers_[tgt].sent_to;
  const bool eager = data_len < config_.eager_limit || extra_flags != 0;

  // Small messages: ask UCX to finish at once.
  if (data_len <= kImmediateLimit && eager) [[likely]] {
    const ucs_status_t now = amsend_ucx_immediate_locked(tgt, frame, off, uhdr_len, data, data_len);
    if (now == UCS_OK) [[likely]] {
      if (counters.origin) bump(*counters.origin);
      return Errc::success;
    }
    if (now != UCS_ERR_NO_RESOURCE) {
      return fail(Errc::transport, "amsend to task {}: {}", tgt, ucs_status_string(now));
    }
    // Transport busy: a queued send.
  }
  SendOp* op = send_pool_.acquire();
  std::memcpy(op->header, frame, off);
  op->header_len = static_cast<std::uint32_t>(off);
  const std::uint32_t protocol = eager ? UCP_AM_SEND_FLAG_EAGER : UCP_AM_SEND_FLAG_RNDV;
  return post_op_locked(op, tgt, Proto::amsend, data, data_len, protocol, counters.origin);
}

// UCS_OK when UCX finished inside the call: then it has consumed frame and data before returning,
// no pooled copy or callback is needed, and the origin buffer is already reusable.
// UCS_ERR_NO_RESOURCE when it could not (nothing was sent). `frame` holds the unpacked head
// (write_frame_locked, `off` bytes) with room for the packed data after it; it is left as it was.
ucs_status_t Context::Impl::amsend_ucx_immediate_locked(TaskId tgt, std::byte* frame, std::size_t off,
                                                        std::size_t uhdr_len, const void* data,
                                                        std::size_t data_len) {
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  p.flags = UCP_AM_SEND_FLAG_EAGER;
  ucs_status_ptr_t r;
  if (data_len <= kPackedDataLimit && uhdr_len <= kPackedUhdrLimit) [[likely]] {
    // One contiguous payload (see Proto::amsend_packed).
    AmsendWire w;
    std::memcpy(&w, frame, sizeof w);
    AmsendWire pw = w;
    pw.src = peers_[tgt].id_there;
    pw.flags |= static_cast<std::uint16_t>(uhdr_len << kPackedUhdrShift);
    std::memcpy(frame, &pw, sizeof pw);
    if (data_len) std::memcpy(frame + off, data, data_len);
    r = ucp_am_send_nbx(peers_[tgt].ep, static_cast<unsigned>(Proto::amsend_packed), nullptr, 0, frame,
                        off + data_len, &p);
    std::memcpy(frame, &w, sizeof w);
  } else {
    std::memcpy(frame, &peers_[tgt].id_there, sizeof(TaskId));  // the src as the target numbers us
    r = ucp_am_send_nbx(peers_[tgt].ep, static_cast<unsigned>(Proto::amsend), frame, off, data, data_len, &p);
  }
  return UCS_PTR_STATUS(r);
}

// Amsend only if it leaves inside the call (the caller keeps nothing for it): the shared-memory
// ring, else UCX's immediate send. Checksummed frames over UCX keep a replay copy and an
// acknowledgement; they take amsend().
Status Context::Impl::amsend_now(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                                 const void* data, std::size_t data_len, bool& sent) {
  sent = false;
  if (Status s = check_amsend_call(tgt, handler, uhdr, uhdr_len, data, data_len); !s.ok()) [[unlikely]] {
    return s;
  }
  Guard guard(lock_);
  const bool checked = integrity_.on;
  const bool small = uhdr_len <= kPackedUhdrLimit && data_len < config_.eager_limit;
  if (small && peers_[tgt].path == Path::shm &&
      (checked ? amsend_shm_locked<true>(tgt, handler, kChecksummed, uhdr, uhdr_len, data, data_len, {})
               : amsend_shm_locked<false>(tgt, handler, 0, uhdr, uhdr_len, data, data_len, {}))) [[likely]] {
    sent = true;
    return Errc::success;
  }
  if (checked || !small || data_len > kImmediateLimit) return Errc::success;
  alignas(8) std::byte frame[kSendHeaderCapacity + kPackedDataLimit];
  const std::size_t off = write_frame_locked<false>(frame, handler, 0, uhdr, uhdr_len, {});
  const ucs_status_t now = amsend_ucx_immediate_locked(tgt, frame, off, uhdr_len, data, data_len);
  if (now == UCS_OK) [[likely]] {
    ++peers_[tgt].sent_to;
    sent = true;
    return Errc::success;
  }
  if (now == UCS_ERR_NO_RESOURCE) return Errc::success;
  return fail(Errc::transport, "amsend to task {}: {}", tgt, ucs_status_string(now));
}

}  // namespace lapi
