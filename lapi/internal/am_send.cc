// Origin side of Amsend and of every control message: validate, frame the
// header (Lapis words + user header), and send it into the target's
// shared-memory ring when it is small and the ring reaches the target, else
// through the target's path (path_ops.hpp: split copy, stripes, UCX).

#include <cstring>

#include "lapi/internal/engine.hpp"
#include "lapi/line_copy.hpp"

namespace lapi {

using namespace internal;

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

template <bool kChecked>
RingSend Context::Impl::amsend_shm_locked(TaskId tgt, HandlerId handler,
                                          std::uint16_t extra_flags, const void* uhdr,
                                          std::size_t uhdr_len, const void* data,
                                          std::size_t data_len, const Counters& counters,
                                          bool counted) {
  // The packed layout (wire.hpp), written in place in the target's ring.
  const std::size_t len = ring_frame_len(counters, kChecked, uhdr_len, data_len);
  if (len > ShmChannel::kFrameLimit) return RingSend::refused;
  ShmSend why;
  std::byte* p = shm_.begin_send(tgt, len, why);
  if (p == nullptr) [[unlikely]] return why == ShmSend::full ? RingSend::full : RingSend::refused;
  const std::size_t off = write_frame_locked<kChecked>(
      p, handler, static_cast<std::uint16_t>(extra_flags | uhdr_len << kPackedUhdrShift), uhdr,
      uhdr_len, counters);
  if constexpr (kChecked) {
    checked_.seal_ring_frame_locked(tgt, extra_flags, p, off, uhdr_len, data, data_len);
  } else if (data_len) {
    copy_into_shared(p + off, data, data_len);
  }
  if (!counted) ++peers_[tgt].sent_to;
  end_ring_send_locked(tgt, len);
  if constexpr (kChecked) {
    checked_.keep_ring_frame_locked(tgt, p, off, uhdr, uhdr_len, data, data_len);
  }
  // The data is in the ring: the origin buffer is free.
  if (counters.origin) bump(*counters.origin);
  return RingSend::sent;
}
template RingSend Context::Impl::amsend_shm_locked<false>(TaskId, HandlerId, std::uint16_t,
                                                         const void*, std::size_t, const void*,
                                                         std::size_t, const Counters&, bool);
template RingSend Context::Impl::amsend_shm_locked<true>(TaskId, HandlerId, std::uint16_t,
                                                        const void*, std::size_t, const void*,
                                                        std::size_t, const Counters&, bool);

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

// amsend()'s sending part, inlined there (every message's path) and into
// amsend_locked (a small Put's frame).
[[gnu::always_inline]] inline Status Context::Impl::send_amsend_locked(
    TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len, const void* data,
    std::size_t data_len, const Counters& counters) {
  // LAPIS_CHECKSUM=crc32c: every frame carries a ChecksumWire (integrity.hpp).
  const bool checked = integrity_.on;
  const std::uint16_t flags = checked ? kChecksummed : 0;
  // A task on this node: straight into its shared-memory ring, or, when it
  // is full, in the queue for it (ring_backlog.hpp).
  if (uhdr_len <= kPackedUhdrLimit && data_len < config_.eager_limit &&
      peers_[tgt].path == Path::shm) [[likely]] {
    if (!backlog_.empty()) [[unlikely]] {
      flush_backlog_locked(tgt);
      if (backlog_.has(tgt) &&
          queue_amsend_locked(tgt, handler, flags, uhdr, uhdr_len, data, data_len, counters)) {
        return Errc::success;
      }
    }
    const RingSend r =
        checked ? amsend_shm_locked<true>(tgt, handler, flags, uhdr, uhdr_len, data, data_len,
                                          counters)
                : amsend_shm_locked<false>(tgt, handler, 0, uhdr, uhdr_len, data, data_len,
                                           counters);
    if (r == RingSend::sent) [[likely]] return Errc::success;
    if (r == RingSend::full) {
      if (queue_amsend_locked(tgt, handler, flags, uhdr, uhdr_len, data, data_len, counters)) {
        return Errc::success;
      }
      shm_.note_ring_full();
    }
  }
  // Anything else: the path's own way (path_ops.hpp).
  return via_path<&PathOps::amsend>(tgt, handler, flags, uhdr, uhdr_len, data, data_len,
                                    counters);
}

Status Context::Impl::amsend(TaskId tgt, HandlerId handler, const void* uhdr,
                             std::size_t uhdr_len, const void* data, std::size_t data_len,
                             const Counters& counters) {
  if (Status s = check_amsend_call(tgt, handler, uhdr, uhdr_len, data, data_len); !s.ok()) [[unlikely]] {
    return s;
  }
  Guard guard(lock_);
  return send_amsend_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
}

Status Context::Impl::amsend_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                                    std::size_t uhdr_len, const void* data, std::size_t data_len,
                                    const Counters& counters) {
  return send_amsend_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
}

