// LAPIS_CHECKSUM=crc32c for Amsend, both sides (the scheme is in
// integrity.hpp): sealing frames and keeping replay copies at the origin,
// checking frames and landed data at the target, NACKs, retransmissions and
// acks.

#include <algorithm>
#include <cstring>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

// Ring frames with up to this much data are checked by one CRC over head,
// user header and data (CrcScope::uhdr_data): one call less on each side,
// 2 CRC32 steps more on the head's chain. lapi_latency --checksum
// none,crc32c, builds alternated twice (checked us, this bound / 64 /
// separate chains): 8 B 0.106-0.107 / 0.104-0.110 / 0.113-0.117, 16 B
// 0.113-0.115 / 0.117-0.118 / 0.119-0.121, but 32 B 0.115-0.119 /
// 0.122-0.125 / 0.117-0.120 and 64 B 0.111-0.119 / 0.148-0.156 /
// 0.122: from 32 B the longer chain costs more than the call.
constexpr std::size_t kCrcCoversDataMax = 16;

// Where a frame's ChecksumWire and user header sit, from its AmsendWire.
struct FrameLayout {
  std::size_t sum_off;
  std::size_t uhdr_len;
};

FrameLayout layout_of(const ReplayRing::Frame& f) {
  AmsendWire w;
  std::memcpy(&w, f.bytes, sizeof w);
  const std::size_t sum_off = sizeof w + ((w.flags & kHasTargetCounter) ? 8 : 0) +
                              ((w.flags & kHasCompletion) ? 8 : 0);
  const std::size_t uhdr_len = f.kind == ReplayRing::Kind::packed
                                   ? std::size_t{w.flags} >> kPackedUhdrShift
                                   : f.head_len - sum_off - sizeof(ChecksumWire);
  return {sum_off, uhdr_len};
}

// A frame copy UCX reads until the send completes.
struct OwnedFrame {
  std::vector<std::byte> bytes;
};

void on_owned_sent(void* request, ucs_status_t, void* user_data) {
  delete static_cast<OwnedFrame*>(user_data);
  ucp_request_free(request);
}

std::uint16_t attempt_after(std::uint16_t attempt) { return static_cast<std::uint16_t>(attempt + 1); }

}  // namespace

// ---------------------------------------------------------------- origin

ReplayRing& CheckedTransfers::replay_for(TaskId tgt) { return integrity_.replay[tgt]; }

void CheckedTransfers::seal_ring_frame_locked(TaskId tgt, std::uint16_t flags, std::byte* frame,
                                              std::size_t head_len, std::size_t uhdr_len,
                                              const void* data, std::size_t data_len) {
  const std::uint64_t seq = replay_for(tgt).next_seq();
  const std::uint32_t split_crc = (flags & kSplitData) ? integrity_.next_split_crc : 0u;
  const std::size_t sum_off = head_len - uhdr_len - sizeof(ChecksumWire);
  const auto replay = static_cast<std::uint8_t>(Repair::replay);
  if (data_len <= kCrcCoversDataMax) {
    // Small data: one CRC over the frame's words, user header and data,
    // which lie side by side in the slot (read back just written): one
    // call less each side on the small message's latency path.
    if (data_len != 0) std::memcpy(frame + head_len, data, data_len);
    const auto scope = static_cast<std::uint8_t>(CrcScope::uhdr_data);
    seal_frame(frame, sum_off, uhdr_len + data_len,
               ChecksumWire{seq, 0, split_crc, 0, replay, scope, 0});
    return;
  }
  // Larger data: its CRC comes from the user's buffer while it goes into
  // the ring, a chain of its own beside the head's (one chain over both
  // made a 200 B Amsend 0.69 us instead of 0.55).
  const std::uint32_t crc = crc32c_copy(frame + head_len, data, data_len, 0);
  const auto scope = static_cast<std::uint8_t>(CrcScope::uhdr);
  seal_frame(frame, sum_off, uhdr_len, ChecksumWire{seq, crc, split_crc, 0, replay, scope, 0});
}

