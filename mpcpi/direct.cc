// Direct landing: in interrupt mode, a nonblocking receive from one task on
// this node is announced to that task, whose matching send writes the data
// straight into the receive buffer (lapi::Context::write_near, cross-memory
// attach) and then sends a `landed` message in its place in the sequence.
// The data is in the buffer while the receiver computes, with no progress
// thread woken to match it: that wake-up, on the core where the application
// runs, was most of the paper's interrupt test (about 10 us of 13 per round
// trip at 8 B here).
//
//   receiver                                   sender
//   irecv(src, tag) posted alone   announce ->  keeps the latest announcement
//                                               send(tag) with next_seq == its seq:
//                                  <- landed      write_near(buffer), seq consumed
//   completes the receive
//
// Why it cannot take a message the receive should not get:
// - The receive is announced only while it is the only posted receive, so
//   no earlier receive could match the sender's messages first.
// - The announcement names the sequence number the receiver expects next
//   from that sender; the sender uses it only for exactly that message. A
//   message sent with that number in the usual way (another tag, held
//   messages ahead, too large) makes it useless, and the receiver sees that
//   from its own sequence (RecvPeer::announcement_open).
// - Cancelling an announced receive asks the sender (withdraw): it answers
//   whether it had already written (then the landed message completes the
//   receive and the cancel fails, as for a matched receive) and ignores the
//   announcement from then on, should it arrive after the withdrawal.

#include <cstring>

#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

using detail::Envelope;
using detail::Msg;
using detail::seq_before;

bool Engine::Impl::direct_landing_on() const {
  // concurrent() first: it is false in polling mode, every MPI_Irecv's case there.
  std::int64_t interrupt = 0;
  return concurrent() && options_.direct_recv && options_.variant != Variant::counters &&
         ctx_.qenv(lapi::Query::interrupt_mode, interrupt).ok() && interrupt == 1;
}

bool Engine::Impl::may_announce(int source, std::size_t capacity) const {
  if (!direct_landing_on() || source == kAnySource || capacity == 0) return false;
  const auto src = static_cast<lapi::TaskId>(source);
  return src != me_ && ctx_.writes_near(src);
}

bool Engine::Impl::announce_locked(Request* r, bool blocking, detail::AnnounceHeader& out) {
  const auto src = static_cast<lapi::TaskId>(r->source);
  RecvPeer& peer = recv_peers_[src];
  if (posted_.size() != 1 || peer.announcement_open()) return false;
  auto& a = peer.announced;
  a = {true, false, a.id + 1 == 0 ? 1 : a.id + 1, peer.expected_seq, r};
  out = detail::AnnounceHeader{a.id, a.seq, r->context, r->tag,
                               reinterpret_cast<std::uint64_t>(r->recv_buf), r->capacity,
                               blocking ? detail::kBlockingRecv : 0u, 0};
  ++stats_.announced;
  return true;
}

std::optional<Errc> Engine::Impl::send_direct(const void* buf, std::size_t bytes, lapi::TaskId to,
                                              int tag, std::uint32_t context, SendMode mode,
                                              const char* fn) {
  SendPeer::Announced a;
  std::uint32_t seq;
  {
    EngineLock lock(*this);
    SendPeer& peer = send_peers_[to];
    a = peer.announced;
    if (!a.valid) return std::nullopt;
    // A failed or revoked context: the general path fails the send.
    if (any_fault_.load(std::memory_order_relaxed) && doomed_locked(context, static_cast<int>(to)) != Errc::success)
      return std::nullopt;
    if (peer.next_seq != a.seq) {  // a message took its sequence number: it can no longer be used
      set_may_write_locked(peer, false);
      return std::nullopt;
    }
    if (peer.held_count != 0 || a.context != context || (a.tag != kAnyTag && a.tag != tag) ||
        bytes > a.capacity || mode == SendMode::buffered)
      return std::nullopt;
    // A receiver waiting in the library polls: the usual way (split copy)
    // is as fast, unless this task's own progress thread sleeps, when split
    // copy's answer would come through UCX and wake it (measured: a
    // blocking 64 KiB ping-pong in interrupt mode, both threads in the
    // library, 7.7 us written directly against 6.1 split-copied).
    if (a.blocking && !ctx_.sleeping()) return std::nullopt;
    set_may_write_locked(peer, false);
    seq = peer.next_seq++;
    peer.announce_used = a.id;
    ++stats_.direct_sent;
  }
  // Both outside the lock (lapi may run our handlers meanwhile); the data is
  // in place before the landed message leaves.
  const lapi::Status w = ctx_.write_near(to, a.addr, buf, bytes);
  const detail::LandedHeader h{Envelope{context, tag, seq, static_cast<std::uint8_t>(mode), 0, 0},
                               bytes, a.id, w.ok() ? 0u : 1u};
  // Quiet: the receive completes in the receiver's own test or wait; its
  // progress thread, asleep on the core where the application computes,
  // is not woken for it.
  const lapi::Status s = ctx_.amsend_quiet(to, handler_base_ + static_cast<lapi::HandlerId>(Msg::landed),
                                           &h, sizeof h);
  drain_outbox();
  if (!w.ok()) return fail(Errc::transport, "{}: writing into task {}'s receive buffer: {}", fn, to, w.message());
  if (!s.ok()) return fail(lapi_error(s), "{}: {}", fn, s.message());
  return Errc::success;
}

