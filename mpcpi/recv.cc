// Receiving and matching: irecv against the arrived queue, in-order
// rendezvous and deferred arrivals against the posted queue (eager ones are
// matched beside their header handler, in handlers.cc), rendezvous start
// (CTS), landing of early-arrival data, probes and cancel.

#include <algorithm>
#include <cstring>

#include "lapi/line_copy.hpp"
#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

using detail::Envelope;
using detail::Msg;

Errc Engine::Impl::check_recv_args(const void* buf, std::size_t capacity, int source, int tag,
                                   const char* fn) const {
  if (finalized_) return fail(Errc::terminated, "{}: engine already finalized", fn);
  if (source != kAnySource && (source < 0 || static_cast<std::uint32_t>(source) >= npeers()))
    return fail(Errc::invalid_rank, "{}: source={} is not a task (0..{}) nor any-source", fn,
                source, ntasks_ - 1);
  if (tag != kAnyTag && (tag < 0 || tag > kMaxTag))
    return fail(Errc::invalid_tag, "{}: tag={} is not in 0..{} nor any-tag", fn, tag, kMaxTag);
  if (buf == nullptr && capacity > 0)
    return fail(Errc::invalid_count, "{}: buf is null but capacity={}", fn, capacity);
  return Errc::success;
}

bool Engine::Impl::has_posted_receives() const {
  EngineLock lock(*this);
  return !posted_.empty();
}

void Engine::Impl::push_arrived_locked(Message* m) {
  ++stats_.unexpected;
  arrived_.push(*m);
  arrivals_.add(1);
}

Message* Engine::Impl::blank_message_locked() {
  Message* m = message_pool_.get();
  m->kind = Message::Kind::eager;
  m->mode = SendMode::standard;
  m->pulled = false;
  m->counted = false;
  m->landed = false;
  m->discard = false;
  m->probed = false;
  m->seq = 0;
  m->size = 0;
  m->data = nullptr;
  m->sender_buf = nullptr;
  m->matched = nullptr;
  m->self_sender = nullptr;
  m->sender_handle = 0;
  m->credit = 0;
  return m;
}

Message* Engine::Impl::new_message_locked(lapi::TaskId src, const Envelope& env,
                                          std::size_t size) {
  Message* m = blank_message_locked();
  m->context = env.context;
  m->source = static_cast<int>(src);
  m->tag = env.tag;
  m->mode = static_cast<SendMode>(env.mode);
  m->pulled = (env.flags & detail::kPulled) != 0;
  m->seq = env.seq;
  m->size = size;
  m->data = size > 0 ? new std::byte[size] : nullptr;
  return m;
}

void Engine::Impl::free_message_locked(Message* m) {
  delete[] m->data;
  m->data = nullptr;
  message_pool_.put(m);
}

Errc Engine::Impl::irecv(void* buf, std::size_t capacity, int source, int tag,
                         std::uint32_t context, Request*& out, bool user) {
  out = nullptr;
  if (!recv_args_ok(buf, capacity, source, tag)) [[unlikely]] {
    if (Errc e = check_recv_args(buf, capacity, source, tag, "irecv"); e != Errc::success) return e;
  }
  out = request_pool_.get();
  post_recv(out, init_recv(out, buf, capacity, source, tag, context),
            user && may_announce(source, capacity) ? Announce::nonblocking : Announce::no);
  return Errc::success;
}

Errc Engine::Impl::recv(void* buf, std::size_t capacity, int source, int tag,
                        std::uint32_t context, Status* status) {
  if (!recv_args_ok(buf, capacity, source, tag)) [[unlikely]] {
    if (Errc e = check_recv_args(buf, capacity, source, tag, "recv"); e != Errc::success) return e;
  }
  Request r;  // blocking: see Engine::Impl::send
  post_recv(&r, init_recv(&r, buf, capacity, source, tag, context),
            capacity >= kBlockingAnnounceMin && may_announce(source, capacity) ? Announce::blocking
                                                                                   : Announce::no);
  return wait_done(&r, status);
}

detail::Key3 Engine::Impl::init_recv(Request* r, void* buf, std::size_t capacity, int source,
                                     int tag, std::uint32_t context) {
  r->kind = Request::Kind::recv;
  r->context = context;
  r->source = source;
  r->tag = tag;
  r->recv_buf = buf;
  r->capacity = capacity;
  r->expected = 1;
  r->status = Status{};
  return {context, source, tag};
}