Status Context::Impl::amsend_quiet(TaskId tgt, HandlerId handler, const void* uhdr,
                                   std::size_t uhdr_len) {
  if (Status s = check_amsend_call(tgt, handler, uhdr, uhdr_len, nullptr, 0); !s.ok()) [[unlikely]] {
    return s;
  }
  {
    Guard guard(lock_);
    const std::size_t len = sizeof(AmsendWire) + uhdr_len;
    ShmSend why;
    std::byte* p = !integrity_.on && uhdr_len <= kPackedUhdrLimit && peers_[tgt].path == Path::shm
                       ? shm_.begin_send(tgt, len, why, true)
                       : nullptr;
    if (p != nullptr) {
      (void)write_frame_locked<false>(p, handler, static_cast<std::uint16_t>(uhdr_len << kPackedUhdrShift),
                                      uhdr, uhdr_len, Counters{});
      ++peers_[tgt].sent_to;
      end_ring_send_locked(tgt, len, true);
      return Errc::success;
    }
  }
  return amsend(tgt, handler, uhdr, uhdr_len, nullptr, 0, Counters{});
}

// The shm path's Amsend beyond the ring: large data through the target's staging area
// (staged_copy.cc) or by split copy (both tasks copy a part), the rest (a full ring, a long
// user header, a target asleep) through UCX.
Status Context::Impl::amsend_host_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                         const void* uhdr, std::size_t uhdr_len, const void* data,
                                         std::size_t data_len, const Counters& counters) {
  if (stages_to(tgt, data_len, counters) &&
      amsend_staged_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters)) {
    return Errc::success;
  }
  if (data_len >= split_threshold() && peers_[tgt].split) {
    return amsend_split_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
  }
  return amsend_ucx_locked(tgt, handler, extra_flags, uhdr, uhdr_len, data, data_len, counters);
}

// The ucx path's Amsend: large data for a task on another host in fragments over the links we
// share (LAPIS_LINKS), the rest through UCX.
Status Context::Impl::amsend_net_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                        const void* uhdr, std::size_t uhdr_len, const void* data,
                                        std::size_t data_len, const Counters& counters) {
  if (stripes_to(tgt, data_len)) [[unlikely]] {
    return amsend_striped_locked(tgt, handler, uhdr, uhdr_len, data, data_len, counters);
  }
  return amsend_ucx_locked(tgt, handler, extra_flags, uhdr, uhdr_len, data, data_len, counters);
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
  if (small && peers_[tgt].path == Path::shm) [[likely]] {
    // Behind queued Amsends, or into a full ring: the caller's amsend() queues it.
    if (!backlog_.empty()) [[unlikely]] {
      flush_backlog_locked(tgt);
      if (backlog_.has(tgt)) return Errc::success;
    }
    const RingSend r =
        checked ? amsend_shm_locked<true>(tgt, handler, kChecksummed, uhdr, uhdr_len, data, data_len, {})
                : amsend_shm_locked<false>(tgt, handler, 0, uhdr, uhdr_len, data, data_len, {});
    if (r == RingSend::sent) [[likely]] {
      sent = true;
      return Errc::success;
    }
    if (r == RingSend::full) return Errc::success;
  }
  if (checked || !small) return Errc::success;
  alignas(8) std::byte frame[kSendHeaderCapacity + kPackedDataLimit];
  const std::size_t off = write_frame_locked<false>(frame, handler, 0, uhdr, uhdr_len, {});
  Status s = via_path<&PathOps::amsend_now>(tgt, frame, off, uhdr_len, data, data_len, sent);
  if (sent) ++peers_[tgt].sent_to;
  return s;
}

void Context::Impl::send_control_locked(TaskId tgt, Proto proto, const void* header,
                                        std::size_t len, const void* data, std::size_t data_len) {
  via_path<&PathOps::send_control>(tgt, proto, header, len, data, data_len);
}

// Why the ring: a split copy's split_done frees the origin's buffer, so its
// latency is on every split-copied message's path. Through UCX's shared
// memory it took about twice a ring frame's time (and the origin, quiet on
// UCX, looks there only every LAPIS_UCX_POLL_EVERY-th poll).
void Context::Impl::send_control_near_locked(TaskId tgt, Proto proto, const void* msg,
                                             std::size_t len) {
  ShmSend why;
  std::byte* p = nullptr;
  const std::size_t frame_len = sizeof(AmsendWire) + len;
  if (peers_[tgt].path == Path::shm) p = shm_.begin_send(tgt, frame_len, why);
  if (p == nullptr) {  // another host, ring full or target asleep
    if (peers_[tgt].path == Path::shm && why == ShmSend::full) shm_.note_ring_full();
    send_control_locked(tgt, proto, msg, len);
    return;
  }
  const AmsendWire w{me_, static_cast<std::uint16_t>(proto), kControlFrame};
  std::memcpy(p, &w, sizeof w);
  std::memcpy(p + sizeof w, msg, len);
  end_ring_send_locked(tgt, frame_len);
}

[[gnu::cold]] void Context::Impl::send_wake_locked(TaskId tgt) {
  const WakeWire wake{me_, 0};
  send_control_locked(tgt, Proto::wake, &wake, sizeof wake);
}

std::size_t Context::Impl::write_frame_out_of_line_locked(bool checked, std::byte* at,
                                                          HandlerId handler,
                                                          std::uint16_t extra_flags,
                                                          const void* uhdr, std::size_t uhdr_len,
                                                          const Counters& counters) {
  return checked ? write_frame_locked<true>(at, handler, extra_flags, uhdr, uhdr_len, counters)
                 : write_frame_locked<false>(at, handler, extra_flags, uhdr, uhdr_len, counters);
}

}  // namespace lapi