bool Engine::Impl::withdraw_locked(Request* r) {
  if (r->source == kAnySource) return false;
  RecvPeer& peer = recv_peers_[static_cast<lapi::TaskId>(r->source)];
  if (peer.announced.recv != r || !peer.announcement_open() || peer.announced.withdrawing) return false;
  (void)posted_.remove(*r);  // nothing else matches it now; the answer decides
  peer.announced.withdrawing = true;
  const detail::WithdrawHeader h{peer.announced.id, 0};
  queue_locked(static_cast<lapi::TaskId>(r->source), Msg::withdraw, &h, sizeof h);
  return true;
}

// ---- Header handlers (lock taken here) ----------------------------------------

lapi::Landing Engine::Impl::on_announce(lapi::TaskId src, const detail::AnnounceHeader& h) {
  EngineLock lock(*this);
  SendPeer& peer = send_peers_[src];
  if (src == me_ || h.id == 0 || seq_before(peer.next_seq, h.expected_seq) || h.addr == 0 || h.capacity == 0 ||
      (h.tag < 0 && h.tag != kAnyTag)) {
    protocol_error_locked(src, "announcement names a sequence number not sent yet, or no buffer");
    return {};
  }
  // Older than one already seen or withdrawn (announcements may overtake
  // each other), or already useless: ignore it.
  if (!seq_before(peer.announce_seen, h.id)) return {};
  peer.announce_seen = h.id;
  ++stats_.announces_heard;
  if (h.expected_seq != peer.next_seq) {
    set_may_write_locked(peer, false);
    return {};
  }
  peer.announced = {false, h.id, h.expected_seq, h.context, h.tag, h.addr, h.capacity,
                    (h.flags & detail::kBlockingRecv) != 0};
  set_may_write_locked(peer, true);
  return {};
}

lapi::Landing Engine::Impl::on_landed(lapi::TaskId src, const detail::LandedHeader& h) {
  EngineLock lock(*this);
  RecvPeer& peer = recv_peers_[src];
  auto& a = peer.announced;
  // Announced with the receiver's next sequence number and used only for it,
  // a landed message is never ahead of its predecessors.
  if (!a.active || a.id != h.id || h.env.seq != peer.expected_seq || h.env.seq != a.seq ||
      a.recv == nullptr || h.bytes > a.recv->capacity || h.env.context != a.recv->context ||
      h.env.mode > static_cast<std::uint8_t>(SendMode::buffered)) {
    protocol_error_locked(src, "landed message names no announced receive, or does not fit it");
    return {};
  }
  ++peer.expected_seq;
  Request* r = a.recv;
  a.active = false;
  a.recv = nullptr;
  (void)posted_.remove(*r);  // not posted any more if it was being withdrawn
  fill_recv_status(r, src, h.env.tag, h.bytes);
  if (h.failed != 0) r->status.error = Errc::transport;
  complete(r);
  if (!peer.reorder.empty() || peer.starved) after_in_order_locked(src);
  return with_drain_locked({});
}

lapi::Landing Engine::Impl::on_withdraw(lapi::TaskId src, const detail::WithdrawHeader& h) {
  EngineLock lock(*this);
  SendPeer& peer = send_peers_[src];
  const bool used = h.id != 0 && peer.announce_used == h.id;
  // An announcement with this id arriving later is ignored.
  if (seq_before(peer.announce_seen, h.id)) peer.announce_seen = h.id;
  if (peer.announced.valid && peer.announced.id == h.id) set_may_write_locked(peer, false);
  const detail::WithdrawnHeader reply{h.id, used ? 1u : 0u};
  queue_locked(src, Msg::withdrawn, &reply, sizeof reply);
  return with_drain_locked({});
}

lapi::Landing Engine::Impl::on_withdrawn(lapi::TaskId src, const detail::WithdrawnHeader& h) {
  EngineLock lock(*this);
  auto& a = recv_peers_[src].announced;
  if (!a.active || !a.withdrawing || a.id != h.id) {
    // Written into, and its landed message came first: the receive is complete already.
    if (h.used == 0) protocol_error_locked(src, "withdrawal answer names no withdrawn receive");
    return {};
  }
  if (h.used != 0) return {};  // its landed message completes it (the cancel fails)
  Request* r = a.recv;
  a.active = false;
  a.recv = nullptr;
  // Withdrawn by a cancel, or because its context failed (fail_context_locked set the error).
  const Errc failed = r->status.error;
  r->status = Status{};
  r->status.error = failed;
  r->status.cancelled = failed == Errc::success;
  complete(r);
  return {};
}

}  // namespace mpcpi