void Engine::Impl::post_recv(Request* r, detail::Key3 key, Announce announce) {
  const int source = key.source;
  detail::AnnounceHeader announcement;
  bool announce_now = false;
  {
    EngineLock lock(*this);
    auto* m = arrived_.empty() ? nullptr
                               : static_cast<Message*>(arrived_.find(key.context, source, key.tag));
    if (m != nullptr) {
      arrived_.remove(*m);
      take_message_locked(r, m);
    } else if (any_fault_.load(std::memory_order_relaxed) && fail_if_doomed_locked(r, source, "recv from")) [[unlikely]] {
    } else {
      posted_.post(*r, key);
      if (announce != Announce::no &&
          announce_locked(r, announce == Announce::blocking, announcement)) {
        // Straight to lapi once the lock is dropped, unless something queued
        // before it must go first. Through the outbox it cost a second lock,
        // an outbox entry and the flush (MPI_Irecv in interrupt mode,
        // callgrind: 1,150 instructions).
        announce_now = outbox_.empty();
        if (!announce_now)
          queue_locked(static_cast<lapi::TaskId>(source), Msg::announce, &announcement,
                       sizeof announcement);
      }
      // A sender held back by flow control may hold the message we need.
      if (source != kAnySource) {
        const auto src = static_cast<lapi::TaskId>(source);
        if (recv_peers_[src].starved) consider_pull_locked(src, 0, false);
      } else {
        for (lapi::TaskId t = 0; t < npeers(); ++t)
          if (recv_peers_[t].starved) consider_pull_locked(t, 0, false);
      }
    }
  }
  if (announce_now)
    send_announcement(static_cast<lapi::TaskId>(source), &announcement, sizeof announcement);
  drain_outbox();
}

// ---- An in-order arrival meets the posted queue ----------------------------

void Engine::Impl::deliver_rts_locked(lapi::TaskId src, const Envelope& env, std::uint64_t size,
                                      std::uint64_t sender_handle) {
  const bool pulled = (env.flags & detail::kPulled) != 0;
  const std::size_t credit = pulled ? 0 : kEntryCost;
  if (pulled) recv_peers_[src].pulls.erase(env.context);
  if (Request* r = match_posted_locked(env.context, src, env.tag)) {
    fill_recv_status(r, src, env.tag, size);
    start_rndv_recv_locked(r, src, size, sender_handle);
    return_credit_locked(src, credit);
    return;
  }
  Message* m = new_message_locked(src, env, 0);
  m->kind = Message::Kind::rts;
  m->size = size;
  m->sender_handle = sender_handle;
  m->credit = credit;
  push_arrived_locked(m);
}

// A message that arrived ahead of its sequence number, now next in line. Its
// data (if any) already has, or is getting, a buffer of its own.
void Engine::Impl::deliver_deferred_locked(Message* m) {
  const auto src = static_cast<lapi::TaskId>(m->source);
  if (m->pulled) recv_peers_[src].pulls.erase(m->context);
  if (m->kind == Message::Kind::rts) {
    if (Request* r = match_posted_locked(m->context, src, m->tag)) {
      fill_recv_status(r, src, m->tag, m->size);
      start_rndv_recv_locked(r, src, m->size, m->sender_handle);
      return_credit_locked(src, m->credit);
      free_message_locked(m);
    } else {
      push_arrived_locked(m);
    }
    return;
  }
  const bool ready = m->mode == SendMode::ready;
  if (Request* r = match_posted_locked(m->context, src, m->tag)) {
    if (ready) {
      const detail::AckHeader ack{m->sender_handle, 0, 0};
      queue_locked(src, Msg::ack, &ack, sizeof ack);
    }
    fill_recv_status(r, src, m->tag, m->size);
    m->matched = r;
    if (m->landed) {
      finish_matched_eager_locked(m);
    } else if (m->counted) {
      r->counter_poll = true;
    }
  } else if (ready) {
    const detail::AckHeader nack{m->sender_handle,
                                 static_cast<std::int32_t>(Errc::ready_no_match), 0};
    queue_locked(src, Msg::ack, &nack, sizeof nack);
    if (m->landed) {
      free_message_locked(m);
    } else {
      m->discard = true;
    }
  } else {
    push_arrived_locked(m);
  }
}

// ---- A receive meets an arrived message --------------------------------------

