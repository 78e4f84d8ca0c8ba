// The handler table: one header handler per wire message type, each a
// short parse → validate → engine step (the eager step, the hot one, with
// its matching against the posted queue). Header handlers run inside lapi's
// progress engine and never send; whatever must be sent goes to the outbox,
// and the landing they return carries a completion handler that drains it.

#include <array>
#include <cstring>

#include "lapi/line_copy.hpp"
#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/handlers_table.hpp"

namespace mpcpi {

using detail::Envelope;
using detail::Msg;
using detail::read_header;

namespace {

Engine::Impl* impl_of(const lapi::AmHeaderInfo& info) {
  return static_cast<HandlerSlot*>(info.handler_arg)->impl.load(std::memory_order_acquire);
}

// ---- Completion handlers (may communicate) ----------------------------------
// Their argument is the engine's HandlerSlot, not the engine: lapi may run a
// completion after the engine that queued it is gone (a deferred job, the
// handler thread); the slot then says so and the job is dropped.

Engine::Impl* impl_of(void* slot) {
  return static_cast<HandlerSlot*>(slot)->impl.load(std::memory_order_acquire);
}

void cmp_drain(lapi::Context&, void*, void* arg) {
  if (Engine::Impl* impl = impl_of(arg)) impl->drain_outbox();
}

void cmp_recv_landed(lapi::Context&, void* user_info, void* arg) {
  Engine::Impl* impl = impl_of(arg);
  if (impl == nullptr) return;
  impl->complete(static_cast<Request*>(user_info));
  impl->drain_outbox();
}

void cmp_message_landed(lapi::Context&, void* user_info, void* arg) {
  Engine::Impl* impl = impl_of(arg);
  if (impl == nullptr) return;
  {
    EngineLock lock(*impl);
    impl->message_landed_locked(static_cast<Message*>(user_info));
  }
  impl->drain_outbox();
}

void cmp_release(lapi::Context&, void* user_info, void* arg) {
  Engine::Impl* impl = impl_of(arg);
  if (impl == nullptr) return;
  const auto dest = static_cast<lapi::TaskId>(static_cast<SendPeer*>(user_info) -
                                              impl->send_peers_.data());
  impl->release_held(dest);
}

// ---- Header handlers ----------------------------------------------------------

template <class Header>
struct Parsed {
  Engine::Impl* impl;
  std::optional<Header> header;
};

template <class Header>
Parsed<Header> parse(const lapi::AmHeaderInfo& info, const char* what) {
  Engine::Impl* impl = impl_of(info);
  if (impl == nullptr) return {nullptr, std::nullopt};  // engine gone: drop
  auto header = read_header<Header>(info.uhdr, info.uhdr_len);
  if (!header) {
    EngineLock lock(*impl);
    impl->protocol_error_locked(info.src, what);
  }
  return {impl, header};
}

lapi::Landing hh_eager(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::Envelope>(info, "eager header has the wrong length");
  if (!p.header) return {};
  return p.impl->on_eager(info.src, *p.header, 0, Arrival{info.data_len, info.data});
}

lapi::Landing hh_ready(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::ReadyHeader>(info, "ready header has the wrong length");
  if (!p.header) return {};
  if (p.header->env.mode != static_cast<std::uint8_t>(SendMode::ready)) {
    EngineLock lock(*p.impl);
    p.impl->protocol_error_locked(info.src, "ready message without ready mode");
    return {};
  }
  return p.impl->on_eager(info.src, p.header->env, p.header->sender_handle,
                          Arrival{info.data_len, info.data});
}

lapi::Landing hh_rts(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::RtsHeader>(info, "rts header has the wrong length");
  if (!p.header) return {};
  if (info.data_len != 0) {
    EngineLock lock(*p.impl);
    p.impl->protocol_error_locked(info.src, "rts carries data");
    return {};
  }
  return p.impl->on_rts(info.src, *p.header);
}

lapi::Landing hh_cts(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::CtsHeader>(info, "cts header has the wrong length");
  return p.header ? p.impl->on_cts(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_data(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::DataHeader>(info, "data header has the wrong length");
  return p.header ? p.impl->on_data(info.src, *p.header, Arrival{info.data_len, info.data})
                  : lapi::Landing{};
}

lapi::Landing hh_ack(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::AckHeader>(info, "ack header has the wrong length");
  return p.header ? p.impl->on_ack(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_credit(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::CreditHeader>(info, "credit header has the wrong length");
  return p.header ? p.impl->on_credit(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_starved(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::StarvedHeader>(info, "starved header has the wrong length");
  return p.header ? p.impl->on_starved(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_pull(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::PullHeader>(info, "pull header has the wrong length");
  return p.header ? p.impl->on_pull(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_cancel_req(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::CancelReqHeader>(info, "cancel request has the wrong length");
  return p.header ? p.impl->on_cancel_req(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_cancel_reply(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::CancelReplyHeader>(info, "cancel reply has the wrong length");
  return p.header ? p.impl->on_cancel_reply(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_announce(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::AnnounceHeader>(info, "announcement has the wrong length");
  return p.header ? p.impl->on_announce(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_landed(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::LandedHeader>(info, "landed message has the wrong length");
  return p.header ? p.impl->on_landed(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_withdraw(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::WithdrawHeader>(info, "withdrawal has the wrong length");
  return p.header ? p.impl->on_withdraw(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_withdrawn(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::WithdrawnHeader>(info, "withdrawal answer has the wrong length");
  return p.header ? p.impl->on_withdrawn(info.src, *p.header) : lapi::Landing{};
}

lapi::Landing hh_revoke(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto p = parse<detail::RevokeHeader>(info, "revocation has the wrong length");
  return p.header ? p.impl->on_revoke(info.src, *p.header) : lapi::Landing{};
}

}  // namespace

// Wire message type → target-side header handler. Registered at
// first_handler_id + index, on every task, by Engine::create.
const std::array<HandlerEntry, detail::kMsgCount> kHandlerTable = {{
    {Msg::eager, hh_eager},
    {Msg::ready, hh_ready},
    {Msg::rts, hh_rts},
    {Msg::cts, hh_cts},
    {Msg::data, hh_data},
    {Msg::ack, hh_ack},
    {Msg::credit, hh_credit},
    {Msg::starved, hh_starved},
    {Msg::pull, hh_pull},
    {Msg::cancel_req, hh_cancel_req},
    {Msg::cancel_reply, hh_cancel_reply},
    {Msg::announce, hh_announce},
    {Msg::landed, hh_landed},
    {Msg::withdraw, hh_withdraw},
    {Msg::withdrawn, hh_withdrawn},
    {Msg::revoke, hh_revoke},
}};

// ---- Engine steps run by the header handlers ---------------------------------

lapi::Landing Engine::Impl::with_drain_locked(lapi::Landing landing) {
  if (!outbox_.empty() && landing.on_complete == nullptr) {
    landing.on_complete = cmp_drain;
    landing.completion_arg = slot_;
  }
  return landing;
}

lapi::Landing Engine::Impl::land_in_request_later_locked(Request* r, bool counted) {
  if (counted) {  // counters variant: the landing counter says when
    r->counter_poll = true;
    landed_fifo_.push_back({r, nullptr});
    return lapi::Landing{r->recv_buf};
  }
  return lapi::Landing{r->recv_buf, cmp_recv_landed, r, slot_};
}

lapi::Landing Engine::Impl::land_in_message_locked(Message* m, const void* data) {
  if (m->counted) {
    landed_fifo_.push_back({nullptr, m});
    return lapi::Landing{m->data};
  }
  if (data != nullptr && copy_in_handler_) {
    lapi::copy_bulk(m->data, data, m->size);
    message_landed_locked(m);
    return {};
  }
  return lapi::Landing{m->data, cmp_message_landed, m, slot_};
}

void Engine::Impl::protocol_error_locked(lapi::TaskId src, const char* what) {
  ++stats_.protocol_errors;
  // After a failure, answers to requests failed meanwhile are expected here.
  if (stats_.protocol_errors <= 10 && !any_fault_.load(std::memory_order_relaxed))
    fmt::print(stderr, "mpcpi[{}]: dropped a message from task {}: {}\n", me_, src, what);
}

inline lapi::Landing Engine::Impl::on_eager(lapi::TaskId src, const detail::Envelope& env,
                                            std::uint64_t ready_handle, const Arrival& in) {
  const std::size_t len = in.len;
  EngineLock lock(*this);
  const bool counted = (env.flags & detail::kCounted) != 0;
  if ((env.flags & detail::kPulled) != 0) ++stats_.pulled_received;
  if (env.mode > static_cast<std::uint8_t>(SendMode::buffered)) {
    protocol_error_locked(src, "eager envelope with an unknown mode");
    if (counted) landed_fifo_.push_back({});
    return {};
  }
  RecvPeer& peer = recv_peers_[src];
  if (env.seq != peer.expected_seq) {
    if (detail::seq_before(env.seq, peer.expected_seq) || peer.reorder.count(env.seq) != 0) {
      protocol_error_locked(src, "eager message repeats a sequence number");
      if (counted) landed_fifo_.push_back({});
      return {};
    }
    // Ahead of a predecessor still in flight: it must wait its turn, so its
    // data lands in a buffer of its own.
    ++stats_.out_of_order;
    Message* m = new_message_locked(src, env, len);
    m->counted = counted;
    m->sender_handle = ready_handle;
    m->credit = m->mode == SendMode::ready || m->pulled ? 0 : credit_cost(len);
    peer.reorder.emplace(env.seq, m);
    if (len == 0) {
      m->landed = true;
      if (counted) landed_fifo_.push_back({});
      return with_drain_locked({});
    }
    return with_drain_locked(land_in_message_locked(m, in.data));
  }
  ++peer.expected_seq;
  lapi::Landing landing = deliver_eager_locked(src, env, ready_handle, in);
  if (!peer.reorder.empty() || peer.starved) after_in_order_locked(src);
  return with_drain_locked(landing);
}

// An in-order eager message meets the posted queue. Here beside on_eager,
// its only caller, so that the two compile into one step.
inline lapi::Landing Engine::Impl::deliver_eager_locked(lapi::TaskId src, const Envelope& env,
                                                        std::uint64_t ready_handle,
                                                        const Arrival& in) {
  const std::size_t len = in.len;
  const bool ready = env.mode == static_cast<std::uint8_t>(SendMode::ready);
  const bool counted = (env.flags & detail::kCounted) != 0;
  const bool pulled = (env.flags & detail::kPulled) != 0;
  const std::size_t credit = ready || pulled ? 0 : credit_cost(len);
  if (pulled) recv_peers_[src].pulls.erase(env.context);
  auto none = [&]() -> lapi::Landing {
    if (counted) landed_fifo_.push_back({});
    return {};
  };

  if (Request* r = match_posted_locked(env.context, src, env.tag)) {
    if (ready) {
      const detail::AckHeader ack{ready_handle, 0, 0};
      queue_locked(src, Msg::ack, &ack, sizeof ack);
    }
    fill_recv_status(r, src, env.tag, len);
    return_credit_locked(src, credit);
    if (len == 0) {
      complete(r);
      return none();
    }
    if (len <= r->capacity) return land_in_request_locked(r, counted, in.data);  // into the user buffer
    // Truncation: land the whole message aside, then copy what fits.
    Message* m = new_message_locked(src, env, len);
    m->counted = counted;
    m->matched = r;
    return land_in_message_locked(m, in.data);
  }
  if (ready) {  // erroneous ready send: tell the sender, drop the data
    const detail::AckHeader nack{ready_handle, static_cast<std::int32_t>(Errc::ready_no_match), 0};
    queue_locked(src, Msg::ack, &nack, sizeof nack);
    return none();
  }
  Message* m = new_message_locked(src, env, len);
  m->counted = counted;
  m->credit = credit;
  push_arrived_locked(m);
  if (len == 0) {
    m->landed = true;
    return none();
  }
  return land_in_message_locked(m, in.data);
}

lapi::Landing Engine::Impl::on_rts(lapi::TaskId src, const detail::RtsHeader& h) {
  EngineLock lock(*this);
  if ((h.env.flags & detail::kPulled) != 0) ++stats_.pulled_received;
  RecvPeer& peer = recv_peers_[src];
  if (h.env.seq != peer.expected_seq) {
    if (detail::seq_before(h.env.seq, peer.expected_seq) || peer.reorder.count(h.env.seq) != 0) {
      protocol_error_locked(src, "rts repeats a sequence number");
      return {};
    }
    ++stats_.out_of_order;
    Message* m = new_message_locked(src, h.env, 0);
    m->kind = Message::Kind::rts;
    m->size = h.size;
    m->sender_handle = h.sender_handle;
    m->credit = m->pulled ? 0 : kEntryCost;
    peer.reorder.emplace(h.env.seq, m);
    return with_drain_locked({});
  }
  ++peer.expected_seq;
  deliver_rts_locked(src, h.env, h.size, h.sender_handle);
  after_in_order_locked(src);
  return with_drain_locked({});
}

void Engine::Impl::after_in_order_locked(lapi::TaskId src) {
  RecvPeer& peer = recv_peers_[src];
  for (auto it = peer.reorder.find(peer.expected_seq); it != peer.reorder.end();
       it = peer.reorder.find(peer.expected_seq)) {
    Message* m = it->second;
    peer.reorder.erase(it);
    ++peer.expected_seq;
    deliver_deferred_locked(m);
  }
  if (peer.starved) consider_pull_locked(src, 0, false);
}

lapi::Landing Engine::Impl::on_cts(lapi::TaskId src, const detail::CtsHeader& h) {
  EngineLock lock(*this);
  Request* r = send_handles_.find(h.sender_handle);
  if (r == nullptr || r->dest != src || r->mode == SendMode::ready || h.granted > r->bytes ||
      (h.granted > 0) != (h.receiver_handle != 0)) {
    protocol_error_locked(src, "cts names no waiting send, or grants too much");
    return {};
  }
  send_handles_.erase(h.sender_handle);
  r->handle = 0;
  if (h.granted == 0) {
    complete(r);
    return with_drain_locked({});
  }
  // The payload goes straight from the user's buffer into the receiver's.
  const detail::DataHeader d{h.receiver_handle};
  Outgoing& out = queue_locked(src, Msg::data, &d, sizeof d);
  out.data = r->send_buf;
  out.len = h.granted;
  out.counters.origin = &r->signal;
  out.owner = r;
  out.owner_events = 1;
  return with_drain_locked({});
}

lapi::Landing Engine::Impl::on_data(lapi::TaskId src, const detail::DataHeader& h,
                                    const Arrival& in) {
  EngineLock lock(*this);
  Request* r = recv_handles_.find(h.receiver_handle);
  if (r == nullptr || r->status.source != static_cast<int>(src) || in.len != r->status.bytes) {
    protocol_error_locked(src, "rendezvous data names no waiting receive, or has the wrong size");
    return {};
  }
  recv_handles_.erase(h.receiver_handle);
  r->handle = 0;
  return with_drain_locked(land_in_request_locked(r, false, in.data));
}

lapi::Landing Engine::Impl::on_ack(lapi::TaskId src, const detail::AckHeader& h) {
  EngineLock lock(*this);
  Request* r = send_handles_.find(h.sender_handle);
  const bool known_verdict = h.error == 0 || h.error == static_cast<int>(Errc::ready_no_match);
  if (r == nullptr || r->dest != src || r->mode != SendMode::ready || !known_verdict) {
    protocol_error_locked(src, "ack names no waiting ready send");
    return {};
  }
  send_handles_.erase(h.sender_handle);
  r->handle = 0;
  r->status.error = static_cast<Errc>(h.error);
  complete(r);
  return {};
}

lapi::Landing Engine::Impl::on_credit(lapi::TaskId src, const detail::CreditHeader& h) {
  EngineLock lock(*this);
  SendPeer& peer = send_peers_[src];
  if (h.bytes > peer.window) {  // a receiver never owes more than the window
    protocol_error_locked(src, "credit beyond the window");
    return {};
  }
  peer.credits = std::min<std::int64_t>(peer.credits + static_cast<std::int64_t>(h.bytes),
                                        static_cast<std::int64_t>(peer.window));
  peer.epoch = h.epoch;
  peer.starved_notified = false;
  if (peer.held_count > 0) return lapi::Landing{nullptr, cmp_release, &peer, slot_};
  return with_drain_locked({});
}

lapi::Landing Engine::Impl::on_starved(lapi::TaskId src, const detail::StarvedHeader& h) {
  EngineLock lock(*this);
  note_starved_locked(src, h);
  return with_drain_locked({});
}

lapi::Landing Engine::Impl::on_pull(lapi::TaskId src, const detail::PullHeader& h) {
  EngineLock lock(*this);
  SendPeer& peer = send_peers_[src];
  auto& allowance = peer.allowance[h.context];
  allowance = std::min(allowance + std::min(h.count, kPullBatch), 4 * kPullBatch);
  peer.starved_notified = false;
  return lapi::Landing{nullptr, cmp_release, &peer, slot_};
}

lapi::Landing Engine::Impl::on_cancel_req(lapi::TaskId src, const detail::CancelReqHeader& h) {
  EngineLock lock(*this);
  auto* m = static_cast<Message*>(arrived_.find_from_if(
      h.context, static_cast<int>(src), [&](const detail::ArrivedEntry& e) {
        const auto& msg = static_cast<const Message&>(e);
        return msg.kind == Message::Kind::rts && msg.sender_handle == h.sender_handle;
      }));
  if (m != nullptr) {
    arrived_.remove(*m);
    return_credit_locked(src, m->credit);
    free_message_locked(m);
  }
  const detail::CancelReplyHeader reply{h.sender_handle, m != nullptr ? 1u : 0u, 0};
  queue_locked(src, Msg::cancel_reply, &reply, sizeof reply);
  return with_drain_locked({});
}

lapi::Landing Engine::Impl::on_cancel_reply(lapi::TaskId src,
                                            const detail::CancelReplyHeader& h) {
  EngineLock lock(*this);
  if (h.cancelled == 0) return {};  // it matched: the CTS completes the send
  Request* r = send_handles_.find(h.sender_handle);
  if (r == nullptr || r->dest != src || r->mode == SendMode::ready) {
    protocol_error_locked(src, "cancel reply names no waiting send");
    return {};
  }
  send_handles_.erase(h.sender_handle);
  r->handle = 0;
  r->status.cancelled = true;
  complete(r);
  return {};
}

}  // namespace mpcpi
