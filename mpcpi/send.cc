// Sending: validate → pick protocol (eager, ready, rendezvous RTS) → take
// credit and a sequence number, or hold the message back → post the Amsend.
// Self-sends take their own path (send_self) and never touch the wire.

#include <cstring>

#include "lapi/line_copy.hpp"
#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

using detail::Envelope;
using detail::Msg;

Errc Engine::Impl::check_send_args(const void* buf, std::size_t bytes, int dest, int tag,
                                   SendMode mode, const char* fn) const {
  if (finalized_) return fail(Errc::terminated, "{}: engine already finalized", fn);
  if (dest < 0 || static_cast<std::uint32_t>(dest) >= ntasks_)
    return fail(Errc::invalid_rank, "{}: dest={} is not a task (0..{})", fn, dest, ntasks_ - 1);
  if (tag < 0 || tag > kMaxTag)
    return fail(Errc::invalid_tag, "{}: tag={} is not in 0..{}", fn, tag, kMaxTag);
  if (buf == nullptr && bytes > 0)
    return fail(Errc::invalid_count, "{}: buf is null but bytes={}", fn, bytes);
  if (static_cast<unsigned>(mode) > static_cast<unsigned>(SendMode::buffered))
    return fail(Errc::invalid_arg, "{}: mode={} is not a send mode", fn, static_cast<int>(mode));
  return Errc::success;
}

Request* Engine::Impl::new_send(const void* buf, std::size_t bytes, int dest, int tag,
                                std::uint32_t context, SendMode mode) {
  Request* r = request_pool_.get();
  init_send(r, buf, bytes, dest, tag, context, mode);
  return r;
}

void Engine::Impl::init_send(Request* r, const void* buf, std::size_t bytes, int dest, int tag,
                             std::uint32_t context, SendMode mode) {
  r->kind = Request::Kind::send;
  r->mode = mode;
  r->send_buf = buf;
  r->bytes = bytes;
  r->dest = static_cast<lapi::TaskId>(dest);
  r->context = context;
  r->source = static_cast<int>(me_);
  r->tag = tag;
  r->status = Status{};
  r->status.source = static_cast<int>(me_);
  r->status.tag = tag;
  r->status.message_bytes = bytes;
  // A ready send waits for the data to leave (origin counter) and for the
  // receiver's verdict; every other send for one event.
  r->expected = mode == SendMode::ready ? 2 : 1;
}

void Engine::Impl::start_send(Request* r) {
  if (any_fault_.load(std::memory_order_relaxed)) [[unlikely]] {
    EngineLock lock(*this);
    if (fail_if_doomed_locked(r, static_cast<int>(r->dest), "send to")) return;
  }
  if (r->dest == me_) {
    send_self(r);
  } else {
    send_remote(r);
  }
}