void CheckedTransfers::keep_ring_frame_locked(TaskId tgt, const std::byte* frame,
                                              std::size_t head_len, const void* uhdr,
                                              std::size_t uhdr_len, const void* data,
                                              std::size_t data_len) {
  ReplayRing& ring = replay_for(tgt);
  const std::size_t len = head_len + data_len;
  const std::size_t words = head_len - uhdr_len;
  std::byte* copy = ring.reserve(len);
  std::memcpy(copy, frame, words);
  if (uhdr_len) std::memcpy(copy + words, uhdr, uhdr_len);
  if (data_len) std::memcpy(copy + head_len, data, data_len);
  ring.commit(ring.next_seq(), len, 0, ReplayRing::Kind::packed);
}

Status CheckedTransfers::amsend_ucx_checked_locked(TaskId tgt, HandlerId handler,
                                                   std::uint16_t extra_flags, const void* uhdr,
                                                   std::size_t uhdr_len, const void* data,
                                                   std::size_t data_len, const Counters& counters) {
  const bool packed = data_len <= kPackedDataLimit && uhdr_len <= kPackedUhdrLimit;
  alignas(8) std::byte frame[kSendHeaderCapacity];
  const std::uint16_t flags = static_cast<std::uint16_t>(
      extra_flags | (packed ? uhdr_len << kPackedUhdrShift : 0));
  const std::size_t head_len =
      e_.write_frame_out_of_line_locked(true, frame, handler, flags, uhdr, uhdr_len, counters);
  const std::size_t sum_off = head_len - uhdr_len - sizeof(ChecksumWire);
  const bool eager = (extra_flags & kSplitData) != 0 || (data_len < e_.config_.eager_limit &&
                                                         head_len + data_len <= kReplayFrameLimit);
  if (eager) {
    // The frame goes from its replay copy, filled while the data's CRC is
    // computed; the user's buffer is free at once.
    ReplayRing& ring = replay_for(tgt);
    const std::uint64_t seq = ring.next_seq();
    const std::size_t len = head_len + data_len;
    std::byte* copy = ring.reserve(len);
    const std::uint32_t crc = crc32c_copy(copy + head_len, data, data_len, 0);
    const ChecksumWire sum{seq, crc, (extra_flags & kSplitData) ? integrity_.next_split_crc : 0u,
                           0, static_cast<std::uint8_t>(Repair::replay), 0, 0};
    seal_frame(frame, sum_off, uhdr_len, sum);
    std::memcpy(copy, frame, head_len);
    const auto kind = packed ? ReplayRing::Kind::packed : ReplayRing::Kind::unpacked;
    ring.commit(seq, len, packed ? 0 : head_len, kind);
    const Status s = send_replay_frame_locked(tgt, {copy, static_cast<std::uint32_t>(len),
                                                    static_cast<std::uint32_t>(packed ? 0 : head_len),
                                                    kind});
    if (!s.ok()) return s;
    ++e_.peers_[tgt].sent_to;
    if (counters.origin) e_.bump(*counters.origin);
    return Errc::success;
  }
  // Rendezvous: the data stays in the user's buffer, held until the target
  // acks, so that it can be sent again.
  const std::uint64_t token = integrity_.next_token++;
  const std::uint32_t crc = crc32c_extend(0, data, data_len);
  seal_frame(frame, sum_off, uhdr_len,
             ChecksumWire{token, crc, 0, 0, static_cast<std::uint8_t>(Repair::held), 0, 0});
  integrity_.held_sends.emplace(
      token, HeldSend{tgt, data, data_len, counters.origin, crc, {frame, frame + head_len}});
  SendOp* op = e_.send_pool_.acquire();
  std::memcpy(op->header, frame, head_len);
  op->header_len = static_cast<std::uint32_t>(head_len);
  const Status s =
      e_.post_op_locked(op, tgt, Proto::amsend, data, data_len, UCP_AM_SEND_FLAG_RNDV, nullptr);
  if (!s.ok()) {
    integrity_.held_sends.erase(token);
    return s;
  }
  ++e_.peers_[tgt].sent_to;
  return Errc::success;
}

