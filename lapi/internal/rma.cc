// Put, Get and Rmw over UCX RMA and atomics on registered memory. UCX does
// not order a Put before a later message, so a Put that names a target or
// completion counter flushes the endpoint first and sends the counter update
// from the flush's completion: the counter can only move after the data is
// visible at the target.

#include <atomic>
#include <cstring>

#include "lapi/internal/engine.hpp"
#include "lapi/internal/rmw_apply.hpp"

namespace lapi {

using namespace internal;

namespace {

// Completion of a Put/Get/flush: what to do at the origin and after.
struct RmaOp {
  Context::Impl* impl;
  TaskId tgt;
  Counter* origin;
  std::uint64_t target_counter;  // send a counter update when done (0 = none)
  Counter* completion;           // ... asking for an ack to this counter
};

void notify_target_locked(RmaOp* op) {
  Context::Impl& e = *op->impl;
  CounterUpdateWire msg{e.me_, 0, 0, op->target_counter, 0};
  if (op->target_counter) msg.flags |= kHasTargetCounter;
  if (op->completion) {
    msg.flags |= kHasCompletion;
    msg.cookie = e.completions_.insert(op->completion);
  }
  e.send_control_locked(op->tgt, Proto::counter_update, &msg, sizeof msg);
}

void on_rma_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<RmaOp*>(user_data);
  if (status != UCS_OK) op->impl->send_errors_++;
  if (op->origin) op->origin->add();
  if (op->target_counter || op->completion) notify_target_locked(op);
  delete op;
  if (request) ucp_request_free(request);
}

// Runs `done` now if UCX finished immediately; otherwise UCX will call it.
void settle(ucs_status_ptr_t r, RmaOp* op) {
  if (r == nullptr) {
    on_rma_done(nullptr, UCS_OK, op);
  } else if (UCS_PTR_IS_ERR(r)) {
    on_rma_done(nullptr, UCS_PTR_STATUS(r), op);
  }
}

void on_put_local_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<RmaOp*>(user_data);
  if (status != UCS_OK) op->impl->send_errors_++;
  if (op->origin) op->origin->add();
  delete op;
  if (request) ucp_request_free(request);
}

}  // namespace

Status Context::Impl::prepare_transfer(const char* fn, TaskId tgt, std::size_t len,
                                       std::uint64_t tgt_addr, const void* org_addr,
                                       ucp_rkey_h& rkey) {
  if (tl_header_handler_depth > 0) {
    return fail(Errc::in_header_handler, "{}: called from inside a header handler", fn);
  }
  if (config_.error_checking || failures_.any_failed.load(std::memory_order_relaxed)) {
    if (Status s = check_transfer_args(fn, tgt, len, tgt_addr, org_addr); !s.ok()) return s;
  }
  // The target's region covering the range; fetched once, then cached.
  return len > 0 ? remote_key(tgt, tgt_addr, len, rkey) : Status(Errc::success);
}

Status Context::Impl::check_transfer_args(const char* fn, TaskId tgt, std::size_t len,
                                          std::uint64_t tgt_addr, const void* org_addr) const {
  if (terminated_.load(std::memory_order_relaxed)) return fail(Errc::terminated, "{}: context already terminated", fn);
  if (tgt >= npeers()) return fail(Errc::tgt, "{}: tgt={} is not a task (0..{})", fn, tgt, npeers() - 1);
  if (len > 0 && org_addr == nullptr) return fail(Errc::org_addr_null, "{}: org_addr is null but len={}", fn, len);
  if (len > 0 && tgt_addr == 0) return fail(Errc::tgt_addr_null, "{}: tgt_addr is null but len={}", fn, len);
  return failures_.any_failed.load(std::memory_order_relaxed) ? check_peer(fn, tgt) : Status(Errc::success);
}

Status Context::Impl::put(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                          const void* org_addr, const Counters& counters) {
  ucp_rkey_h rkey = nullptr;
  if (Status s = prepare_transfer("put", tgt, len, tgt_addr, org_addr, rkey); !s.ok()) [[unlikely]] {
    return s;
  }
  Guard guard(lock_);
  if (integrity_.on) [[unlikely]] {
    return put_checked_locked(tgt, len, tgt_addr, org_addr, rkey, counters);
  }
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
      auto* op = new RmaOp{this, tgt, counters.origin, 0, nullptr};
      p.cb.send = on_put_local_done;
      p.user_data = op;
      r = ucp_put_nbx(peers_[tgt].ep, org_addr, len, tgt_addr, rkey, &p);
      if (r == nullptr || UCS_PTR_IS_ERR(r)) on_put_local_done(nullptr, UCS_PTR_STATUS(r), op);
    }
  } else if (counters.origin) {
    counters.origin->add();
  }
  if (counters.target || counters.completion) {
    // Flush makes the data visible remotely; its completion sends the update.
    auto* op = new RmaOp{this, tgt, nullptr, counters.target.handle, counters.completion};
    p.cb.send = on_rma_done;
    p.user_data = op;
    settle(ucp_ep_flush_nbx(peers_[tgt].ep, &p), op);
  }
  return Errc::success;
}

