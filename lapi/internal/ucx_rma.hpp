#pragma once
// The UCX method's Put and Get (PathOps::put, get): inline, as MPICH ch4's
// network modules are, so that the seam between the operation (rma.cc) and
// the method costs a Put nothing; out of line they cost a Put with a target
// counter about 40 instructions (callgrind). The rest of the UCX method is
// in ucx_path.cc. Included only by path_tables.hpp, after Context::Impl.
//
// UCX does not order a Put before a later message, so a Put that names a
// target or completion counter flushes the endpoint first and sends the
// counter update from the flush's completion: the counter can only move
// after the data is visible at the target.

#include <ucp/api/ucp.h>

namespace lapi {

namespace internal::ucx {

// Completion of a Put/Get/flush: what to do at the origin and after.
struct RmaOp {
  Context::Impl* impl;
  TaskId tgt;
  Counter* origin;
  std::uint64_t target_counter;  // send a counter update when done (0 = none)
  Counter* completion;           // ... asking for an ack to this counter
};

inline void notify_target_locked(RmaOp* op) {
  Context::Impl& e = *op->impl;
  CounterUpdateWire msg{e.me_, 0, 0, op->target_counter, 0};
  if (op->target_counter) msg.flags |= kHasTargetCounter;
  if (op->completion) {
    msg.flags |= kHasCompletion;
    msg.cookie = e.completions_.insert(op->completion);
  }
  e.send_control_locked(op->tgt, Proto::counter_update, &msg, sizeof msg);
}

inline void on_rma_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<RmaOp*>(user_data);
  if (status != UCS_OK) op->impl->send_errors_++;
  if (op->origin) op->origin->add();
  if (op->target_counter || op->completion) notify_target_locked(op);
  delete op;
  if (request) ucp_request_free(request);
}

// Runs `done` now if UCX finished immediately; otherwise UCX will call it.
inline void settle(ucs_status_ptr_t r, RmaOp* op) {
  if (r == nullptr) {
    on_rma_done(nullptr, UCS_OK, op);
  } else if (UCS_PTR_IS_ERR(r)) {
    on_rma_done(nullptr, UCS_PTR_STATUS(r), op);
  }
}

inline void on_put_local_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<RmaOp*>(user_data);
  if (status != UCS_OK) op->impl->send_errors_++;
  if (op->origin) op->origin->add();
  delete op;
  if (request) ucp_request_free(request);
}

}  // namespace internal::ucx

inline bool Context::Impl::cached_rkey_locked(TaskId tgt, std::uint64_t addr, std::size_t len,
                                              ucp_rkey_h& out) {
  const internal::RkeyHit& hit = peers_[tgt].rkey_hit;
  if (hit.rkey == nullptr || !hit.covers(addr, len)) return known_rkey_locked(tgt, addr, len, out);
  out = hit.rkey;
  return true;
}

[[gnu::always_inline]] inline Status Context::Impl::put_ucx_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                            const void* org_addr, ucp_rkey_h rkey,
                                            const Counters& counters) {
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  if (len > 0) {
    // First ask UCX to finish at once (shared memory: a plain copy); only a
    // put that must wait gets a completion record.
    ucp_request_param_t now;
    now.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
    ucs_status_ptr_t r = ucp_put_nbx(peers_[tgt].ep, org_addr, len, tgt_addr, rkey, &now);
    if (r == nullptr) {
      if (counters.origin) counters.origin->add();
    } else {
      auto* op = new internal::ucx::RmaOp{this, tgt, counters.origin, 0, nullptr};
      p.cb.send = internal::ucx::on_put_local_done;
      p.user_data = op;
      r = ucp_put_nbx(peers_[tgt].ep, org_addr, len, tgt_addr, rkey, &p);
      if (r == nullptr || UCS_PTR_IS_ERR(r)) internal::ucx::on_put_local_done(nullptr, UCS_PTR_STATUS(r), op);
    }
  } else if (counters.origin) {
    counters.origin->add();
  }
  if (counters.target || counters.completion) {
    // Flush makes the data visible remotely; its completion sends the update.
    auto* op = new internal::ucx::RmaOp{this, tgt, nullptr, counters.target.handle, counters.completion};
    p.cb.send = internal::ucx::on_rma_done;
    p.user_data = op;
    internal::ucx::settle(ucp_ep_flush_nbx(peers_[tgt].ep, &p), op);
  }
  return Errc::success;
}

[[gnu::always_inline]] inline Status Context::Impl::get_ucx_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                                            void* org_addr, ucp_rkey_h rkey,
                                            RemoteCounter tgt_cntr, Counter* org_cntr) {
  auto* op = new internal::ucx::RmaOp{this, tgt, org_cntr, tgt_cntr.handle, nullptr};
  if (len == 0) {
    internal::ucx::on_rma_done(nullptr, UCS_OK, op);
    return Errc::success;
  }
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = internal::ucx::on_rma_done;
  p.user_data = op;
  internal::ucx::settle(ucp_get_nbx(peers_[tgt].ep, org_addr, len, tgt_addr, rkey, &p), op);
  return Errc::success;
}

}  // namespace lapi