Status CheckedTransfers::send_replay_frame_locked(TaskId tgt, const ReplayRing::Frame& f) {
  const bool packed = f.kind == ReplayRing::Kind::packed;
  const auto proto = static_cast<unsigned>(packed ? Proto::amsend_packed : Proto::amsend);
  const void* header = packed ? nullptr : f.bytes;
  const std::size_t header_len = packed ? 0 : f.head_len;
  ucp_request_param_t now;
  now.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  now.flags = UCP_AM_SEND_FLAG_EAGER;
  ucs_status_ptr_t r = ucp_am_send_nbx(e_.peers_[tgt].ep, proto, header, header_len,
                                       f.bytes + header_len, f.len - header_len, &now);
  if (r == nullptr) return Errc::success;
  if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE) {
    return fail(Errc::transport, "amsend to task {}: {}", tgt, ucs_status_string(UCS_PTR_STATUS(r)));
  }
  // Queued: UCX reads a copy of its own, as the replay ring moves on.
  auto* owned = new OwnedFrame{{f.bytes, f.bytes + f.len}};
  std::byte* b = owned->bytes.data();
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = UCP_AM_SEND_FLAG_EAGER;
  p.cb.send = on_owned_sent;
  p.user_data = owned;
  r = ucp_am_send_nbx(e_.peers_[tgt].ep, proto, packed ? nullptr : b, header_len, b + header_len,
                      f.len - header_len, &p);
  if (r == nullptr || UCS_PTR_IS_ERR(r)) {
    delete owned;
    if (UCS_PTR_IS_ERR(r)) {
      return fail(Errc::transport, "amsend to task {}: {}", tgt, ucs_status_string(UCS_PTR_STATUS(r)));
    }
  }
  return Errc::success;
}

void CheckedTransfers::on_checksum_nack_locked(const ChecksumNackWire& msg) {
  const TaskId tgt = msg.src;
  if (msg.repair == static_cast<std::uint8_t>(Repair::replay)) {
    const std::optional<ReplayRing::Frame> f = replay_for(tgt).find(msg.record);
    if (!f) {
      // Never sent, or settled already: a NACK that names no frame we keep.
      integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
      report_integrity_failure_locked(
          tgt, Errc::data_corrupt,
          fmt::format("task {} received an Amsend damaged (checksum mismatch) that this task no "
                      "longer holds a copy of: it is lost",
                      tgt));
      return;
    }
    const FrameLayout at = layout_of(*f);
    if (msg.whole == kNackGaveUp) {
      const std::size_t data_off = f->kind == ReplayRing::Kind::packed
                                       ? at.sum_off + sizeof(ChecksumWire) + at.uhdr_len
                                       : f->head_len;
      release_failed_split_locked(tgt, f->bytes, f->len, data_off);
      replay_for(tgt).settled(msg.record);
      return;
    }
    // The same frame again, its attempt count raised (and sealed anew).
    ChecksumWire sum;
    std::memcpy(&sum, f->bytes + at.sum_off, sizeof sum);
    sum.attempt = attempt_after(msg.attempt);
    const std::size_t after = sum.scope == static_cast<std::uint8_t>(CrcScope::uhdr_data)
                                  ? f->len - at.sum_off - sizeof sum
                                  : at.uhdr_len;
    seal_frame(f->bytes, at.sum_off, after, sum);
    integrity_.stats.retransmissions.fetch_add(1, std::memory_order_relaxed);
    if (f->kind == ReplayRing::Kind::packed && e_.peers_[tgt].path == Path::shm) {
      ShmSend why;
      if (std::byte* p = e_.shm_.begin_send(tgt, f->len, why)) {
        std::memcpy(p, f->bytes, f->len);
        e_.end_ring_send_locked(tgt, f->len);
        return;
      }
      if (why == ShmSend::full) e_.shm_.note_ring_full();
    }
    if (Status s = send_replay_frame_locked(tgt, *f); !s.ok()) e_.send_errors_++;
    return;
  }
  auto it = integrity_.held_sends.find(msg.record);
  if (msg.repair != static_cast<std::uint8_t>(Repair::held) || it == integrity_.held_sends.end() ||
      it->second.tgt != tgt) [[unlikely]] {
    e_.refuse_locked(tgt, Errc::hndl_invalid, 0,
                     fmt::format("checksum_nack names no held amsend of this task to task {} "
                                 "(record {:#x})",
                                 tgt, msg.record));
    return;
  }
  HeldSend& h = it->second;
  integrity_.stats.retransmissions.fetch_add(1, std::memory_order_relaxed);
  if (msg.whole) {
    // Its head arrived damaged and was dropped: the whole Amsend again.
    AmsendWire w;
    std::memcpy(&w, h.head.data(), sizeof w);
    const std::size_t off = sizeof w + ((w.flags & kHasTargetCounter) ? 8 : 0) +
                            ((w.flags & kHasCompletion) ? 8 : 0);
    ChecksumWire sum;
    std::memcpy(&sum, h.head.data() + off, sizeof sum);
    sum.attempt = attempt_after(msg.attempt);
    seal_frame(h.head.data(), off, h.head.size() - off - sizeof sum, sum);
    if (Status s = e_.post_send_locked(tgt, Proto::amsend, h.head.data(), h.head.size(), h.data,
                                       h.len, UCP_AM_SEND_FLAG_RNDV, nullptr);
        !s.ok()) {
      e_.send_errors_++;
    }
    return;
  }
  const ChecksumResendWire resend{e_.me_, attempt_after(msg.attempt), 0, msg.token, h.data_crc, 0};
  if (Status s = e_.post_send_locked(tgt, Proto::checksum_resend, &resend, sizeof resend, h.data,
                                     h.len, UCP_AM_SEND_FLAG_RNDV, nullptr);
      !s.ok()) {
    e_.send_errors_++;
  }
}