// Blocking send. Its common case — standard mode, eager size, credit to
// spare, another task, a variant whose sends complete by the origin counter
// — is this function alone: no request, no outbox, one Amsend. A small one
// leaves inside amsend_now; otherwise the origin counter, which lives on
// this frame, says when lapi is done with the buffer.
Errc Engine::Impl::send(const void* buf, std::size_t bytes, int dest, int tag,
                        std::uint32_t context, SendMode mode) {
  if (!send_args_ok(buf, bytes, dest, tag, mode)) [[unlikely]] {
    if (Errc e = check_send_args(buf, bytes, dest, tag, mode, "send"); e != Errc::success) return e;
  }
  // A failed task or a revoked context: start_send gives the verdict.
  if (any_fault_.load(std::memory_order_relaxed)) [[unlikely]] return send_general(buf, bytes, dest, tag, context, mode);
  const auto to = static_cast<lapi::TaskId>(dest);
  if (bytes >= kBlockingAnnounceMin && !may_write_to(to) && direct_landing_on()) [[unlikely]] {
    // A large message in interrupt mode: take in an announcement that may
    // have just come (the receiver posted while this task was busy).
    (void)ctx_.probe();
  }
  if (may_write_to(to)) [[unlikely]] {  // the receive is announced: write into it (direct.cc)
    if (std::optional<Errc> e = send_direct(buf, bytes, to, tag, context, mode, "send")) return *e;
  }
  Envelope env{context, tag, 0, static_cast<std::uint8_t>(SendMode::standard), 0, 0};
  if (mode != SendMode::standard || to == me_ || options_.variant == Variant::counters ||
      !take_eager_slot(to, bytes, env)) {
    return send_general(buf, bytes, dest, tag, context, mode);
  }
  const lapi::HandlerId handler = handler_base_ + static_cast<lapi::HandlerId>(Msg::eager);
  // Usually the frame leaves inside the call (the ring, UCX's immediate
  // send): no origin counter to set up and consume.
  bool left = false;
  if (lapi::Status s = ctx_.amsend_now(to, handler, &env, sizeof env, buf, bytes, left);
      left || !s.ok()) {
    drain_outbox();
    return left ? Errc::success : fail(lapi_error(s), "send: {}", s.message());
  }
  lapi::Counter sent;
  lapi::Counters counters{};
  counters.origin = &sent;
  Errc result = Errc::success;
  if (lapi::Status s = ctx_.amsend(to, handler, &env, sizeof env, buf, bytes, counters);
      !s.ok()) [[unlikely]] {
    result = fail(lapi_error(s), "send: {}", s.message());
  } else if (!(concurrent() ? sent.try_consume(1) : sent.try_consume_unshared(1))) {
    if (idle_hook_ != nullptr) {
      // Other threads may call in while the data leaves (see set_idle_hook).
      PollLoop loop;
      while (!sent.try_consume(1)) {
        (void)ctx_.probe();
        drain_outbox();
        if (sent.try_consume(1)) break;
        idle(loop);
      }
    } else {
      lapi::Status w = ctx_.waitcntr(sent, 1);
      while (w.code() == lapi::Errc::tgt_purged && !ctx_.peer_failed(to)) w = ctx_.waitcntr(sent, 1);
      if (!w.ok()) result = fail(lapi_error(w), "send: {}", w.message());
    }
  }
  drain_outbox();
  return result;
}

bool Engine::Impl::take_eager_slot(lapi::TaskId dest, std::size_t bytes, Envelope& env) {
  SendPeer& peer = send_peers_[dest];
  if (bytes >= peer.eager_limit) return false;
  EngineLock lock(*this);
  return admit_eager_locked(peer, bytes, env);  // false: must be held, general path
}

Errc Engine::Impl::send_general(const void* buf, std::size_t bytes, int dest, int tag,
                                std::uint32_t context, SendMode mode) {
  if (mode == SendMode::buffered)
    return bsend(buf, bytes, dest, tag, context, Engine::kProcessBuffer);
  // A blocking send needs no pooled request: every reference the engine
  // keeps to it (handles, landing records) is gone once it completes.
  Request r;
  init_send(&r, buf, bytes, dest, tag, context, mode);
  start_send(&r);
  return wait_done(&r, nullptr);
}

Errc Engine::Impl::isend(const void* buf, std::size_t bytes, int dest, int tag,
                         std::uint32_t context, SendMode mode, Request*& out, bool* done_now) {
  if (done_now != nullptr) *done_now = false;
  out = nullptr;
  if (!send_args_ok(buf, bytes, dest, tag, mode)) [[unlikely]] {
    if (Errc e = check_send_args(buf, bytes, dest, tag, mode, "isend"); e != Errc::success) return e;
  }
  if (mode == SendMode::buffered)
    return send_buffered(buf, bytes, dest, tag, context, Engine::kProcessBuffer, out);
  const auto to = static_cast<lapi::TaskId>(dest);
  if (may_write_to(to)) [[unlikely]] {  // the receive is announced: write into it (direct.cc)
    if (std::optional<Errc> e = send_direct(buf, bytes, to, tag, context, mode, "isend")) {
      if (*e != Errc::success || done_now != nullptr) {
        if (done_now != nullptr) *done_now = *e == Errc::success;
        return *e;
      }
      out = new_send(buf, bytes, dest, tag, context, mode);
      complete(out, out->expected);
      return Errc::success;
    }
  }
  Envelope env{context, tag, 0, static_cast<std::uint8_t>(SendMode::standard), 0, 0};
  // The common case — a caller that takes completion at once, standard mode, another task, no
  // counted landings, no failed task (start_send's verdicts), eager size and credit to spare —
  // needs no request at all when lapi is done with the buffer inside the call.
  if (done_now != nullptr && mode == SendMode::standard && to != me_ &&
      options_.variant != Variant::counters && !any_fault_.load(std::memory_order_relaxed) &&
      take_eager_slot(to, bytes, env)) [[likely]] {
    if (isend_admitted(buf, bytes, to, tag, context, env, out)) {
      *done_now = true;
      return Errc::success;
    }
  } else {
    out = new_send(buf, bytes, dest, tag, context, mode);
    start_send(out);
  }
  // Complete already (the eager message left inside lapi's amsend): nothing
  // refers to the request any more, so it goes straight back to the pool.
  if (done_now != nullptr && out->done() && out->status.error == Errc::success) {
    release_request(out);
    out = nullptr;
    *done_now = true;
  }
  return Errc::success;
}

