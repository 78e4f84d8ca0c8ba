// Target side of Amsend, from the UCX callback to the user's buffer:
//   parse and validate the frame → run the header handler → land the data
//   (one copy for eager, ucp_am_recv_data_nbx straight into the buffer for
//   rendezvous) → complete on the context's policy → counters and ack.

#include <cstring>

#include "lapi/internal/amsend_frame.hpp"
#include "lapi/internal/engine.hpp"
#include "lapi/line_copy.hpp"

namespace lapi {

using namespace internal;

thread_local int tl_header_handler_depth __attribute__((tls_model("initial-exec"))) = 0;

namespace {

struct RndvRecv {
  Context::Impl* impl;
  CompletionJob job;
  void* buffer;
  std::size_t length;
  DataCheck check;  // LAPIS_CHECKSUM: the data's CRC, checked once landed
};

void on_rndv_landed(void* request, ucs_status_t status, std::size_t, void* user_data) {
  auto* op = static_cast<RndvRecv*>(user_data);
  if (status == UCS_OK) {
    if (op->check.on) [[unlikely]] {
      op->impl->checked_.land_checked_locked(op->job, op->buffer, op->length, op->check);
    } else {
      op->impl->landed_locked(op->job);
    }
  } else {
    Context::Impl& e = *op->impl;
    if (op->check.on)
      e.checked_.send_checksum_ack_locked(op->job.src, op->check.record, Errc::transport);
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

// Refusal paths are out of line so that the accepting path stays short.
[[gnu::cold, gnu::noinline]] ucs_status_t Context::Impl::refuse_amsend_locked(
    bool rndv, std::uint32_t src, Errc code, std::uint64_t cookie, std::string detail,
    std::uint64_t split_id) {
  refuse_locked(src, code, cookie, std::move(detail));
  if (accepting_held_ != 0 && src < npeers()) {
    // A held Amsend's origin counter waits for the target's word.
    checked_.send_checksum_ack_locked(src, accepting_held_, code);
    accepting_held_ = 0;
  }
  if (split_id != 0 && src < npeers()) {
    drop_staged_chunks_locked(src, split_id);  // those of a staged one come regardless
    release_split_locked(src, split_id, code);
  }
  if (src < npeers()) {
    // A refused Amsend still counts as done here, so its sender's fence
    // does not wait for it forever.
    ++peers_[src].landed_from;
    if (peers_[src].fence_wanted != 0) check_fence_requests_locked(src);
  }
  // A refused rendezvous is also failed back through UCX, so the sender's
  // request completes with an error rather than waiting for a pull.
  return rndv ? UCS_ERR_REJECTED : UCS_OK;
}

ucs_status_t Context::Impl::on_amsend(const void* header, std::size_t header_len, void* data,
                                      std::size_t length, const ucp_am_recv_param_t* param) {
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  return accept_amsend_locked(rndv, false, static_cast<const std::byte*>(header), header_len, data,
                              length);
}

ucs_status_t Context::Impl::on_amsend_packed(const void*, std::size_t header_len,
                                             void* data, std::size_t length,
                                             const ucp_am_recv_param_t* param) {
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  if (header_len != 0 || rndv) [[unlikely]] {
    return refuse_amsend_locked(rndv, UINT32_MAX, Errc::hdr_len, 0,
                                "packed amsend with a UCX header or rendezvous");
  }
  // The frame leads the payload; what follows the user header is the data.
  return accept_amsend_locked(false, true, static_cast<const std::byte*>(data), length, nullptr, 0);
}

void Context::Impl::accept_shm_frame_locked(TaskId src, const std::byte* frame, std::size_t len,
                                            std::size_t room) {
  std::uint32_t claimed;
  if (!shm_frame_fits(src, frame, len, room, claimed)) [[unlikely]] {
    (void)refuse_amsend_locked(false, src, Errc::hdr_len, 0,
                               fmt::format("shared-memory frame of {} bytes from task {} claims "
                                           "task {} ({} bytes fit)",
                                           len, src, claimed, room));
    return;
  }
  (void)accept_amsend_locked(false, true, frame, len, nullptr, 0);
}

namespace {

// A field the header handler has just stored, loaded on its own. Copying
// the landing into the job, the compiler would load two neighbouring
// fields at once; a 16-byte load over two 8-byte stores still in the store
// buffer cannot be forwarded and waits for both to reach the cache (38% of
// this function's time in an 8 B stream, perf).
template <class T>
T load_alone(const T& field) {
  return *static_cast<const volatile T*>(&field);
}

}  // namespace

// Inlined: each form has one caller, and the unchecked one is every message's path.
template <bool kChecked>
[[gnu::always_inline]] inline ucs_status_t Context::Impl::deliver_amsend_locked(
    bool rndv, const std::byte* bytes, const AmsendFrame& f, const DataCheck& check) {
  const AmsendWire& w = f.wire;
  const std::size_t off = f.uhdr_offset;
  const std::size_t uhdr_len = f.uhdr_len;
  const std::uint64_t counter_handle = f.counter_handle;
  const std::uint64_t cookie = f.cookie;
  const SplitWire& split = f.split;
  void* const data = f.data;
  const std::size_t length = f.length;
  if (w.handler >= kMaxUserHandlers || handlers_[w.handler].fn == nullptr) [[unlikely]] {
    return refuse_amsend_locked(rndv, w.src, Errc::no_callback_reg, cookie,
                                fmt::format("amsend names handler {} which is not registered", w.handler),
                                split.id);
  }
  if (counter_handle != 0 && counter_handle != last_counter_hit_ &&
      !counter_registered_locked(counter_handle)) [[unlikely]] {
    return refuse_amsend_locked(rndv, w.src, Errc::no_cntr_reg, cookie,
                                fmt::format("amsend names target counter {:#x} which is not registered",
                                            counter_handle),
                                split.id);
  }

  // 2. The header handler names the landing buffer.
  const UserHandler& h = handlers_[w.handler];
  const AmHeaderInfo info{w.src, bytes + off, uhdr_len, length, h.arg, rndv ? nullptr : data};
  ++tl_header_handler_depth;
  const Landing landing = h.fn(owner_, info);
  --tl_header_handler_depth;
  if (landing.refuse != 0) [[unlikely]] {
    return refuse_amsend_locked(
        rndv, w.src, static_cast<Errc>(landing.refuse), cookie,
        w.handler == kPutFrameHandler
            ? fmt::format("put of {} bytes refused ({})", length,
                          errc_name(static_cast<Errc>(landing.refuse)))
            : fmt::format("header handler {} refused the message ({})", w.handler,
                          errc_name(static_cast<Errc>(landing.refuse))),
        split.id);
  }
  const CompletionJob job{load_alone(landing.on_complete), load_alone(landing.user_info),
                          load_alone(landing.completion_arg),
                          reinterpret_cast<Counter*>(counter_handle), w.src, cookie};
  if (split.id != 0) [[unlikely]] {
    if (f.striped) {
      land_striped_locked(w.src, split, landing.buffer, job);
    } else if (f.staged) {
      land_staged_locked(w.src, split, landing.buffer, job);
    } else {
      land_split_locked(w.src, split, landing.buffer, job, kChecked ? check.split_crc : 0);
    }
    return UCS_OK;
  }

  // 3. Land the data: one copy for eager, a zero-copy pull for rendezvous.
  // check.on: a held send (LAPIS_CHECKSUM), whose origin waits for this task's word.
  if (kChecked && check.on) accepting_held_ = 0;  // refusals are behind us
  if (length == 0 || landing.buffer == nullptr) {
    if (kChecked && check.on) checked_.send_checksum_ack_locked(w.src, check.record, Errc::success);
    landed_locked(job);  // nothing to move, or the handler discarded it
    return UCS_OK;       // for rendezvous: UCX drops the data, the send completes
  }
  if (!rndv) [[likely]] {
    copy_out_of_shared(landing.buffer, data, length);
    landed_locked(job);
    return UCS_OK;
  }
  return pull_rendezvous_locked(data, landing.buffer, length, job, check);
}

inline ucs_status_t Context::Impl::accept_amsend_locked(bool rndv, bool packed,
                                                        const std::byte* bytes,
                                                        std::size_t frame_len, void* data,
                                                        std::size_t length) {
  // 1. Parse and validate the frame: sender, flags, optional words (amsend_frame.hpp);
  //    then the handler and counter it names.
  AmsendFrame f;
  if (const FrameFault fault = parse_amsend_frame(rndv, packed, bytes, frame_len, data, length,
                                                  npeers(), f);
      fault != FrameFault::none) [[unlikely]] {
    // A control message in a shared-memory ring (split_copy.cc) is no Amsend: its flag is one
    // the Amsend parser refuses, so it costs the Amsends nothing.
    if (fault == FrameFault::malformed && shm_.owns(bytes) && is_ring_control(bytes, frame_len)) {
      accept_shm_control_locked(f.wire.src, bytes, frame_len);
      return UCS_OK;
    }
    return refuse_amsend_locked(rndv, fault == FrameFault::truncated ? UINT32_MAX : f.wire.src,
                                Errc::hdr_len, f.cookie, describe(fault, f, frame_len));
  }
  if (((f.wire.flags & kChecksummed) != 0) | integrity_.on) [[unlikely]] {
    return accept_checked_amsend_locked(rndv, bytes, f);
  }
  return deliver_amsend_locked<false>(rndv, bytes, f, DataCheck{});
}

[[gnu::noinline]] ucs_status_t Context::Impl::accept_checked_amsend_locked(
    bool rndv, const std::byte* bytes, const AmsendFrame& f) {
  if ((f.wire.flags & kChecksummed) == 0 || !integrity_.on) {
    return refuse_amsend_locked(rndv, f.wire.src, Errc::hdr_len, f.cookie,
                                fmt::format("amsend {} a checksum, but LAPIS_CHECKSUM is {} here",
                                            (f.wire.flags & kChecksummed) ? "with" : "without",
                                            to_string(config_.checksum)));
  }
  // A split Amsend still to be checked lands before anything after it, but
  // a split one runs the check itself, once its own split_go is out.
  if ((f.wire.flags & kSplitData) == 0 && !split_.held_checks.empty()) [[unlikely]] {
    check_held_splits_locked();
  }
  DataCheck check;
  if (auto refused = checked_.check_frame_locked(rndv, f.wire.src, bytes, f.sum_offset, f.uhdr_len,
                                                 f.wire_data, f.wire_length, f.cookie,
                                                 f.staged ? f.split.id : 0, check)) {
    return *refused;
  }
  return deliver_amsend_locked<true>(rndv, bytes, f, check);
}

ucs_status_t Context::Impl::pull_rendezvous_locked(void* desc, void* buffer, std::size_t length,
                                                   const CompletionJob& job,
                                                   const DataCheck& check) {
  auto* op = new RndvRecv{this, job, buffer, length, check};
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.recv_am = on_rndv_landed;
  p.user_data = op;
  ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, desc, buffer, length, &p);
  if (r == nullptr) {
    if (check.on) [[unlikely]] {
      checked_.land_checked_locked(job, buffer, length, check);
    } else {
      landed_locked(job);
    }
    delete op;
  } else if (UCS_PTR_IS_ERR(r)) {
    delete op;
    if (check.on) checked_.send_checksum_ack_locked(job.src, check.record, Errc::transport);
    (void)refuse_amsend_locked(false, job.src, Errc::transport, job.cookie,
                               fmt::format("rendezvous receive failed: {}",
                                           ucs_status_string(UCS_PTR_STATUS(r))));
  }
  return UCS_OK;
}

bool Context::Impl::counter_registered_locked(std::uint64_t handle) {
  if (counters_.find(handle) == counters_.end()) return false;
  last_counter_hit_ = handle;
  return true;
}

void Context::Impl::run_handler_later_locked(const CompletionJob& job) {
  if (runner_.handler_thread && config_.policy == CompletionPolicy::thread) {
    runner_.handler_thread->push(job);
  } else {
    runner_.defer(job);  // inline or fiber: run after ucp_worker_progress returns
  }
}

void Context::Impl::finish_job_locked(const CompletionJob& job) {
  if (job.target_counter) bump(*job.target_counter);
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
  if (progress_.sleepers.load(std::memory_order_acquire) > 0) ucp_worker_signal(worker_);
}

void Context::Impl::on_completion_ack_locked(const CompletionAckWire& msg) {
  if (auto counter = completions_.take(msg.cookie)) {
    (*counter)->add();
  } else {
    refuse_locked(msg.src, Errc::cntr_val, 0,
                  fmt::format("completion ack with unknown cookie {:#x}", msg.cookie));
  }
}

Status Context::Impl::unregister_handler(HandlerId id) {
  if (id == 0 || id >= kMaxUserHandlers) {
    return fail(Errc::addr_hndl_range, "unregister_handler: id={} is not in 1..{}", id, kMaxUserHandlers - 1);
  }
  Guard guard(lock_);
  handlers_[id] = {};
  return Errc::success;
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