// A split-copy frame the target refused for good: the origin buffer's
// record is released, its origin counter failed.
void CheckedTransfers::release_failed_split_locked(TaskId tgt, const std::byte* frame,
                                                   std::size_t len, std::size_t data_off) {
  AmsendWire w;
  std::memcpy(&w, frame, sizeof w);
  SplitWire split;
  if ((w.flags & kSplitData) == 0 || len < data_off + sizeof split) return;
  std::memcpy(&split, frame + data_off, sizeof split);
  const std::unique_ptr<SplitSend> op = e_.split_.take_send(split.id, tgt);
  if (op && op->staged) e_.forget_staged_send_locked(*op);  // its chunks stop here
  if (op && op->origin) op->origin->set_error(static_cast<int>(Errc::data_corrupt));
}

void CheckedTransfers::on_checksum_ack_locked(const ChecksumAckWire& msg) {
  auto it = integrity_.held_sends.find(msg.record);
  if (it == integrity_.held_sends.end() || it->second.tgt != msg.src) [[unlikely]] {
    e_.refuse_locked(msg.src, Errc::hndl_invalid, 0,
                     fmt::format("checksum_ack names no held amsend of this task to task {} "
                                 "(record {:#x})",
                                 msg.src, msg.record));
    return;
  }
  Counter* origin = it->second.origin;
  integrity_.held_sends.erase(it);
  if (origin == nullptr) return;
  if (msg.code != 0) {
    origin->set_error(msg.code);  // the target's fault message names it
  } else {
    e_.bump(*origin);
  }
}

void CheckedTransfers::report_integrity_failure_locked(TaskId peer, Errc code,
                                                       const std::string& detail) {
  if (!e_.faults_.tell_handler(e_.owner_, peer, code, detail) && std::getenv("LAPIS_DEBUG")) {
    fmt::print(stderr, "lapis[{}]: {}\n", e_.me_, detail);
  }
}

// ---------------------------------------------------------------- target

void CheckedTransfers::count_mismatch(TaskId src, const char* what, std::uint16_t attempt) {
  integrity_.stats.mismatches.fetch_add(1, std::memory_order_relaxed);
  if (std::getenv("LAPIS_DEBUG")) {
    fmt::print(stderr, "lapis[{}]: checksum mismatch: {} from task {} (attempt {} of {})\n", e_.me_,
               what, src, attempt + 1, kMaxAttempts);
  }
}