bool Engine::Impl::isend_admitted(const void* buf, std::size_t bytes, lapi::TaskId to, int tag,
                                  std::uint32_t context, const Envelope& env, Request*& out) {
  const lapi::HandlerId handler = handler_base_ + static_cast<lapi::HandlerId>(Msg::eager);
  bool sent = false;
  lapi::Status s = ctx_.amsend_now(to, handler, &env, sizeof env, buf, bytes, sent);
  if (!sent) {
    // As send_remote's eager sends: the request's counter says when lapi is done with the buffer,
    // and an error reaches the caller at completion.
    out = new_send(buf, bytes, static_cast<int>(to), tag, context, SendMode::standard);
    if (s.ok()) {
      lapi::Counters counters{};
      counters.origin = &out->signal;
      s = ctx_.amsend(to, handler, &env, sizeof env, buf, bytes, counters);
    }
    if (!s.ok()) [[unlikely]] fail_request(out, lapi_error(s), out->expected);
  }
  drain_outbox();
  return sent;
}

Msg Engine::Impl::pick_protocol(const Request& r) const {
  if (r.mode == SendMode::ready) return Msg::ready;  // eager whatever its size
  if (r.mode == SendMode::synchronous) return Msg::rts;
  return r.bytes < send_peers_[r.dest].eager_limit ? Msg::eager : Msg::rts;
}

Outgoing Engine::Impl::make_wire_locked(lapi::TaskId dest, Msg type, std::uint32_t context,
                                        int tag, SendMode mode, std::uint32_t seq,
                                        std::uint8_t flags, const void* data, std::size_t bytes,
                                        Request* req) {
  Outgoing out;
  out.dest = dest;
  out.type = type;
  Envelope env{context, tag, seq, static_cast<std::uint8_t>(mode), flags, 0};
  switch (type) {
    case Msg::eager: {
      if (options_.variant == Variant::counters && bytes < counted_limit_) {
        // Counted: lapi copies it in its arrival callback, so landings are
        // in arrival order and one counter can signal them all.
        env.flags |= detail::kCounted;
        out.counters.target = peer_landing_[dest];
      }
      std::memcpy(out.header.data(), &env, sizeof env);
      out.header_len = sizeof env;
      out.data = data;
      out.len = bytes;
      break;
    }
    case Msg::ready: {
      req->handle = send_handles_.insert(req);
      const detail::ReadyHeader h{env, req->handle};
      std::memcpy(out.header.data(), &h, sizeof h);
      out.header_len = sizeof h;
      out.data = data;
      out.len = bytes;
      break;
    }
    case Msg::rts: {
      req->handle = send_handles_.insert(req);
      const detail::RtsHeader h{env, bytes, req->handle};
      std::memcpy(out.header.data(), &h, sizeof h);
      out.header_len = sizeof h;
      break;
    }
    default:
      break;
  }
  if (req != nullptr && type != Msg::rts) {
    out.counters.origin = &req->signal;
    out.owner = req;
    out.owner_events = req->expected;
  } else if (req != nullptr) {
    out.owner = req;
    out.owner_events = 1;
  }
  return out;
}

// Under the lock: may this message go now? Takes its credit (or a pulled
// slot) and says which flags it carries; false means it must be held.
bool Engine::Impl::admit_locked(SendPeer& peer, Msg type, std::size_t bytes,
                                std::uint32_t context, std::uint8_t& flags) {
  const std::int64_t cost = type == Msg::eager ? static_cast<std::int64_t>(credit_cost(bytes))
                            : type == Msg::rts ? static_cast<std::int64_t>(kEntryCost)
                                               : 0;  // ready: never buffered unexpected
  flags = 0;
  if (peer.held_count == 0 && peer.credits >= cost) [[likely]] {
    peer.credits -= cost;
    return true;
  }
  auto a = peer.allowance.find(context);
  if (a != peer.allowance.end() && a->second > 0 && peer.held.find(context) == peer.held.end()) {
    --a->second;  // the receiver pulled this context: go outside the window
    flags = detail::kPulled;
    return true;
  }
  return false;
}

