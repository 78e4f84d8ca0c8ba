// LAPIS_CHECKSUM=crc32c for Put and Get (the scheme is in integrity.hpp).
//   Small Put (put_as_frame): a checked Amsend frame to kPutFrameHandler (rma.cc),
//        checked and repaired as every small frame is, so that its latency
//        pays the CRC and no round trip.
//   Larger Put: CRC of the origin's buffer → put → flush → put_verify; the target
//        checks its memory, moves its counter if intact and answers
//        put_verdict; on a mismatch the origin puts again. The origin
//        counter moves after an intact verdict. When UCX maps the target's
//        memory here (shared memory it allocated, a task on this node), the
//        origin copies and checksums in one pass instead
//        (crc32c_copy_uncached), with no UCX put or flush: one pass over
//        the data at each end.
//   Get: get → get_check; the target answers with the CRC of its range;
//        the origin compares it with what landed and gets again on a
//        mismatch.
// The origin holds its buffer (its origin counter waits) meanwhile. The
// target's memory must not change under a Put or Get in flight (as without
// checksums, such a race has no defined result; here it shows as a
// mismatch and, after the retries, an error).

#include <cstring>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

struct HeldRmaOp {
  Context::Impl* impl;
  std::uint64_t token;
};

// The Put is visible at the target: ask it to check.
void on_put_flushed(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<HeldRmaOp*>(user_data);
  Context::Impl& e = *op->impl;
  auto it = e.integrity_.held_puts.find(op->token);
  if (it != e.integrity_.held_puts.end()) {
    HeldPut& h = it->second;
    if (status != UCS_OK) {
      e.send_errors_++;
      if (h.origin) h.origin->set_error(static_cast<int>(Errc::transport));
      if (h.completion) h.completion->set_error(static_cast<int>(Errc::transport));
      e.integrity_.held_puts.erase(it);
    } else {
      e.checked_.send_put_verify_locked(op->token, h);
    }
  }
  delete op;
  if (request) ucp_request_free(request);
}

// The Get's data is here: ask the target for the range's CRC.
void on_get_landed(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<HeldRmaOp*>(user_data);
  Context::Impl& e = *op->impl;
  auto it = e.integrity_.held_gets.find(op->token);
  if (it != e.integrity_.held_gets.end()) {
    HeldGet& h = it->second;
    if (status != UCS_OK) {
      e.send_errors_++;
      if (h.origin) h.origin->set_error(static_cast<int>(Errc::transport));
      e.integrity_.held_gets.erase(it);
    } else {
      const GetCheckWire msg{e.me_, 0, op->token, h.tgt_addr, h.len};
      e.send_control_locked(h.tgt, Proto::get_check, &msg, sizeof msg);
    }
  }
  delete op;
  if (request) ucp_request_free(request);
}

}  // namespace

// ---------------------------------------------------------------- Put

namespace {

// The largest Put sent as a frame. lapi_latency and lapi_bandwidth --op put
// --checksum crc32c, between two tasks of a node (frame vs held Put):
// latency 1 KiB 0.81 vs 1.40 us, 2 KiB 1.01 vs 1.56, 4 KiB 1.52 vs 1.69,
// 8000 B 2.44 vs 2.14; streaming 1 KiB 2.1 vs 1.8 GB/s, 2 KiB 3.1 vs 2.9,
// 3 KiB 3.2 vs 4.7, 4 KiB 3.3 vs 6.0. Through the ring the data is copied
// three times (into it, into the replay copy, out of it), a held Put once,
// straight into the target's memory, and from 3 KiB that costs more than
// the verdict's round trip.
constexpr std::size_t kCheckedPutFrameMax = 2048;

}  // namespace

bool CheckedTransfers::put_as_frame(std::size_t len) const {
  return len <= kCheckedPutFrameMax && len < e_.config_.eager_limit;
}

Status CheckedTransfers::put_checked_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                            const void* org_addr, ucp_rkey_h rkey,
                                            const Counters& counters) {
  const std::uint64_t token = integrity_.next_token++;
  void* mapped = nullptr;
  if (len > 0 && ucp_rkey_ptr(rkey, tgt_addr, &mapped) != UCS_OK) mapped = nullptr;
  // A mapped target's CRC comes out of the copy (post_held_put_locked).
  const std::uint32_t crc = len && mapped == nullptr ? crc32c_extend(0, org_addr, len) : 0;
  const std::uint64_t cookie =
      counters.completion ? e_.completions_.insert(counters.completion) : 0;
  integrity_.held_puts.emplace(token, HeldPut{tgt, org_addr, len, tgt_addr, crc, 0, counters.origin,
                                              counters.target.handle, counters.completion, cookie,
                                              rkey, mapped});
  post_held_put_locked(token);
  return Errc::success;
}