// Inline: every intact replay frame passes here; a report goes out every
// kVerifiedFrames frames, kVerifiedBytes bytes or kVerifiedRuns runs.
inline void CheckedTransfers::note_verified_locked(TaskId src, std::uint64_t seq,
                                                   std::size_t frame_len) {
  VerifiedBatch& batch = integrity_.verified[src];
  if (batch.runs != 0 && seq == batch.run[batch.runs - 1].first + batch.run[batch.runs - 1].count) {
    ++batch.run[batch.runs - 1].count;
  } else {
    batch.run[batch.runs++] = VerifiedRun{seq, 1};
  }
  ++batch.frames;
  batch.bytes += frame_len;
  if (batch.runs == kVerifiedRuns || batch.frames >= kVerifiedFrames ||
      batch.bytes >= kVerifiedBytes) [[unlikely]] {
    report_verified_locked(src);
  }
}

std::optional<ucs_status_t> CheckedTransfers::check_frame_locked(
    bool rndv, std::uint32_t src, const std::byte* bytes, std::size_t sum_off, std::size_t uhdr_len,
    void* data, std::size_t length, std::uint64_t cookie, std::uint64_t staged_id,
    DataCheck& check) {
  ChecksumWire sum;
  std::memcpy(&sum, bytes + sum_off, sizeof sum);
  const bool held = sum.repair == static_cast<std::uint8_t>(Repair::held);
  if (!held && sum.repair != static_cast<std::uint8_t>(Repair::replay)) [[unlikely]] {
    return e_.refuse_amsend_locked(
        rndv, src, Errc::hdr_len, cookie,
        fmt::format("checksummed amsend with repair kind {}", sum.repair));
  }
  if (held) e_.accepting_held_ = sum.record;
  if (integrity_.injector.armed()) [[unlikely]] {
    inject_frame_fault_locked(rndv, bytes, bytes + sum_off + sizeof sum, uhdr_len, data, length,
                              sum.attempt);
  }
  // The scope byte is covered too: a damaged one fails the check.
  const bool intact =
      sum.scope == static_cast<std::uint8_t>(CrcScope::uhdr_data)
          ? !rndv && (length == 0 || data == bytes + sum_off + sizeof sum + uhdr_len) &&
                head_crc(bytes, sum_off, uhdr_len + length) == sum.head_crc
          : sum.scope == static_cast<std::uint8_t>(CrcScope::uhdr) &&
                head_crc(bytes, sum_off, uhdr_len) == sum.head_crc &&
                (rndv || crc32c_extend(0, data, length) == sum.data_crc);
  if (!intact) [[unlikely]] return frame_damaged_locked(rndv, src, sum, cookie, staged_id);
  if (sum.attempt != 0) integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
  if (!held) note_verified_locked(src, sum.record, sum_off + sizeof sum + uhdr_len + length);
  // A rendezvous' data is checked (and counted) on its own once pulled:
  // this is its first transmission even when the head was sent again.
  check = DataCheck{held, 0, sum.data_crc, sum.split_crc, sum.record};
  return std::nullopt;
}

// Fault injection: damages the user's bytes of a first transmission (of a
// rendezvous frame, its user header: the data is checked once pulled).
void CheckedTransfers::inject_frame_fault_locked(bool rndv, const std::byte* frame,
                                                 const std::byte* uhdr, std::size_t uhdr_len,
                                                 void* data, std::size_t length,
                                                 std::uint16_t attempt) {
  AmsendWire w;
  std::memcpy(&w, frame, sizeof w);
  const std::uint32_t path = w.handler == kPutFrameHandler ? kCorruptPut
                             : rndv                        ? kCorruptRndv
                             : e_.shm_.owns(uhdr)          ? kCorruptShm
                                                           : kCorruptEager;
  if ((rndv ? uhdr_len : length + uhdr_len) == 0 || !integrity_.injector.due(path, attempt)) return;
  integrity_.stats.injected.fetch_add(1, std::memory_order_relaxed);
  if (length && !rndv) {
    integrity_.injector.flip(data, length);
  } else {
    integrity_.injector.flip(const_cast<std::byte*>(uhdr), uhdr_len);
  }
}