bool Engine::Impl::admit_eager_locked(SendPeer& peer, std::size_t bytes, Envelope& env) {
  if (!admit_locked(peer, Msg::eager, bytes, env.context, env.flags)) return false;
  env.seq = peer.next_seq++;
  ++stats_.eager_sent;
  return true;
}

void Engine::Impl::send_remote(Request* r) {
  const Msg type = pick_protocol(*r);
  if (type == Msg::eager) {
    // The common case, straight to lapi: envelope in the user header, the
    // user's buffer as data, the request's counter as origin counter.
    Envelope env{r->context, r->tag, 0, static_cast<std::uint8_t>(r->mode), 0, 0};
    lapi::Counters counters{};
    counters.origin = &r->signal;
    bool now;
    {
      EngineLock lock(*this);
      SendPeer& peer = send_peers_[r->dest];
      now = admit_eager_locked(peer, r->bytes, env);
      if (now) {
        if (options_.variant == Variant::counters && r->bytes < counted_limit_) {
          env.flags |= detail::kCounted;  // see make_wire_locked
          counters.target = peer_landing_[r->dest];
        }
      } else {
        hold_locked(r->dest, type, r);
      }
    }
    if (now) {
      lapi::Status s = ctx_.amsend(r->dest, handler_base_ + static_cast<lapi::HandlerId>(Msg::eager),
                                   &env, sizeof env, r->send_buf, r->bytes, counters);
      if (!s.ok()) [[unlikely]] fail_request(r, lapi_error(s), r->expected);
    }
    drain_outbox();
    return;
  }
  Outgoing out;
  bool now;
  {
    EngineLock lock(*this);
    SendPeer& peer = send_peers_[r->dest];
    std::uint8_t flags = 0;
    now = admit_locked(peer, type, r->bytes, r->context, flags);
    if (now) {
      ++(type == Msg::rts ? stats_.rendezvous_sent : stats_.eager_sent);
      out = make_wire_locked(r->dest, type, r->context, r->tag, r->mode, peer.next_seq++, flags,
                             r->send_buf, r->bytes, r);
    } else {
      hold_locked(r->dest, type, r);
    }
  }
  if (now) post(out);
  drain_outbox();
}

void Engine::Impl::send_self(Request* r) {
  EngineLock lock(*this);
  if (Request* recv = match_posted_locked(r->context, me_, r->tag)) {
    fill_recv_status(recv, me_, r->tag, r->bytes);
    if (recv->status.bytes > 0) lapi::copy_bulk(recv->recv_buf, r->send_buf, recv->status.bytes);
    complete(recv);
    complete(r, r->expected);
    return;
  }
  if (r->mode == SendMode::ready) {
    r->status.error = Errc::ready_no_match;
    complete(r, r->expected);
    return;
  }
  Message* m = blank_message_locked();
  m->context = r->context;
  m->source = static_cast<int>(me_);
  m->tag = r->tag;
  m->mode = r->mode;
  m->size = r->bytes;
  // A buffered message (its carrier) stays in the attached buffer until it
  // is received, as rendezvous: no second copy, and the buffer holds what
  // the program sized it for (MPICH does the same; its pt2pt/bsend_iflush
  // counts on a self-message filling the buffer until it is received).
  if (r->mode != SendMode::synchronous && r->bytes < options_.eager_limit &&
      r->bsend_buffer == nullptr) {
    // Like an eager message: the send completes now, the data waits here.
    m->kind = Message::Kind::self_eager;
    if (r->bytes > 0) {
      m->data = new std::byte[r->bytes];
      lapi::copy_bulk(m->data, r->send_buf, r->bytes);
    }
    m->landed = true;
    complete(r);
  } else {
    // Like rendezvous: the receive copies straight from the sender's buffer.
    m->kind = Message::Kind::self_rndv;
    m->sender_buf = r->send_buf;
    m->self_sender = r;
  }
  push_arrived_locked(m);
}

}  // namespace mpcpi