void CheckedTransfers::post_held_put_locked(std::uint64_t token) {
  HeldPut& h = integrity_.held_puts.at(token);
  if (h.mapped != nullptr) {
    // This CPU's stores are complete before the control frame is published
    // (a release), so the target reads the data the CRC covers.
    h.crc = crc32c_copy_uncached(h.mapped, h.data, h.len, 0);
    send_put_verify_locked(token, h);
    return;
  }
  if (h.len > 0) {
    ucp_request_param_t now{};
    ucs_status_ptr_t r = ucp_put_nbx(e_.peers_[h.tgt].ep, h.data, h.len, h.tgt_addr,
                                     static_cast<ucp_rkey_h>(h.rkey), &now);
    // Completion is awaited through the flush below; UCX frees the request.
    if (UCS_PTR_IS_PTR(r)) ucp_request_free(r);
  }
  auto* op = new HeldRmaOp{&e_, token};
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = on_put_flushed;
  p.user_data = op;
  ucs_status_ptr_t r = ucp_ep_flush_nbx(e_.peers_[h.tgt].ep, &p);
  if (r == nullptr || UCS_PTR_IS_ERR(r)) on_put_flushed(nullptr, UCS_PTR_STATUS(r), op);
}

void CheckedTransfers::send_put_verify_locked(std::uint64_t token, const HeldPut& h) {
  PutVerifyWire msg{e_.me_, h.attempt,        0,       token, h.tgt_addr, h.len, h.crc,
                    0,      h.target_counter, h.cookie};
  if (h.target_counter) msg.flags |= kHasTargetCounter;
  if (h.cookie) msg.flags |= kHasCompletion;
  e_.send_control_locked(h.tgt, Proto::put_verify, &msg, sizeof msg);
}

void CheckedTransfers::on_put_verify_locked(const PutVerifyWire& msg) {
  ChecksumAckWire verdict{e_.me_, 0, msg.token};
  if (msg.len > 0 && !e_.regions_.covers(msg.addr, msg.len)) {
    verdict.code = static_cast<std::int32_t>(Errc::not_registered);
    e_.refuse_locked(msg.src, Errc::not_registered, 0,
                     fmt::format("put_verify names [{:#x}, +{}), not registered memory here",
                                 msg.addr, msg.len));
  } else {
    auto* p = reinterpret_cast<void*>(msg.addr);
    if (msg.len != 0) integrity_.corrupt_if_due(kCorruptPut, msg.attempt, p, msg.len);
    if ((msg.len ? crc32c_extend(0, p, msg.len) : 0u) == msg.crc) [[likely]] {
      if (msg.attempt != 0) integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
      // The data is in place and intact: what the unchecked Put's counter
      // update would do, without waiting for the origin to hear the verdict
      // (a refused counter is reported to the origin as it would be there).
      if (msg.flags != 0) (void)e_.count_remote_locked(msg.src, msg.flags, msg.counter, msg.cookie);
    } else {
      count_mismatch(msg.src, "put data", msg.attempt);
      if (msg.attempt + 1 >= kMaxAttempts) integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
      verdict.code = static_cast<std::int32_t>(Errc::data_corrupt);
    }
  }
  e_.send_control_locked(msg.src, Proto::put_verdict, &verdict, sizeof verdict);
}

void CheckedTransfers::on_put_verdict_locked(const ChecksumAckWire& msg) {
  auto it = integrity_.held_puts.find(msg.record);
  if (it == integrity_.held_puts.end() || it->second.tgt != msg.src) [[unlikely]] {
    e_.refuse_locked(msg.src, Errc::hndl_invalid, 0,
                     fmt::format("put_verdict names no put of this task to task {} (record {:#x})",
                                 msg.src, msg.record));
    return;
  }
  HeldPut& h = it->second;
  const auto code = static_cast<Errc>(msg.code);
  if (code == Errc::data_corrupt && h.attempt + 1 < kMaxAttempts) {
    ++h.attempt;
    integrity_.stats.retransmissions.fetch_add(1, std::memory_order_relaxed);
    post_held_put_locked(msg.record);
    return;
  }
  const HeldPut done = h;
  integrity_.held_puts.erase(it);
  if (code != Errc::success) {
    if (done.origin) done.origin->set_error(msg.code);
    // The target moved no counter: no ack will name the cookie.
    if (done.cookie) (void)e_.completions_.take(done.cookie);
    if (done.completion) done.completion->set_error(msg.code);
    report_integrity_failure_locked(
        done.tgt, code,
        fmt::format("put of {} bytes to task {} failed: {}", done.len, done.tgt,
                    code == Errc::data_corrupt ? "damaged (checksum mismatch) on every attempt"
                                               : errc_name(code)));
    return;
  }
  if (done.origin) e_.bump(*done.origin);
}

