// Flow control of early-arrival memory, and the outbox.
//
// Credits: each receiver grants every sender a window of bytes (its
// LAPIS_EARLY_ARRIVAL_MAX split over the senders). An eager message costs
// credit_cost(bytes), a request-to-send kEntryCost, a ready message nothing
// (it is never buffered unexpected: no posted receive means an error). The
// receiver gives credit back once the memory is free again (matched at
// arrival, or copied out by the receive), batched at a quarter window.
//
// Hold: a sender without enough credit keeps the message (eager data is
// copied, so the send completes at once; rendezvous and ready keep the user's
// buffer and stay pending), in send order per context, and tells the
// receiver once that it is starved. Nothing is lost and the receiver's
// memory stays within its windows. The sender's copies are capped too
// (held_send_max): past the cap an eager send is held by reference like a
// rendezvous one, so a flood grows neither side without bound.
//
// Pull: if the receiver has a posted receive (or a probe) that only a held
// message could satisfy — the sender is starved, everything it sent before
// starving has been processed, and no credit is waiting to go back — it
// asks for up to kPullBatch held messages of that context outside the
// window. So MPI's progress rule holds even when the window is full of
// messages nobody receives yet.

#include <limits>

#include "lapi/line_copy.hpp"
#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

using detail::Msg;

Outgoing& Engine::Impl::queue_locked(lapi::TaskId dest, Msg type, const void* header,
                                     std::size_t len) {
  Outgoing& out = outbox_.emplace_back();
  out.dest = dest;
  out.type = type;
  std::memcpy(out.header.data(), header, len);
  out.header_len = static_cast<std::uint8_t>(len);
  outbox_pending_.store(true, std::memory_order_release);
  return out;
}

void Engine::Impl::post(Outgoing& out) {
  if (out.type == detail::Msg::announce) {
    send_announcement(out.dest, out.header.data(), out.header_len);
    return;
  }
  const lapi::HandlerId id = handler_base_ + static_cast<lapi::HandlerId>(out.type);
  lapi::Status s = ctx_.amsend(out.dest, id, out.header.data(), out.header_len, out.data, out.len,
                               out.counters);
  if (!s.ok()) [[unlikely]] {
    if (out.owner != nullptr) {
      fail_request(out.owner, lapi_error(s), out.owner_events);
    } else {
      control_send_failed(out.dest, s);
    }
  }
}

void Engine::Impl::send_announcement(lapi::TaskId dest, const void* header, std::size_t len) {
  // An announcement is worth nothing to a sender that is not sending: it
  // takes it in when it next calls in, without being woken (direct.cc).
  const lapi::HandlerId id = handler_base_ + static_cast<lapi::HandlerId>(detail::Msg::announce);
  const lapi::Status s = ctx_.amsend_quiet(dest, id, header, len);
  if (!s.ok()) [[unlikely]] control_send_failed(dest, s);
}

void Engine::Impl::control_send_failed(lapi::TaskId dest, const lapi::Status& s) {
  if (s.code() == lapi::Errc::tgt_purged) return;  // a failed task needs no control messages
  EngineLock lock(*this);
  protocol_error_locked(dest, "a control message could not be sent");
}

void Engine::Impl::flush_outbox() {
  // The batch's storage is this thread's from its last flush, so a flush
  // allocates and frees nothing once warm (it did both every time, about
  // 150 instructions a flush, callgrind). A flush nested in post() finds
  // the spare taken and allocates. (An initial-exec TLS model here crashed
  // the programs mpich_abi_test builds with mpicc.mpich: SIGSEGV.)
  static thread_local std::vector<Outgoing> spare;
  std::vector<Outgoing> batch = std::move(spare);  // leaves spare empty
  {
    EngineLock lock(*this);
    batch.swap(outbox_);
    outbox_pending_.store(false, std::memory_order_relaxed);
  }
  for (Outgoing& out : batch) post(out);
  batch.clear();
  spare = std::move(batch);
}

// ---- Receiver side ---------------------------------------------------------

void Engine::Impl::flush_credit_locked(lapi::TaskId src) {
  RecvPeer& peer = recv_peers_[src];
  const detail::CreditHeader h{peer.to_return, ++peer.epoch, 0};
  queue_locked(src, Msg::credit, &h, sizeof h);
  ++stats_.credits_sent;
  peer.to_return = 0;
  peer.starved = false;  // the sender re-reports if the credit is not enough
}

void Engine::Impl::note_starved_locked(lapi::TaskId src, const detail::StarvedHeader& h) {
  RecvPeer& peer = recv_peers_[src];
  // A notice older than our latest credit is stale: that credit is on its
  // way and the sender will report again if it still starves.
  if (h.epoch != peer.epoch) return;
  peer.starved = true;
  peer.starved_next_seq = h.next_seq;
  if (peer.to_return > 0) {
    flush_credit_locked(src);
  } else {
    consider_pull_locked(src, 0, false);
  }
}

