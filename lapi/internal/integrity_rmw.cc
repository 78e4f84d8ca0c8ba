// LAPIS_CHECKSUM=crc32c for Rmw (the scheme is in integrity.hpp): the
// target's CPU applies a checksummed request, so an operand is checked
// before it is applied and a result after it came back.
//   origin: rmw_request (CRC over the request) ----------------> target
//           damaged: rmw_reply data_corrupt, unapplied <--------  checks, applies once,
//           intact:  rmw_reply old value (CRC over the reply) <-  keeps the result
//   origin: a damaged reply -> the same request again (attempt + 1); the
//           target answers from the kept result, never applying twice.

#include <cstring>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/engine.hpp"
#include "lapi/internal/rmw_apply.hpp"

namespace lapi {

using namespace internal;

namespace {

// CRC32C of a wire struct up to its `crc` member.
template <typename Wire>
std::uint32_t wire_crc(const Wire& w) {
  return crc32c_extend(0, &w, offsetof(Wire, crc));
}

}  // namespace

Status CheckedTransfers::rmw_checked_locked(RmwOp op, TaskId tgt, std::uint64_t tgt_addr,
                                            std::uint64_t operand, std::uint64_t compare,
                                            void* prev, unsigned width, Counter* org_cntr) {
  const std::uint64_t token = integrity_.next_token++;
  integrity_.held_rmws.emplace(
      token, HeldRmw{tgt, static_cast<std::uint8_t>(op), static_cast<std::uint8_t>(width), 0,
                     RmwRetry::first, tgt_addr, operand, compare, prev, org_cntr});
  post_held_rmw_locked(token);
  return Errc::success;
}

void CheckedTransfers::post_held_rmw_locked(std::uint64_t token) {
  const HeldRmw& h = integrity_.held_rmws.at(token);
  RmwRequestWire msg{};
  msg.src = e_.me_;
  msg.attempt = h.attempt;
  msg.op = h.op;
  msg.width = h.width;
  msg.token = token;
  msg.addr = h.addr;
  msg.operand = h.operand;
  msg.compare = h.compare;
  msg.oldest = integrity_.held_rmws.begin()->first;
  msg.retry = static_cast<std::uint32_t>(h.retry);
  msg.crc = wire_crc(msg);
  e_.send_control_locked(h.tgt, Proto::rmw_request, &msg, sizeof msg);
}

void CheckedTransfers::on_rmw_request_locked(const RmwRequestWire& arrived) {
  RmwRequestWire msg = arrived;
  integrity_.corrupt_if_due(kCorruptRmw, msg.attempt, &msg.operand, msg.width == 4 ? 4 : 8);
  RmwReplyWire reply{};
  reply.src = e_.me_;
  reply.token = msg.token;
  reply.attempt = msg.attempt;
  if (wire_crc(msg) != msg.crc) {
    count_mismatch(msg.src, "rmw request", msg.attempt);
    if (msg.attempt + 1 >= kMaxAttempts) integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
    reply.code = static_cast<std::int32_t>(Errc::data_corrupt);
  } else {
    if (msg.retry == static_cast<std::uint32_t>(RmwRetry::request_damaged)) {
      integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
    }
    if (integrity_.rmw_results.size() < e_.ntasks_) integrity_.rmw_results.resize(e_.ntasks_);
    auto& kept = integrity_.rmw_results[msg.src];
    kept.erase(kept.begin(), kept.lower_bound(msg.oldest));
    auto it = kept.find(msg.token);
    if (it == kept.end()) {
      const bool valid_op = msg.op <= static_cast<std::uint8_t>(RmwOp::compare_and_swap) &&
                            (msg.width == 4 || msg.width == 8) && msg.addr % msg.width == 0;
      RmwResult result{static_cast<std::int32_t>(Errc::success), 0};
      if (!valid_op) {
        result.code = static_cast<std::int32_t>(Errc::rmw_op);
        e_.refuse_locked(
            msg.src, Errc::rmw_op, 0,
            fmt::format("rmw_request with op {} width {} at {:#x}", msg.op, msg.width, msg.addr));
      } else if (!e_.regions_.covers(msg.addr, msg.width)) {
        result.code = static_cast<std::int32_t>(Errc::not_registered);
        e_.refuse_locked(msg.src, Errc::not_registered, 0,
                         fmt::format("rmw_request names [{:#x}, +{}), not registered memory here",
                                     msg.addr, msg.width));
      } else {
        result.old = apply_rmw_at(static_cast<RmwOp>(msg.op), msg.addr, msg.width,
                                  static_cast<std::int64_t>(msg.operand),
                                  static_cast<std::int64_t>(msg.compare));
      }
      it = kept.emplace(msg.token, result).first;
    }
    reply.code = it->second.code;
    reply.old = it->second.old;
  }
  reply.crc = wire_crc(reply);
  e_.send_control_locked(msg.src, Proto::rmw_reply, &reply, sizeof reply);
}

void CheckedTransfers::on_rmw_reply_locked(const RmwReplyWire& arrived) {
  auto it = integrity_.held_rmws.find(arrived.token);
  if (it == integrity_.held_rmws.end() || it->second.tgt != arrived.src ||
      it->second.attempt != arrived.attempt) [[unlikely]] {
    // A reply to an earlier attempt of a retried Rmw is stale, not an error.
    if (it != integrity_.held_rmws.end() && it->second.tgt == arrived.src) return;
    e_.refuse_locked(arrived.src, Errc::hndl_invalid, 0,
                     fmt::format("rmw_reply names no rmw of this task to task {} (record {:#x})",
                                 arrived.src, arrived.token));
    return;
  }
  HeldRmw& h = it->second;
  RmwReplyWire reply = arrived;
  if (reply.code == static_cast<std::int32_t>(Errc::success)) {
    integrity_.corrupt_if_due(kCorruptRmw, h.attempt, &reply.old, h.width);
  }
  Errc code = static_cast<Errc>(reply.code);
  const bool reply_intact = wire_crc(reply) == reply.crc;
  if (!reply_intact) count_mismatch(reply.src, "rmw result", h.attempt);
  if (!reply_intact || code == Errc::data_corrupt) {
    if (h.attempt + 1 < kMaxAttempts) {
      ++h.attempt;
      h.retry = reply_intact ? RmwRetry::request_damaged : RmwRetry::reply_damaged;
      integrity_.stats.retransmissions.fetch_add(1, std::memory_order_relaxed);
      post_held_rmw_locked(arrived.token);
      return;
    }
    if (!reply_intact) integrity_.stats.failures.fetch_add(1, std::memory_order_relaxed);
    code = Errc::data_corrupt;
  } else if (h.retry == RmwRetry::reply_damaged && code == Errc::success) {
    integrity_.stats.repaired.fetch_add(1, std::memory_order_relaxed);
  }
  const HeldRmw done = h;
  integrity_.held_rmws.erase(it);
  if (code != Errc::success) {
    if (done.origin) done.origin->set_error(static_cast<int>(code));
    report_integrity_failure_locked(
        done.tgt, code,
        fmt::format("rmw at {:#x} of task {} failed: {}", done.addr, done.tgt,
                    code == Errc::data_corrupt ? "damaged (checksum mismatch) on every attempt"
                                               : errc_name(code)));
    return;
  }
  if (done.prev) std::memcpy(done.prev, &reply.old, done.width);
  if (done.origin) e_.bump(*done.origin);
}

}  // namespace lapi