// A frame that failed its check: the origin is asked to send it again,
// until kMaxAttempts, then it is refused.
ucs_status_t CheckedTransfers::frame_damaged_locked(bool rndv, std::uint32_t src,
                                                    const ChecksumWire& sum, std::uint64_t cookie,
                                                    std::uint64_t staged_id) {
  const bool held = sum.repair == static_cast<std::uint8_t>(Repair::held);
  count_mismatch(src, "amsend frame", sum.attempt);
  if (attempt_after(sum.attempt) >= kMaxAttempts) {
    integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
    if (!held) {
      // The origin's copy still says what the frame held (a split copy's
      // record, whose origin counter waits for this task).
      const ChecksumNackWire gave_up{e_.me_, sum.attempt, sum.repair, kNackGaveUp, sum.record, 0};
      e_.send_control_locked(src, Proto::checksum_nack, &gave_up, sizeof gave_up);
      // A staged Amsend's chunks came anyway (its id, as the frame says).
      if (staged_id != 0 && src < e_.npeers()) e_.drop_staged_chunks_locked(src, staged_id);
    }
    return e_.refuse_amsend_locked(rndv, src, Errc::data_corrupt, cookie,
                                   fmt::format("amsend from task {} arrived damaged (checksum "
                                               "mismatch) {} times",
                                               src, kMaxAttempts));
  }
  // Dropped unseen; the origin sends it again. (A rendezvous frame's data
  // is dropped by UCX when the callback returns without pulling it.)
  e_.accepting_held_ = 0;
  if (staged_id != 0 && src < e_.npeers()) e_.await_staged_frame_locked(src, staged_id);
  const ChecksumNackWire nack{
      e_.me_, sum.attempt, sum.repair, static_cast<std::uint8_t>(held), sum.record, 0};
  e_.send_control_locked(src, Proto::checksum_nack, &nack, sizeof nack);
  return UCS_OK;
}

void CheckedTransfers::send_checksum_ack_locked(TaskId src, std::uint64_t record, Errc code) {
  const ChecksumAckWire ack{e_.me_, static_cast<std::int32_t>(code), record};
  e_.send_control_locked(src, Proto::checksum_ack, &ack, sizeof ack);
}

void CheckedTransfers::land_checked_locked(const CompletionJob& job, void* buffer, std::size_t len,
                                           const DataCheck& check) {
  if (len != 0) integrity_.corrupt_if_due(kCorruptRndv, check.attempt, buffer, len);
  if (crc32c_extend(0, buffer, len) == check.crc) [[likely]] {
    if (check.attempt != 0) integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
    send_checksum_ack_locked(job.src, check.record, Errc::success);
    e_.landed_locked(job);
    return;
  }
  count_mismatch(job.src, "amsend data", check.attempt);
  if (attempt_after(check.attempt) >= kMaxAttempts) {
    integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
    send_checksum_ack_locked(job.src, check.record, Errc::data_corrupt);
    e_.refuse_locked(job.src, Errc::data_corrupt, job.cookie,
                     fmt::format("amsend data from task {} arrived damaged (checksum mismatch) {} "
                                 "times",
                                 job.src, kMaxAttempts));
    CompletionJob nothing{};
    nothing.src = job.src;
    e_.landed_locked(nothing);  // done here, for the sender's fence
    return;
  }
  // Ask for the data again, into the same buffer: the header handler has
  // already run and will not run twice.
  const std::uint64_t token = integrity_.next_token++;
  integrity_.pending_landings.emplace(
      token, PendingLanding{job, buffer, len, check.record, attempt_after(check.attempt)});
  const ChecksumNackWire nack{e_.me_, check.attempt, static_cast<std::uint8_t>(Repair::held),
                              0,      check.record,  token};
  e_.send_control_locked(job.src, Proto::checksum_nack, &nack, sizeof nack);
}