void Engine::Impl::take_message_locked(Request* r, Message* m) {
  const auto src = static_cast<lapi::TaskId>(m->source);
  fill_recv_status(r, src, m->tag, m->size);
  switch (m->kind) {
    case Message::Kind::eager:
      m->matched = r;
      if (m->landed) {
        finish_matched_eager_locked(m);
      } else if (m->counted) {
        r->counter_poll = true;
      }
      break;
    case Message::Kind::rts:
      start_rndv_recv_locked(r, src, m->size, m->sender_handle);
      return_credit_locked(src, m->credit);
      free_message_locked(m);
      break;
    case Message::Kind::self_eager:
      if (r->status.bytes > 0) lapi::copy_bulk(r->recv_buf, m->data, r->status.bytes);
      complete(r);
      free_message_locked(m);
      break;
    case Message::Kind::self_rndv:
      if (r->status.bytes > 0) lapi::copy_bulk(r->recv_buf, m->sender_buf, r->status.bytes);
      complete(r);
      complete(m->self_sender, m->self_sender->expected);
      free_message_locked(m);
      break;
  }
}

void Engine::Impl::start_rndv_recv_locked(Request* r, lapi::TaskId src, std::size_t size,
                                          std::uint64_t sender_handle) {
  (void)size;
  const std::size_t granted = r->status.bytes;
  std::uint64_t handle = 0;
  if (granted > 0) {
    handle = r->handle = recv_handles_.insert(r);
  }
  const detail::CtsHeader cts{sender_handle, handle, granted};
  Outgoing& out = queue_locked(src, Msg::cts, &cts, sizeof cts);
  if (granted > 0) {
    out.owner = r;
    out.owner_events = 1;
  } else {
    complete(r);  // nothing will follow; the CTS alone completes the sender
  }
}

void Engine::Impl::message_landed_locked(Message* m) {
  m->landed = true;
  if (m->matched != nullptr) {
    finish_matched_eager_locked(m);
  } else if (m->discard) {
    free_message_locked(m);
  }
}

void Engine::Impl::finish_matched_eager_locked(Message* m) {
  Request* r = m->matched;
  if (r->status.bytes > 0) lapi::copy_bulk(r->recv_buf, m->data, r->status.bytes);
  r->counter_poll = false;
  complete(r);
  return_credit_locked(static_cast<lapi::TaskId>(m->source), m->credit);
  free_message_locked(m);
}

// ---- Probes ------------------------------------------------------------------

Errc Engine::Impl::iprobe(int source, int tag, std::uint32_t context, bool& found,
                          Status* status, Message** take) {
  found = false;
  if (take) *take = nullptr;
  if (Errc e = check_recv_args(nullptr, 0, source, tag, "iprobe"); e != Errc::success) return e;
  if (options_.variant == Variant::counters) poll_landed();
  (void)ctx_.probe();
  {
    EngineLock lock(*this);
    // A message from any source that already arrived is still found (ULFM).
    if (any_fault_.load(std::memory_order_relaxed)) [[unlikely]] {
      if (Errc e = doomed_locked(context, source);
          e != Errc::success && (e != Errc::any_source_failed || arrived_.find(context, source, tag) == nullptr)) {
        return fail(e, "iprobe: source {} in context {}: {}", source, context, doom_reason(e));
      }
    }
    if (auto* m = static_cast<Message*>(arrived_.find(context, source, tag))) {
      found = true;
      if (status != nullptr) {
        *status = Status{};
        status->source = m->source;
        status->tag = m->tag;
        status->bytes = status->message_bytes = m->size;
      }
      if (take != nullptr) {
        arrived_.remove(*m);
        m->probed = true;
        *take = m;
      }
    } else if (source != kAnySource) {
      consider_pull_locked(static_cast<lapi::TaskId>(source), context, true);
    } else {
      for (lapi::TaskId t = 0; t < npeers(); ++t)
        if (recv_peers_[t].starved) consider_pull_locked(t, context, true);
    }
  }
  drain_outbox();
  run_hook();
  return Errc::success;
}