void Engine::Impl::consider_pull_locked(lapi::TaskId src, std::uint32_t probe_context,
                                        bool probing) {
  RecvPeer& peer = recv_peers_[src];
  if (!peer.starved || peer.to_return > 0) return;
  // Messages sent before the sender starved may still be in flight; they
  // might be the match, so wait for them first.
  if (detail::seq_before(peer.expected_seq, peer.starved_next_seq)) return;
  auto pull = [&](std::uint32_t context) {
    if (!peer.pulls.insert(context).second) return;  // one outstanding per context
    const detail::PullHeader h{context, kPullBatch};
    queue_locked(src, Msg::pull, &h, sizeof h);
    ++stats_.pulls_sent;
  };
  if (probing) {
    pull(probe_context);
  } else {
    posted_.for_each_context_for(static_cast<int>(src), pull);
    for (const auto& [source, context] : probing_)
      if (source == kAnySource || source == static_cast<int>(src)) pull(context);
  }
}

// ---- Sender side -------------------------------------------------------------

void Engine::Impl::hold_locked(lapi::TaskId dest, Msg type, Request* r) {
  SendPeer& peer = send_peers_[dest];
  Held h;
  h.order = peer.next_order++;
  h.type = type;
  h.context = r->context;
  h.tag = r->tag;
  h.mode = r->mode;
  h.bytes = r->bytes;
  const std::size_t footprint = sizeof(Held) + (r->bytes > kHeldInline ? r->bytes : 0);
  if (type == Msg::eager && held_copy_bytes_ + footprint <= options_.held_send_max) {
    // Standard eager semantics: the data is copied, the send completes now.
    if (r->bytes > kHeldInline) {
      h.copy.reset(new std::byte[r->bytes]);
      lapi::copy_bulk(h.copy.get(), r->send_buf, r->bytes);
    } else if (r->bytes > 0) {
      std::memcpy(h.small.data(), r->send_buf, r->bytes);
    }
    h.footprint = footprint;
    held_copy_bytes_ += footprint;
    complete(r);
  } else {
    if (type == Msg::eager) ++stats_.held_uncopied;
    h.buf = r->send_buf;
    h.req = r;
  }
  peer.held[r->context].push_back(std::move(h));
  ++peer.held_count;
  ++stats_.held;
  if (!peer.starved_notified) {
    const detail::StarvedHeader s{peer.next_seq, peer.epoch};
    queue_locked(dest, Msg::starved, &s, sizeof s);
    peer.starved_notified = true;
  }
}

// Released in chunks: a credit return may free hundreds of thousands of small
// held messages, and their wire records all at once would be a memory peak
// of their own.
void Engine::Impl::release_held(lapi::TaskId dest) {
  std::vector<Outgoing> go;
  go.reserve(kReleaseChunk);
  for (bool more = true; more;) {
    go.clear();
    {
      EngineLock lock(*this);
      more = collect_released_locked(dest, go);
    }
    for (Outgoing& out : go) post(out);
  }
  drain_outbox();
}

bool Engine::Impl::collect_released_locked(lapi::TaskId dest, std::vector<Outgoing>& go) {
  {
    SendPeer& peer = send_peers_[dest];
    InFlight* batch = nullptr;
    auto send_front = [&](std::deque<Held>& q, std::uint8_t flags) {
      Held& h = q.front();
      const void* data = h.buf;
      const bool copied = h.type == Msg::eager && h.req == nullptr;
      if (copied) {
        held_copy_bytes_ -= h.footprint;  // in flight now: bounded by the receiver's credit
        if (batch == nullptr) batch = in_flight_.emplace_back(std::make_unique<InFlight>()).get();
        if (h.copy) {
          data = h.copy.get();
          batch->buffers.push_back(std::move(h.copy));
        } else {
          data = batch->smalls.emplace_back(h.small).data();
        }
        ++batch->count;
      }
      ++(h.type == Msg::rts ? stats_.rendezvous_sent : stats_.eager_sent);
      Outgoing out = make_wire_locked(dest, h.type, h.context, h.tag, h.mode, peer.next_seq++,
                                      flags, data, h.bytes, h.req);
      if (copied) out.counters.origin = &batch->sent;
      go.push_back(out);
      q.pop_front();
      --peer.held_count;
    };
    // Pulled contexts first: the receiver is waiting on exactly these.
    for (auto& [context, allowance] : peer.allowance) {
      auto it = peer.held.find(context);
      if (it == peer.held.end()) continue;
      while (allowance > 0 && !it->second.empty() && go.size() < kReleaseChunk) {
        send_front(it->second, detail::kPulled);
        --allowance;
      }
      if (it->second.empty()) peer.held.erase(it);
      if (go.size() == kReleaseChunk) return true;
    }
    // Then in hold order while credit lasts.
    while (peer.held_count > 0) {
      if (go.size() == kReleaseChunk) return true;
      auto oldest = peer.held.end();
      std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
      for (auto it = peer.held.begin(); it != peer.held.end(); ++it) {
        if (it->second.front().order < best) {
          best = it->second.front().order;
          oldest = it;
        }
      }
      const Held& h = oldest->second.front();
      const std::int64_t cost = h.type == Msg::eager ? static_cast<std::int64_t>(credit_cost(h.bytes))
                                : h.type == Msg::rts ? static_cast<std::int64_t>(kEntryCost)
                                                     : 0;
      if (peer.credits < cost) break;
      peer.credits -= cost;
      send_front(oldest->second, 0);
      if (oldest->second.empty()) peer.held.erase(oldest);
    }
    if (peer.held_count > 0 && !peer.starved_notified) {
      const detail::StarvedHeader s{peer.next_seq, peer.epoch};
      queue_locked(dest, Msg::starved, &s, sizeof s);
      peer.starved_notified = true;
    }
  }
  return false;
}

}  // namespace mpcpi