ucs_status_t CheckedTransfers::on_checksum_resend(const void* header, std::size_t header_len,
                                                  void* data, std::size_t length,
                                                  const ucp_am_recv_param_t* param) {
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  ChecksumResendWire msg;
  if (header_len != sizeof msg) {
    e_.refuse_locked(
        UINT32_MAX, Errc::hdr_len, 0,
        fmt::format("checksum_resend of {} bytes, expected {}", header_len, sizeof msg));
    return rndv ? UCS_ERR_REJECTED : UCS_OK;
  }
  std::memcpy(&msg, header, sizeof msg);
  auto it = integrity_.pending_landings.find(msg.token);
  if (it == integrity_.pending_landings.end() || it->second.job.src != msg.src ||
      it->second.len != length || it->second.attempt != msg.attempt) [[unlikely]] {
    e_.refuse_locked(msg.src < e_.ntasks_ ? msg.src : UINT32_MAX, Errc::hndl_invalid, 0,
                     fmt::format("checksum_resend names no damaged landing here (token {:#x}, {} "
                                 "bytes, attempt {})",
                                 msg.token, length, msg.attempt));
    return rndv ? UCS_ERR_REJECTED : UCS_OK;
  }
  const PendingLanding landing = it->second;
  integrity_.pending_landings.erase(it);
  const DataCheck check{true, landing.attempt, msg.data_crc, 0, landing.record};
  if (!rndv) {
    std::memcpy(landing.buffer, data, length);
    land_checked_locked(landing.job, landing.buffer, length, check);
    return UCS_OK;
  }
  return e_.pull_rendezvous_locked(data, landing.buffer, length, landing.job, check);
}

bool CheckedTransfers::check_split_locked(TaskId src, void* buffer, std::uint64_t addr,
                                          std::size_t len, std::uint32_t crc, std::string& detail,
                                          const std::uint32_t* landed_crc) {
  for (std::uint16_t attempt = 0;; ++attempt) {
    const bool summed = attempt == 0 && landed_crc != nullptr;
    if (len != 0 && !summed) integrity_.corrupt_if_due(kCorruptSplit, attempt, buffer, len);
    if ((summed ? *landed_crc : crc32c_extend(0, buffer, len)) == crc) [[likely]] {
      if (attempt != 0) integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    count_mismatch(src, "split- or stage-copied amsend data", attempt);
    if (attempt_after(attempt) >= kMaxAttempts) {
      integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
      detail = fmt::format("split copy: amsend data from task {} arrived damaged (checksum "
                           "mismatch) {} times",
                           src, kMaxAttempts);
      return false;
    }
    // The origin's buffer stays put until split_done: copy it all again.
    integrity_.stats.retransmissions.fetch_add(1, std::memory_order_relaxed);
    if (!e_.split_copy_again_locked(src, buffer, addr, len)) {
      detail = fmt::format("split copy: reading task {}'s amsend data again failed", src);
      return false;
    }
  }
}

void CheckedTransfers::report_verified_locked(TaskId src) {
  VerifiedBatch& batch = integrity_.verified[src];
  ChecksumVerifiedWire msg{e_.me_, batch.runs, {}};
  std::copy(batch.run.begin(), batch.run.begin() + batch.runs, msg.runs);
  batch = VerifiedBatch{};
  e_.send_control_locked(src, Proto::checksum_verified, &msg, sizeof msg);
}

void CheckedTransfers::on_checksum_verified_locked(const ChecksumVerifiedWire& msg) {
  const auto bad_run = [](const VerifiedRun& r) {
    return r.count == 0 || r.count > kVerifiedFrames;
  };
  if (msg.src >= e_.ntasks_ || msg.count > kVerifiedRuns ||
      std::any_of(msg.runs, msg.runs + msg.count, bad_run)) [[unlikely]] {
    e_.refuse_locked(
        msg.src, Errc::hdr_len, 0,
        fmt::format("checksum_verified from task {} with {} runs (at most {} of 1 to {} "
                    "frames)",
                    msg.src, msg.count, kVerifiedRuns, kVerifiedFrames));
    return;
  }
  ReplayRing& ring = replay_for(msg.src);
  for (std::uint32_t i = 0; i < msg.count; ++i) ring.settled(msg.runs[i].first, msg.runs[i].count);
}

}  // namespace lapi