// ---------------------------------------------------------------- Get

Status CheckedTransfers::get_checked_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                            void* org_addr, ucp_rkey_h rkey, RemoteCounter tgt_cntr,
                                            Counter* org_cntr) {
  const std::uint64_t token = integrity_.next_token++;
  integrity_.held_gets.emplace(
      token, HeldGet{tgt, org_addr, len, tgt_addr, 0, org_cntr, tgt_cntr.handle, rkey});
  post_held_get_locked(token);
  return Errc::success;
}

void CheckedTransfers::post_held_get_locked(std::uint64_t token) {
  const HeldGet& h = integrity_.held_gets.at(token);
  auto* op = new HeldRmaOp{&e_, token};
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = on_get_landed;
  p.user_data = op;
  ucs_status_ptr_t r = ucp_get_nbx(e_.peers_[h.tgt].ep, h.data, h.len, h.tgt_addr,
                                   static_cast<ucp_rkey_h>(h.rkey), &p);
  if (r == nullptr || UCS_PTR_IS_ERR(r)) on_get_landed(nullptr, UCS_PTR_STATUS(r), op);
}

void CheckedTransfers::on_get_check_locked(const GetCheckWire& msg) {
  GetCheckReplyWire reply{e_.me_, 0, msg.token, 0, 0};
  if (!e_.regions_.covers(msg.addr, msg.len)) {
    reply.code = static_cast<std::int32_t>(Errc::not_registered);
    e_.refuse_locked(
        msg.src, Errc::not_registered, 0,
        fmt::format("get_check names [{:#x}, +{}), not registered memory here", msg.addr, msg.len));
  } else {
    reply.crc = crc32c_extend(0, reinterpret_cast<const void*>(msg.addr), msg.len);
  }
  e_.send_control_locked(msg.src, Proto::get_check_reply, &reply, sizeof reply);
}

void CheckedTransfers::on_get_check_reply_locked(const GetCheckReplyWire& msg) {
  auto it = integrity_.held_gets.find(msg.token);
  if (it == integrity_.held_gets.end() || it->second.tgt != msg.src) [[unlikely]] {
    e_.refuse_locked(msg.src, Errc::hndl_invalid, 0,
                     fmt::format("get_check_reply names no get of this task from task {} "
                                 "(record {:#x})",
                                 msg.src, msg.token));
    return;
  }
  HeldGet& h = it->second;
  Errc code = static_cast<Errc>(msg.code);
  if (code == Errc::success) {
    integrity_.corrupt_if_due(kCorruptGet, h.attempt, h.data, h.len);
    if (crc32c_extend(0, h.data, h.len) == msg.crc) [[likely]] {
      if (h.attempt != 0) integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
    } else {
      count_mismatch(msg.src, "get data", h.attempt);
      if (h.attempt + 1 < kMaxAttempts) {
        ++h.attempt;
        integrity_.stats.retransmissions.fetch_add(1, std::memory_order_relaxed);
        post_held_get_locked(msg.token);
        return;
      }
      integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
      code = Errc::data_corrupt;
    }
  }
  const HeldGet done = h;
  integrity_.held_gets.erase(it);
  if (code != Errc::success) {
    if (done.origin) done.origin->set_error(static_cast<int>(code));
    report_integrity_failure_locked(
        done.tgt, code,
        fmt::format("get of {} bytes from task {} failed: {}", done.len, done.tgt,
                    code == Errc::data_corrupt ? "damaged (checksum mismatch) on every attempt"
                                               : errc_name(code)));
    return;
  }
  if (done.origin) e_.bump(*done.origin);
  if (done.target_counter) {
    const CounterUpdateWire update{e_.me_, kHasTargetCounter, 0, done.target_counter, 0};
    e_.send_control_locked(done.tgt, Proto::counter_update, &update, sizeof update);
  }
}

}  // namespace lapi
