// Target side of Amsend, from the UCX callback to the user's buffer:
//   parse and validate the frame → run the header handler → land the data
//   (one copy for eager, ucp_am_recv_data_nbx straight into the buffer for
//   rendezvous) → complete on the context's policy → counters and ack.

#include <cstring>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

thread_local int tl_header_handler_depth = 0;

namespace {

struct RndvRecv {
  Context::Impl* impl;
  CompletionJob job;
};

void on_rndv_landed(void* request, ucs_status_t status, std::size_t, void* user_data) {
  auto* op = static_cast<RndvRecv*>(user_data);
  if (status == UCS_OK) {
    op->impl->landed_locked(op->job);
  } else {
    Context::Impl& e = *op->impl;
    e.refuse_locked(op->job.src, Errc::transport, op->job.cookie,
                    fmt::format("rendezvous receive failed: {}", ucs_status_string(status)));
    CompletionJob nothing{};
    nothing.src = op->job.src;
    e.landed_locked(nothing);  // done here, for the sender's fence
  }
  delete op;
  ucp_request_free(request);
}

}  // namespace

ucs_status_t Context::Impl::on_amsend(const void* header, std::size_t header_len, void* data,
                                      std::size_t length, const ucp_am_recv_param_t* param) {
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  // A refused rendezvous is also failed back through UCX, so the sender's
  // request completes with an error rather than waiting for a pull.
  const ucs_status_t refused = rndv ? UCS_ERR_REJECTED : UCS_OK;
  const auto* bytes = static_cast<const std::byte*>(header);

  if (header_len < sizeof(AmsendWire)) {
    refuse_locked(UINT32_MAX, Errc::hdr_len, 0,
                  fmt::format("amsend header of {} bytes is truncated", header_len));
    return refused;
  }
  AmsendWire w;
  std::memcpy(&w, bytes, sizeof w);
  if (w.src >= ntasks_) {
    refuse_locked(UINT32_MAX, Errc::tgt, 0, fmt::format("amsend from unknown task {}", w.src));
    return refused;
  }
  // From here on the sender is known: a refused Amsend still counts as done
  // at this target, so the sender's fence does not wait for it forever.
  auto refuse_counted = [&](Errc code, std::uint64_t cookie, std::string detail) {
    refuse_locked(w.src, code, cookie, std::move(detail));
    ++landed_from_[w.src];
    if (fence_wanted_[w.src] != 0) check_fence_requests_locked(w.src);
  };
  std::size_t off = sizeof w;
  std::uint64_t counter_handle = 0;
  std::uint64_t cookie = 0;
  const std::size_t words = ((w.flags & kHasTargetCounter) ? 8 : 0) + ((w.flags & kHasCompletion) ? 8 : 0);
  if ((w.flags & ~(kHasTargetCounter | kHasCompletion)) != 0 || header_len < off + words) {
    refuse_counted( Errc::hdr_len, 0,
                  fmt::format("amsend header malformed (flags {:#x}, {} bytes)", w.flags, header_len));
    return refused;
  }
  if (w.flags & kHasTargetCounter) {
    std::memcpy(&counter_handle, bytes + off, 8);
    off += 8;
  }
  if (w.flags & kHasCompletion) {
    std::memcpy(&cookie, bytes + off, 8);
    off += 8;
  }
  if (w.handler == 0 || w.handler >= kMaxUserHandlers || handlers_[w.handler].fn == nullptr) {
    refuse_counted( Errc::no_callback_reg, cookie,
                  fmt::format("amsend names handler {} which is not registered", w.handler));
    return refused;
  }
  Counter* target_counter = nullptr;
  if (counter_handle != 0) {
    if (counter_handle != last_counter_hit_ && !counter_registered_locked(counter_handle)) {
      refuse_counted( Errc::no_cntr_reg, cookie,
                    fmt::format("amsend names target counter {:#x} which is not registered",
                                counter_handle));
      return refused;
    }
    target_counter = reinterpret_cast<Counter*>(counter_handle);
  }

  const UserHandler& h = handlers_[w.handler];
  const AmHeaderInfo info{w.src, bytes + off, header_len - off, length, h.arg};
  ++tl_header_handler_depth;
  const Landing landing = h.fn(owner_, info);
  --tl_header_handler_depth;

  const CompletionJob job{landing.on_complete, landing.user_info, landing.completion_arg,
                          target_counter,      w.src,             cookie};
  if (length == 0 || landing.buffer == nullptr) {
    landed_locked(job);  // nothing to move, or the handler discarded it
    return UCS_OK;       // for rendezvous: UCX drops the data, the send completes
  }
  if (!rndv) {
    std::memcpy(landing.buffer, data, length);
    landed_locked(job);
    return UCS_OK;
  }
  auto* op = new RndvRecv{this, job};
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.recv_am = on_rndv_landed;
  p.user_data = op;
  ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, data, landing.buffer, length, &p);
  if (r == nullptr) {
    landed_locked(job);
    delete op;
  } else if (UCS_PTR_IS_ERR(r)) {
    delete op;
    refuse_counted(Errc::transport, cookie,
                  fmt::format("rendezvous receive failed: {}", ucs_status_string(UCS_PTR_STATUS(r))));
  }
  return UCS_OK;
}

bool Context::Impl::counter_registered_locked(std::uint64_t handle) {
  if (counters_.find(handle) == counters_.end()) return false;
  last_counter_hit_ = handle;
  return true;
}

void Context::Impl::landed_locked(const CompletionJob& job) {
  ++landed_from_[job.src];
  if (fence_wanted_[job.src] != 0) check_fence_requests_locked(job.src);
  if (job.handler == nullptr) {
    finish_job_locked(job);
  } else if (handler_thread_ && config_.policy == CompletionPolicy::thread) {
    handler_thread_->push(job);
  } else {
    deferred_.push_back(job);  // inline or fiber: run after ucp_worker_progress returns
    deferred_count_.store(static_cast<std::uint32_t>(deferred_.size()), std::memory_order_relaxed);
  }
}

void Context::Impl::finish_job_locked(const CompletionJob& job) {
  if (job.target_counter) job.target_counter->add();
  if (job.cookie != 0) {
    const CompletionAckWire ack{me_, 0, job.cookie};
    send_control_locked(job.src, Proto::completion_ack, &ack, sizeof ack);
  }
}

void Context::Impl::finish_job(const CompletionJob& job) {
  if (job.target_counter == nullptr && job.cookie == 0) return;
  {
    Guard guard(lock_);
    finish_job_locked(job);
  }
  // Off the progress path (handler thread): a waiter asleep on the event fd
  // would not see a counter move, so wake it.
  if (sleepers_.load(std::memory_order_acquire) > 0) ucp_worker_signal(worker_);
}

void Context::Impl::on_completion_ack_locked(const CompletionAckWire& msg) {
  if (auto counter = completions_.take(msg.cookie)) {
    (*counter)->add();
  } else {
    refuse_locked(msg.src, Errc::cntr_val, 0,
                  fmt::format("completion ack with unknown cookie {:#x}", msg.cookie));
  }
}

Status Context::Impl::register_handler(HandlerId id, HeaderHandler handler, void* arg) {
  if (id == 0 || id >= kMaxUserHandlers) {
    return fail(Errc::addr_hndl_range, "register_handler: id={} is not in 1..{}", id,
                kMaxUserHandlers - 1);
  }
  if (handler == nullptr) return fail(Errc::hdr_hndlr_null, "register_handler: handler is null");
  Guard guard(lock_);
  handlers_[id] = {handler, arg};
  return Errc::success;
}

}  // namespace lapi