Status Context::Impl::get(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
                          RemoteCounter tgt_cntr, Counter* org_cntr) {
  ucp_rkey_h rkey = nullptr;
  if (Status s = prepare_transfer("get", tgt, len, tgt_addr, org_addr, rkey); !s.ok()) [[unlikely]] {
    return s;
  }
  Guard guard(lock_);
  if (integrity_.on && len > 0) [[unlikely]] {
    return get_checked_locked(tgt, len, tgt_addr, org_addr, rkey, tgt_cntr, org_cntr);
  }
  auto* op = new RmaOp{this, tgt, org_cntr, tgt_cntr.handle, nullptr};
  if (len == 0) {
    on_rma_done(nullptr, UCS_OK, op);
    return Errc::success;
  }
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = on_rma_done;
  p.user_data = op;
  settle(ucp_get_nbx(peers_[tgt].ep, org_addr, len, tgt_addr, rkey, &p), op);
  return Errc::success;
}

namespace {

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

Status Context::Impl::rmw(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int64_t operand,
                          std::int64_t compare, void* prev, unsigned width, Counter* org_cntr) {
  if (tl_header_handler_depth > 0) [[unlikely]] {
    return fail(Errc::in_header_handler, "rmw: called from inside a header handler");
  }
  if (config_.error_checking) {
    if (terminated_.load(std::memory_order_relaxed)) return fail(Errc::terminated, "rmw: context already terminated");
    if (tgt >= npeers()) return fail(Errc::tgt, "rmw: tgt={} is not a task (0..{})", tgt, npeers() - 1);
    if (tgt_addr == 0) return fail(Errc::tgt_var_null, "rmw: tgt_var is null");
    if (tgt_addr % width != 0) {
      return fail(Errc::tgt_var_null, "rmw: tgt_var={:#x} is not {}-byte aligned", tgt_addr, width);
    }
    if (op > RmwOp::compare_and_swap) return fail(Errc::rmw_op, "rmw: op={} is not an Rmw operation", static_cast<int>(op));
  }
  if (failures_.any_failed.load(std::memory_order_relaxed)) [[unlikely]] {
    if (Status s = check_peer("rmw", tgt); !s.ok()) return s;
  }
  if (tgt == me_) return rmw_self(op, tgt_addr, operand, compare, prev, width, org_cntr);
  ucp_rkey_h rkey = nullptr;
  Status s = remote_key(tgt, tgt_addr, width, rkey);
  if (!s.ok()) return s;
  if (integrity_.on) {
    Guard guard(lock_);
    return rmw_checked_locked(op, tgt, tgt_addr, static_cast<std::uint64_t>(operand),
                              static_cast<std::uint64_t>(compare), prev, width, org_cntr);
  }

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
  Guard guard(lock_);
  state->ep = peers_[tgt].ep;
  post_rmw(state, uop);
  return Errc::success;
}

// An Rmw on our own memory (rmw_apply.hpp says why the CPU does it).
Status Context::Impl::rmw_self(RmwOp op, std::uint64_t tgt_addr, std::int64_t operand,
                               std::int64_t compare, void* prev, unsigned width,
                               Counter* org_cntr) {
  {
    Guard guard(lock_);
    if (!regions_.covers(tgt_addr, width)) {
      faults_.refused_here.fetch_add(1, std::memory_order_relaxed);
      return fail(Errc::not_registered, "rmw: task {} has no registered memory covering [{:#x}, +{})",
                  me_, tgt_addr, width);
    }
  }
  const std::uint64_t old = apply_rmw_at(op, tgt_addr, width, operand, compare);
  if (prev) std::memcpy(prev, &old, width);
  if (org_cntr) org_cntr->add();
  return Errc::success;
}

void Context::Impl::on_counter_update_locked(const CounterUpdateWire& msg) {
  (void)count_remote_locked(msg.src, msg.flags, msg.counter, msg.cookie);
}

bool Context::Impl::count_remote_locked(TaskId src, std::uint16_t flags, std::uint64_t counter_handle,
                                        std::uint64_t cookie_word) {
  if (flags & ~(kHasTargetCounter | kHasCompletion)) {
    refuse_locked(src, Errc::hdr_len, 0, fmt::format("counter update with flags {:#x}", flags));
    return false;
  }
  const std::uint64_t cookie = (flags & kHasCompletion) ? cookie_word : 0;
  Counter* counter = nullptr;
  if (flags & kHasTargetCounter) {
    if (counter_handle != last_counter_hit_ && !counter_registered_locked(counter_handle)) {
      refuse_locked(src, Errc::no_cntr_reg, cookie,
                    fmt::format("target counter {:#x} is not registered", counter_handle));
      return false;
    }
    counter = reinterpret_cast<Counter*>(counter_handle);
  }
  finish_job_locked(CompletionJob{nullptr, nullptr, nullptr, counter, src, cookie});
  return true;
}

}  // namespace lapi
