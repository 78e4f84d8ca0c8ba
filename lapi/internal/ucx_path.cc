// The UCX method: every UCX call that moves a peer's data, behind the ucx,
// shm and self paths' tables (path_ops.hpp). Active messages carry Amsend
// frames and control messages (eager below the eager limit, rendezvous at or
// above); Rmw is UCX's atomics, on registered memory. Put and Get are in
// ucx_rma.hpp, inline.

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

// One Rmw through UCX. A fetch-and-or goes as a compare-and-swap loop: UCX
// 1.13 drops remote fetch-and-ors on shared memory (the old value comes
// back, the word stays as it was: tests/core/rma_ranks.cc), as on the self
// endpoint (rmw_apply.hpp). Each round swaps `expected` for `expected | bits`;
// a round that finds another value tries again from it.
struct RmwOpState {
  Context::Impl* impl;
  Counter* origin;
  void* prev;  // user's result slot (width bytes), may be null
  unsigned width;
  std::uint64_t operand;  // compare value for CSWAP
  std::uint64_t result;   // in: swap value for CSWAP; out: old target value
  // Fetch-and-or only: the bits to set, and where (the loop's next rounds).
  std::uint64_t or_bits = 0;
  bool emulated_or = false;
  ucp_ep_h ep = nullptr;
  std::uint64_t tgt_addr = 0;
  ucp_rkey_h rkey = nullptr;
};

void on_rmw_done(void* request, ucs_status_t status, void* user_data);

std::uint64_t low_bytes(std::uint64_t v, unsigned width) {
  return width == 4 ? v & 0xffffffffu : v;
}

// Sends op's compare-and-swap (operand: compare value, result: swap value) or
// other atomic; completion runs on_rmw_done.
void post_rmw(RmwOpState* op, ucp_atomic_op_t uop) {
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
  p.cb.send = on_rmw_done;
  p.user_data = op;
  p.datatype = ucp_dt_make_contig(op->width);
  p.reply_buffer = &op->result;
  ucs_status_ptr_t r = ucp_atomic_op_nbx(op->ep, uop, &op->operand, 1, op->tgt_addr, op->rkey, &p);
  if (r == nullptr || UCS_PTR_IS_ERR(r)) on_rmw_done(nullptr, UCS_PTR_STATUS(r), op);
}

void on_rmw_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<RmwOpState*>(user_data);
  if (request) ucp_request_free(request);
  if (status == UCS_OK && op->emulated_or) {
    const std::uint64_t found = low_bytes(op->result, op->width);
    if (found != op->operand) {  // the word changed since: again from what it holds
      op->operand = found;
      op->result = low_bytes(found | op->or_bits, op->width);
      post_rmw(op, UCP_ATOMIC_OP_CSWAP);
      return;
    }
  }
  if (status != UCS_OK) op->impl->send_errors_++;
  if (op->prev) std::memcpy(op->prev, &op->result, op->width);
  if (op->origin) op->origin->add();
  delete op;
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
  op->tgt = tgt;
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

void Context::Impl::send_control_ucx_locked(TaskId tgt, Proto proto, const void* header,
                                            std::size_t len, const void* data,
                                            std::size_t data_len) {
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

// Out of line: its frame buffer would cost the shared-memory path a large
// stack frame.
[[gnu::noinline]] Status Context::Impl::amsend_ucx_locked(TaskId tgt, HandlerId handler,
                                                          std::uint16_t extra_flags,
                                                          const void* uhdr, std::size_t uhdr_len,
                                                          const void* data, std::size_t data_len,
                                                          const Counters& counters) {
  if (extra_flags & kChecksummed) [[unlikely]] {
    return checked_.amsend_ucx_checked_locked(tgt, handler, extra_flags, uhdr, uhdr_len, data,
                                              data_len, counters);
  }
  // Frame: AmsendWire, optional counter handle and completion cookie, then
  // the user header, built on the stack (with room to append packed data).
  alignas(8) std::byte frame[kSendHeaderCapacity + kPackedDataLimit];
  const std::size_t off =
      write_frame_out_of_line_locked(false, frame, handler, extra_flags, uhdr, uhdr_len, counters);
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

Status Context::Impl::amsend_now_ucx_locked(TaskId tgt, std::byte* frame, std::size_t off,
                                            std::size_t uhdr_len, const void* data,
                                            std::size_t data_len, bool& sent) {
  if (data_len > kImmediateLimit) return Errc::success;
  const ucs_status_t now = amsend_ucx_immediate_locked(tgt, frame, off, uhdr_len, data, data_len);
  sent = now == UCS_OK;
  if (now == UCS_OK || now == UCS_ERR_NO_RESOURCE) [[likely]] return Errc::success;
  return fail(Errc::transport, "amsend to task {}: {}", tgt, ucs_status_string(now));
}

Status Context::Impl::atomic_ucx_locked(TaskId tgt, RmwOp op, std::uint64_t tgt_addr,
                                        std::int64_t operand, std::int64_t compare, void* prev,
                                        unsigned width, ucp_rkey_h rkey, Counter* org_cntr) {
  auto* state = new RmwOpState{this, org_cntr, prev, width, 0, 0};
  state->tgt_addr = tgt_addr;
  state->rkey = rkey;
  ucp_atomic_op_t uop = UCP_ATOMIC_OP_ADD;
  auto store = [&](std::uint64_t& slot, std::int64_t v) {
    if (width == 4) {
      const std::int32_t v32 = static_cast<std::int32_t>(v);
      std::memcpy(&slot, &v32, 4);
    } else {
      std::memcpy(&slot, &v, 8);
    }
  };
  switch (op) {
    case RmwOp::fetch_and_add: uop = UCP_ATOMIC_OP_ADD; store(state->operand, operand); break;
    case RmwOp::fetch_and_or:
      // First round: swap 0 for the bits (the common case of a clear word).
      uop = UCP_ATOMIC_OP_CSWAP;
      state->emulated_or = true;
      store(state->or_bits, operand);
      state->result = state->or_bits;
      break;
    case RmwOp::swap: uop = UCP_ATOMIC_OP_SWAP; store(state->operand, operand); break;
    case RmwOp::compare_and_swap:
      uop = UCP_ATOMIC_OP_CSWAP;
      store(state->operand, compare);
      store(state->result, operand);
      break;
  }
  state->ep = peers_[tgt].ep;
  post_rmw(state, uop);
  return Errc::success;
}

Status Context::Impl::flush_ucx(TaskId tgt) {
  ucs_status_ptr_t flush;
  {
    Guard guard(lock_);
    ucp_request_param_t p{};
    flush = ucp_ep_flush_nbx(peers_[tgt].ep, &p);
  }
  if (wait_request(flush) != UCS_OK) return fail(Errc::transport, "flush_rma: endpoint flush failed");
  return Errc::success;
}

}  // namespace lapi