Errc Engine::Impl::probe(int source, int tag, std::uint32_t context, Status* status,
                         Message** take) {
  PollLoop loop;
  {
    EngineLock lock(*this);
    probing_.emplace_back(source, context);
  }
  struct Unregister {
    Engine::Impl* impl;
    std::pair<int, std::uint32_t> key;
    ~Unregister() {
      EngineLock lock(*impl);
      auto& v = impl->probing_;
      v.erase(std::find(v.begin(), v.end(), key));
    }
  } unregister{this, {source, context}};
  const WaitNote note = note_wait(WaitKind::probe, source, tag, context);
  while (true) {
    arrivals_.set(0);
    bool found = false;
    if (Errc e = iprobe(source, tag, context, found, status, take); e != Errc::success) return e;
    if (found) return Errc::success;
    // Sleep in lapi until something new is queued as unexpected.
    if (waits_poll()) {
      idle(loop);
    } else if (lapi::Status s = ctx_.waitcntr(arrivals_, 1); !s.ok()) {
      // Another task's failure interrupts the wait; this probe's own source failing ends it.
      if (s.code() != lapi::Errc::tgt_purged ||
          (source != kAnySource && ctx_.peer_failed(static_cast<lapi::TaskId>(source)))) {
        return fail(lapi_error(s), "probe: {}", s.message());
      }
    }
  }
}

Errc Engine::Impl::imrecv(Message* m, void* buf, std::size_t capacity, Request*& out) {
  out = nullptr;
  if (m == nullptr) return fail(Errc::invalid_request, "imrecv: message is null");
  if (Errc e = check_recv_args(buf, capacity, kAnySource, kAnyTag, "imrecv"); e != Errc::success)
    return e;
  {
    EngineLock lock(*this);
    if (!m->probed) return fail(Errc::invalid_request, "imrecv: message was not from improbe/mprobe");
    m->probed = false;
    Request* r = request_pool_.get();  // app thread: the pool needs no lock
    r->kind = Request::Kind::recv;
    r->context = m->context;
    r->source = m->source;
    r->tag = m->tag;
    r->recv_buf = buf;
    r->capacity = capacity;
    r->expected = 1;
    r->status = Status{};
    out = r;
    take_message_locked(r, m);
  }
  drain_outbox();
  return Errc::success;
}

// ---- Cancel ------------------------------------------------------------------

Errc Engine::Impl::cancel(Request* r) {
  if (r == nullptr) return fail(Errc::invalid_request, "cancel: request is null");
  {
    EngineLock lock(*this);
    if (r->done()) {
      // A receive from any source a failure stopped (any_source.cc) is
      // still pending for MPI (MPIX_ERR_PROC_FAILED_PENDING): cancelled.
      if (r->kind == Request::Kind::recv && r->status.error == Errc::any_source_failed) {
        r->status = Status{};
        r->status.cancelled = true;
      }
      return Errc::success;
    }
    if (r->kind == Request::Kind::recv) {
      if (withdraw_locked(r)) {
        // The sender's answer completes it: cancelled, or received.
      } else if (posted_.remove(*r)) {
        r->status = Status{};
        r->status.cancelled = true;
        complete(r);
      }
    } else {
      (void)cancel_send_locked(r);
    }
  }
  drain_outbox();
  return Errc::success;
}

bool Engine::Impl::cancel_send_locked(Request* r) {
  if (r->dest == me_) {
    auto* m = static_cast<Message*>(arrived_.find_from_if(
        r->context, static_cast<int>(me_),
        [r](const detail::ArrivedEntry& e) { return static_cast<const Message&>(e).self_sender == r; }));
    if (m == nullptr) return false;
    arrived_.remove(*m);
    free_message_locked(m);
    r->status.cancelled = true;
    complete(r, r->expected);
    return true;
  }
  SendPeer& peer = send_peers_[r->dest];
  if (auto it = peer.held.find(r->context); it != peer.held.end()) {
    auto& q = it->second;
    auto h = std::find_if(q.begin(), q.end(), [r](const Held& x) { return x.req == r; });
    if (h != q.end()) {
      q.erase(h);
      --peer.held_count;
      if (q.empty()) peer.held.erase(it);
      r->status.cancelled = true;
      complete(r, r->expected);
      return true;
    }
  }
  // A rendezvous request-to-send still waiting for its CTS: ask the
  // receiver to withdraw it; the reply decides.
  if (r->mode != SendMode::ready && r->handle != 0) {
    const detail::CancelReqHeader h{r->handle, r->context, 0};
    queue_locked(r->dest, Msg::cancel_req, &h, sizeof h);
  }
  return false;
}

}  // namespace mpcpi
