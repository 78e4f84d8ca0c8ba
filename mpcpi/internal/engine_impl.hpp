#pragma once
// Engine::Impl: the state of one MPCPI engine and the steps of its message
// paths. The steps live in files by job:
//   send.cc        isend: pick protocol → credit or hold → post (and self-sends)
//   bsend.cc       attached buffers: buffered sends, flush, detach
//   recv.cc        irecv, probes, matching an arrival against a receive, cancel
//   handlers.cc    the handler table: one header handler per wire message type
//   flow.cc        credits, held messages, starvation notices and pulls, outbox
//   completion.cc  test/wait, the counters-variant landing FIFO, reaping
//   engine.cc      create/finalize and the public Engine forwarding
//
// Threads: the application thread calls the API; header handlers run in
// lapi's progress context (the application thread inside a lapi call, or
// the interrupt-mode progress thread); completion handlers run inline or on
// lapi's handler thread. mu_ guards all state below it. Rule: never call
// into lapi while holding mu_ — lapi runs header handlers under its own lock
// and they take mu_. Sends decided under mu_ go to the outbox and leave
// after unlocking.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/context.hpp"
#include "mpcpi/internal/bsend_pool.hpp"
#include "mpcpi/internal/copy_bytes.hpp"
#include "mpcpi/internal/handle_table.hpp"
#include "mpcpi/internal/match_queues.hpp"
#include "mpcpi/internal/wait_state.hpp"
#include "mpcpi/internal/request.hpp"
#include "mpcpi/internal/wire.hpp"
#include "mpcpi/mpcpi.hpp"

namespace mpcpi {

// Credit charged for one message: what holding it unexpected costs the
// receiver (record + data allocation). Sender and receiver compute it alike.
inline constexpr std::size_t kEntryCost = sizeof(Message) + 32;
inline std::size_t credit_cost(std::size_t bytes) {
  return kEntryCost + (bytes == 0 ? 0 : (bytes + 8 + 15) / 16 * 16);
}
// Messages a sender may send on one pull.
inline constexpr std::uint32_t kPullBatch = 64;
// Held messages released per lock hold (release_held).
inline constexpr std::size_t kReleaseChunk = 256;
// Eager data up to this size is held inline in a Held record.
inline constexpr std::size_t kHeldInline = 16;

// A message waiting at the sender for credit.
struct Held {
  std::uint64_t order = 0;  // hold order across contexts
  detail::Msg type = detail::Msg::eager;
  std::uint32_t context = 0;
  int tag = 0;
  SendMode mode = SendMode::standard;
  std::size_t bytes = 0;
  // User buffer (ready, rts, and eager held by reference past the copy cap);
  // null for eager copies.
  const void* buf = nullptr;
  std::unique_ptr<std::byte[]> copy;  // eager copy larger than kHeldInline
  std::array<std::byte, kHeldInline> small{};
  std::size_t footprint = 0;  // counted against held_send_max (copies only)
  Request* req = nullptr;  // the pending user request (all but eager copies)
  const void* data() const { return buf != nullptr ? buf : copy ? copy.get() : small.data(); }
};

struct SendPeer {
  std::int64_t credits = 0;  // bytes of early-arrival memory the receiver still grants
  std::uint32_t next_seq = 0;
  std::uint32_t epoch = 0;  // latest credit epoch seen
  bool starved_notified = false;
  std::size_t held_count = 0;
  std::uint64_t next_order = 0;
  std::map<std::uint32_t, std::deque<Held>> held;               // by context, FIFO
  std::unordered_map<std::uint32_t, std::uint32_t> allowance;  // pulled sends granted
  std::uint64_t window = 0;      // what this receiver grants us
  std::size_t eager_limit = 0;   // min(ours, what this receiver's window allows)
  // The receiver's latest announced receive (direct.cc).
  struct Announced {
    bool valid = false;
    std::uint32_t id = 0, seq = 0, context = 0;
    int tag = 0;
    std::uint64_t addr = 0, capacity = 0;
    bool blocking = false;  // detail::kBlockingRecv
  } announced;
  std::uint32_t announce_seen = 0;  // highest announcement id received or withdrawn
  std::uint32_t announce_used = 0;  // the last one written into
  // announced.valid, read without the lock by the send paths (std::atomic_ref).
  mutable bool may_write = false;
};

struct RecvPeer {
  std::uint32_t expected_seq = 0;
  std::map<std::uint32_t, Message*> reorder;  // arrived ahead of sequence
  std::uint64_t to_return = 0;                 // credit owed back to the sender
  std::uint32_t epoch = 0;                     // credit messages sent
  bool starved = false;
  std::uint32_t starved_next_seq = 0;
  std::set<std::uint32_t> pulls;  // contexts with a pull outstanding
  // The receive last announced to this sender (direct.cc).
  struct Announcement {
    bool active = false;
    bool withdrawing = false;  // cancelled: waiting for the sender's answer
    std::uint32_t id = 0;      // the last id given out
    std::uint32_t seq = 0;     // the one sequence number that may use it
    Request* recv = nullptr;
  } announced;
  // The sender may still write into announced.recv: it is being withdrawn,
  // or no message with its sequence number has been processed yet (after
  // one has, the sender's sequence is past it and it can no longer be used).
  bool announcement_open() const {
    return announced.active && (announced.withdrawing || !detail::seq_before(announced.seq, expected_seq));
  }
};

// A protocol message decided under the lock, sent after unlocking.
struct Outgoing {
  lapi::TaskId dest = 0;
  detail::Msg type = detail::Msg::eager;
  std::array<std::byte, detail::kMaxHeader> header{};
  std::uint8_t header_len = 0;
  const void* data = nullptr;
  std::size_t len = 0;
  lapi::Counters counters{};
  Request* owner = nullptr;  // completes with Errc::transport if the send fails
  int owner_events = 0;      // events `owner` still expects from this send
};

// Eager copies released from hold: freed once lapi has sent all of them.
struct InFlight {
  lapi::Counter sent;
  int count = 0;
  std::vector<std::unique_ptr<std::byte[]>> buffers;
  std::deque<std::array<std::byte, kHeldInline>> smalls;  // stable addresses
};

// An arriving message's data as lapi reports it: its length and, when lapi
// moved it eagerly, where it already sits (valid only during the header
// handler; null for rendezvous).
struct Arrival {
  std::size_t len = 0;
  const void* data = nullptr;
};

// One entry per counted landing, in header-handler order (counters variant).
struct Landed {
  Request* req = nullptr;
  Message* msg = nullptr;
};

// What the registered handlers point at. It outlives the engine (leaked on
// purpose, a few bytes) so a stray message after teardown finds null.
struct HandlerSlot {
  std::atomic<Engine::Impl*> impl{nullptr};
};

// The engine lock (mu_), taken only when lapi may run the engine's handlers
// on another thread (interrupt mode's progress thread, the thread completion
// policy). Otherwise every handler runs on the application thread inside a
// lapi call, and the engine never calls lapi while holding the lock, so
// there is nothing to exclude and polling mode saves a lock/unlock pair per
// step. lapi switches its own lock only while no other thread runs engine
// code; the lock remembers whether it locked, so each pair matches.
class EngineLock {
 public:
  explicit EngineLock(const Engine::Impl& engine);
  ~EngineLock() {
    if (mutex_ != nullptr) mutex_->unlock();
  }
  EngineLock(const EngineLock&) = delete;
  EngineLock& operator=(const EngineLock&) = delete;
  // Early, for a step that must run unlocked (polling the transport).
  void unlock() {
    if (mutex_ != nullptr) mutex_->unlock();
    mutex_ = nullptr;
  }

 private:
  std::mutex* mutex_;
};

// How many Engine::LibraryCall scopes this thread is inside (engine.cc).
extern thread_local int t_library_calls;

class Engine::Impl {
 public:
  Impl(lapi::Context& ctx, const Options& options);
  ~Impl();
  Errc start();
  Errc finalize();

  // ---- API (application thread) -----------------------------------------
  Errc isend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
             SendMode mode, Request*& out, bool* done_now);
  Errc irecv(void* buf, std::size_t capacity, int source, int tag, std::uint32_t context,
             Request*& out, bool user);
  Errc send(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
            SendMode mode);
  Errc recv(void* buf, std::size_t capacity, int source, int tag, std::uint32_t context,
            Status* status);
  Errc test(Request* req, bool& completed, Status* status, bool release);
  Errc wait(Request* req, Status* status);
  // A done request's status and error; the request goes back to the pool.
  Errc take_done(Request* r, Status* status);
  // take_done without the status: the request goes back to the pool.
  void release_done(Request* r);
  Errc wait_any(std::span<Request* const> reqs, std::size_t& index, Status* status);
  Errc request_free(Request* req);
  [[gnu::noinline]] Errc cancel(Request* req);
  Errc progress();
  Engine::ProgressHook progress_hook_ = nullptr;
  Engine::IdleHook idle_hook_ = nullptr;
  // Waits poll (rather than sleep in lapi::Context::waitcntr) when a hook
  // must keep running or another thread must get in while this one waits.
  bool waits_poll() const {
    return options_.variant == Variant::counters || progress_hook_ != nullptr ||
           idle_hook_ != nullptr;
  }
  void run_hook() const {
    if (progress_hook_ != nullptr) progress_hook_();
  }
  Errc iprobe(int source, int tag, std::uint32_t context, bool& found, Status* status,
              Message** take);
  Errc probe(int source, int tag, std::uint32_t context, Status* status, Message** take);
  Errc imrecv(Message* msg, void* buf, std::size_t capacity, Request*& out);
  // ---- bsend.cc: attached buffers ----------------------------------------
  Errc buffer_attach(void* buf, std::size_t size, Engine::BufferKey key, bool automatic);
  Errc buffer_detach(void*& buf, std::size_t& size, Engine::BufferKey key);
  Errc buffer_flush(Engine::BufferKey key);
  std::uint64_t buffer_flush_mark();
  bool buffer_flushed(Engine::BufferKey key, std::uint64_t mark);
  Errc ibsend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
              Engine::BufferKey key, Request*& out);
  // A blocking buffered send (arguments checked by the caller).
  Errc bsend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
             Engine::BufferKey key);
  // No message before `mark` is still in the buffer under `key` (none
  // attached: true). Under the lock.
  bool flushed_locked(Engine::BufferKey key, std::uint64_t mark) const;
  // Polls the transport (never for a receiver: buffered sends are local)
  // until `done` holds under the engine lock, reaping first; runs `then`
  // under that lock.
  template <typename Done, typename Then>
  void poll_buffers_until(Done done, Then then);
  // A buffered send's block goes back to its buffer (under the lock).
  void give_back_bsend_locked(Request* carrier);

  // The application gets control back from a call that may have waited.
  // In interrupt mode, with receives still posted, lapi's progress thread
  // takes over now rather than after its grace period: the application may
  // not call again until that data is there (the paper's interrupt test).
  // Not for calls the layer above makes for itself (Engine::LibraryCall).
  Errc returning(Errc result) {
    if (concurrent() && t_library_calls == 0 && has_posted_receives()) ctx_.hand_over_progress();
    return result;
  }
  bool has_posted_receives() const;

  // ---- send.cc -----------------------------------------------------------
  // The argument checks as one inline predicate for the blocking hot paths;
  // when it fails, check_send_args / check_recv_args name what is wrong.
  bool send_args_ok(const void* buf, std::size_t bytes, int dest, int tag, SendMode mode) const {
    return !finalized_ && static_cast<std::uint32_t>(dest) < npeers() &&
           static_cast<std::uint32_t>(tag) <= static_cast<std::uint32_t>(kMaxTag) &&
           (buf != nullptr || bytes == 0) &&
           static_cast<unsigned>(mode) <= static_cast<unsigned>(SendMode::buffered);
  }
  bool recv_args_ok(const void* buf, std::size_t capacity, int source, int tag) const {
    constexpr auto kTagLimit = static_cast<std::uint32_t>(kMaxTag);
    return !finalized_ && (source == kAnySource || static_cast<std::uint32_t>(source) < npeers()) &&
           (tag == kAnyTag || static_cast<std::uint32_t>(tag) <= kTagLimit) &&
           (buf != nullptr || capacity == 0);
  }
  Errc check_send_args(const void* buf, std::size_t bytes, int dest, int tag, SendMode mode,
                       const char* fn) const;
  // Requests come from request_pool_, which only the application thread
  // touches (handlers never create or release requests): no lock.
  Request* new_send(const void* buf, std::size_t bytes, int dest, int tag,
                    std::uint32_t context, SendMode mode);
  void init_send(Request* r, const void* buf, std::size_t bytes, int dest, int tag,
                 std::uint32_t context, SendMode mode);
  void start_send(Request* r);
  // Takes the lock: credit (or a pulled slot) and a sequence number for an
  // eager message that may leave now; false when it must be held.
  bool take_eager_slot(lapi::TaskId dest, std::size_t bytes, detail::Envelope& env);
  // isend's common case once take_eager_slot admitted it: true when the message left inside
  // lapi's amsend_now (no request); false with `out` a request that carries it (lapi needs the
  // buffer after the call) or its error.
  bool isend_admitted(const void* buf, std::size_t bytes, lapi::TaskId to, int tag, std::uint32_t context,
                      const detail::Envelope& env, Request*& out);
  // Every blocking send but the common eager case (see send()). It and the
  // other uncommon paths marked noinline stay out of the MPI calls that
  // flatten the whole path below them (mpi/internal/api_call.hpp says why).
  [[gnu::noinline]]
  Errc send_general(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
                    SendMode mode);
  [[gnu::noinline]] void send_remote(Request* req);
  [[gnu::noinline]] void send_self(Request* req);
  [[gnu::noinline]]
  Errc send_buffered(const void* buf, std::size_t bytes, int dest, int tag,
                     std::uint32_t context, Engine::BufferKey key, Request*& out);
  detail::Msg pick_protocol(const Request& req) const;
  bool admit_locked(SendPeer& peer, detail::Msg type, std::size_t bytes, std::uint32_t context,
                    std::uint8_t& flags);
  // admit_locked for an eager message, plus its sequence number: the one
  // admission of both the blocking fast path and send_remote.
  bool admit_eager_locked(SendPeer& peer, std::size_t bytes, detail::Envelope& env);
  // Builds the wire message for a send that got its sequence number.
  Outgoing make_wire_locked(lapi::TaskId dest, detail::Msg type, std::uint32_t context, int tag,
                            SendMode mode, std::uint32_t seq, std::uint8_t flags,
                            const void* data, std::size_t bytes, Request* req);

  // ---- recv.cc -----------------------------------------------------------
  Errc check_recv_args(const void* buf, std::size_t capacity, int source, int tag,
                       const char* fn) const;
  // Fills in a receive request; returns its matching key, for post_recv.
  detail::Key3 init_recv(Request* r, void* buf, std::size_t capacity, int source, int tag,
                         std::uint32_t context);
  enum class Announce : std::uint8_t { no, nonblocking, blocking };
  // `key` is r's, passed by value (PostedQueue::post says why).
  void post_recv(Request* r, detail::Key3 key, Announce announce);
  // Arrival of an in-order message (header handler or deferred). Returns
  // the landing for eager data that has not landed yet. This and on_eager
  // are inlined into the header handlers (handlers.cc, their only callers):
  // as calls, their prologues and spills cost 65 of the receiver's
  // instructions per 8 B message (callgrind, message rate).
  [[gnu::always_inline]] lapi::Landing deliver_eager_locked(lapi::TaskId src,
                                                            const detail::Envelope& env,
                                                            std::uint64_t ready_handle,
                                                            const Arrival& in);
  void deliver_rts_locked(lapi::TaskId src, const detail::Envelope& env, std::uint64_t size,
                          std::uint64_t sender_handle);
  void deliver_deferred_locked(Message* m);
  void take_message_locked(Request* r, Message* m);
  void start_rndv_recv_locked(Request* r, lapi::TaskId src, std::size_t size,
                              std::uint64_t sender_handle);
  void message_landed_locked(Message* m);
  void finish_matched_eager_locked(Message* m);
  void fill_recv_status(Request* r, lapi::TaskId src, int tag, std::size_t size) {
    r->status.source = static_cast<int>(src);
    r->status.tag = tag;
    r->status.message_bytes = size;
    r->status.bytes = std::min(size, r->capacity);
    r->status.error = size > r->capacity ? Errc::truncate : Errc::success;
    r->status.cancelled = false;
  }
  // A message from the pool with every field reset: a pooled message keeps
  // what its last use left (a stale self_sender once made cancel take the
  // wrong message and free a buffer still in use).
  Message* blank_message_locked();
  Message* new_message_locked(lapi::TaskId src, const detail::Envelope& env, std::size_t size);
  void free_message_locked(Message* m);
  Request* match_posted_locked(std::uint32_t context, lapi::TaskId src, int tag) {
    return static_cast<Request*>(posted_.match(context, static_cast<int>(src), tag));
  }
  void push_arrived_locked(Message* m);
  bool cancel_send_locked(Request* r);

  // ---- handlers.cc (header handlers; lock taken inside) -----------------
  [[gnu::always_inline]] lapi::Landing on_eager(lapi::TaskId src, const detail::Envelope& env,
                                                std::uint64_t ready_handle, const Arrival& in);
  lapi::Landing on_rts(lapi::TaskId src, const detail::RtsHeader& h);
  lapi::Landing on_cts(lapi::TaskId src, const detail::CtsHeader& h);
  lapi::Landing on_data(lapi::TaskId src, const detail::DataHeader& h, const Arrival& in);
  lapi::Landing on_ack(lapi::TaskId src, const detail::AckHeader& h);
  lapi::Landing on_credit(lapi::TaskId src, const detail::CreditHeader& h);
  lapi::Landing on_starved(lapi::TaskId src, const detail::StarvedHeader& h);
  lapi::Landing on_pull(lapi::TaskId src, const detail::PullHeader& h);
  lapi::Landing on_cancel_req(lapi::TaskId src, const detail::CancelReqHeader& h);
  lapi::Landing on_cancel_reply(lapi::TaskId src, const detail::CancelReplyHeader& h);

  // ---- direct.cc: direct landing into announced receives -----------------
  // A blocking receive is announced only from this capacity up: its thread
  // polls anyway, and below it the ring's eager frame beats the sender's
  // write system call; above, one write replaces split copy's exchange
  // with a receiver whose progress thread may sleep (it woke it twice per
  // message in the paper's interrupt test).
  static constexpr std::size_t kBlockingAnnounceMin = 16384;
  // Options::direct_recv in force: interrupt mode, a variant without counted landings.
  bool direct_landing_on() const;
  // Whether irecv should announce a receive from `source` (outside the lock).
  bool may_announce(int source, std::size_t capacity) const;
  // Under the lock, once r is posted: announces it if it is the only posted
  // receive and nothing is announced to that sender already. The
  // announcement goes into `out`, for the caller to queue or send (outside
  // the lock, send_announcement); true if there is one.
  bool announce_locked(Request* r, bool blocking, detail::AnnounceHeader& out);
  // A send that an announcement of `to` may take: written into the receive
  // buffer, its landed message sent. nullopt: not taken, send as usual.
  std::optional<Errc> send_direct(const void* buf, std::size_t bytes, lapi::TaskId to, int tag,
                                  std::uint32_t context, SendMode mode, const char* fn);
  bool may_write_to(lapi::TaskId to) const {
    return std::atomic_ref<bool>(send_peers_[to].may_write).load(std::memory_order_relaxed);
  }
  void set_may_write_locked(SendPeer& peer, bool valid) {
    peer.announced.valid = valid;
    std::atomic_ref<bool>(peer.may_write).store(valid, std::memory_order_relaxed);
  }
  // cancel() of an announced receive the sender may still write into.
  bool withdraw_locked(Request* r);
  lapi::Landing on_announce(lapi::TaskId src, const detail::AnnounceHeader& h);
  lapi::Landing on_landed(lapi::TaskId src, const detail::LandedHeader& h);
  lapi::Landing on_withdraw(lapi::TaskId src, const detail::WithdrawHeader& h);
  lapi::Landing on_withdrawn(lapi::TaskId src, const detail::WithdrawnHeader& h);
  // Sets the landing's completion to at least drain the outbox.
  lapi::Landing with_drain_locked(lapi::Landing landing);
  // Where arriving data goes. With the enhanced variant, data lapi already
  // holds (`data` non-null) is copied right here and the receive completes
  // inside the header handler: no completion handler, no deferred job.
  lapi::Landing land_in_request_locked(Request* r, bool counted, const void* data) {
    if (data != nullptr && copy_in_handler_ && !counted) {
      detail::copy_bytes(r->recv_buf, data, r->status.bytes);
      complete(r);
      return {};
    }
    return land_in_request_later_locked(r, counted);
  }
  // Data still to land: the landing counter (counted) or a completion handler says when.
  lapi::Landing land_in_request_later_locked(Request* r, bool counted);
  lapi::Landing land_in_message_locked(Message* m, const void* data);
  void after_in_order_locked(lapi::TaskId src);
  void protocol_error_locked(lapi::TaskId src, const char* what);

  // ---- flow.cc -----------------------------------------------------------
  // Credit goes back in batches of a quarter window (or at once to a
  // starved sender).
  void return_credit_locked(lapi::TaskId src, std::size_t bytes) {
    if (bytes == 0) return;
    RecvPeer& peer = recv_peers_[src];
    peer.to_return += bytes;
    if (peer.to_return >= my_window_ / 4 || peer.starved) flush_credit_locked(src);
  }
  [[gnu::noinline]]
  void consider_pull_locked(lapi::TaskId src, std::uint32_t probe_context, bool probing);
  void flush_credit_locked(lapi::TaskId src);
  void note_starved_locked(lapi::TaskId src, const detail::StarvedHeader& h);
  void hold_locked(lapi::TaskId dest, detail::Msg type, Request* req);
  void release_held(lapi::TaskId dest);
  // Moves up to kReleaseChunk held messages that may go now into `go`;
  // true if more may be ready (call again after posting these).
  bool collect_released_locked(lapi::TaskId dest, std::vector<Outgoing>& go);
  Outgoing& queue_locked(lapi::TaskId dest, detail::Msg type, const void* header,
                         std::size_t len);
  void post(Outgoing& out);
  // An announcement, sent quietly (no wake-up); post() sends queued ones here.
  void send_announcement(lapi::TaskId dest, const void* header, std::size_t len);
  // A control message lapi refused: a protocol error, unless its target failed.
  void control_send_failed(lapi::TaskId dest, const lapi::Status& s);
  // Sends what handlers queued; inline so that the common empty case costs
  // one load on every API path.
  void drain_outbox() {
    if (outbox_pending_.load(std::memory_order_acquire)) flush_outbox();
  }
  [[gnu::noinline]] void flush_outbox();

  // ---- completion.cc -----------------------------------------------------
  // Adds completion events (no lock needed: the counter is the hand-off).
  // Without concurrent handlers only this thread touches the counter: no
  // locked read-modify-write (see lapi::Counter::add_unshared).
  void complete(Request* r, int events = 1) {
    if (concurrent()) {
      r->signal.add(events);
    } else {
      r->signal.add_unshared(events);
    }
  }
  void fail_request(Request* r, Errc code, int events);
  // peer_failure.cc: lapi says `task` failed; every request that names it
  // (posted receives from it, sends to it held or waiting for its answer,
  // receives waiting for its data) fails with Errc::peer_failed.
  static void on_peer_failed(lapi::Context& ctx, lapi::TaskId task, const char* why, void* arg);
  void fail_requests_of(lapi::TaskId task, const char* why);
  void fail_pending_locked(Request* r, const std::string& detail, Errc code = Errc::peer_failed);
  // Takes these posted receives out of the queue and fails them.
  void fail_posted_locked(const std::vector<detail::PostedEntry*>& posted, const std::string& detail);
  // Why doomed_locked refused, for the error's detail.
  static const char* doom_reason(Errc code) {
    switch (code) {
      case Errc::revoked: return "the communicator was revoked";
      case Errc::any_source_failed:
        return "a member failed and the failure is not acknowledged (MPIX_Comm_failure_ack)";
      default: return "a task it needs failed";
    }
  }
  // Whether a request must not start: its peer failed (peer_failed), or
  // its context did (bound to a failed task, bind_context) or was revoked,
  // or it is from any source while a watched member's failure is
  // unacknowledged (any_source_failed, any_source.cc). Only once any_fault_.
  Errc doomed_locked(std::uint32_t context, int peer) const {
    if (auto it = failed_contexts_.find(context); it != failed_contexts_.end()) return it->second;
    if (peer == kAnySource) return unacknowledged_failure_locked(context) ? Errc::any_source_failed : Errc::success;
    return peer >= 0 && failed_peers_[static_cast<lapi::TaskId>(peer)] ? Errc::peer_failed : Errc::success;
  }
  // Fails the request with doomed_locked's verdict, if any; true if it did.
  [[gnu::cold, gnu::noinline]] bool fail_if_doomed_locked(Request* r, int peer, const char* what);
  void fail_context_locked(std::uint32_t context, const std::string& detail, Errc code);
  // A member of watched `context` failed unacknowledged (watch_any_source).
  bool unacknowledged_failure_locked(std::uint32_t context) const;
  // Fails the receives posted in `context` (only those from any source if
  // `any_source_only`), withdrawing announced ones first.
  void fail_posted_in_locked(std::uint32_t context, const std::string& detail, Errc code, bool any_source_only);
  // Fails the receives from any source posted in every watched context that
  // has `task` as a member (any_source_failed, any_source.cc).
  void fail_any_source_of_locked(lapi::TaskId task, const std::string& detail);
  // Revokes contexts first .. first + count - 1; false if they already were.
  bool revoke_locked(std::uint32_t first, std::uint32_t count, std::uint32_t bound_context, lapi::TaskId by);
  // After a failure: tells every revocation known here again (revoke.cc).
  void retell_revocations_locked();
  // Queues the notice to the members bound to h.bound_context but `except` (revoke.cc).
  void tell_revoked_locked(const detail::RevokeHeader& h, lapi::TaskId except);
  lapi::Landing on_revoke(lapi::TaskId src, const detail::RevokeHeader& h);
  // lapi's error for a send or wait: peer_failed for a failed target, else transport.
  static Errc lapi_error(const lapi::Status& s) {
    return s.code() == lapi::Errc::tgt_purged ? Errc::peer_failed : Errc::transport;
  }
  void release_request(Request* r);  // application thread
  void poll_landed();
  void block_until_done(Request* r);
  // Records a wait that blocks, for lapirun's hang report (wait_state.hpp).
  WaitNote note_wait(WaitKind kind, int peer, int tag, std::uint32_t context);
  // Waits for a request the caller owns (blocking send/recv) without
  // releasing it; returns its error.
  Errc wait_done(Request* r, Status* status);
  void reap_locked();
  // A sender's credit towards task t, from t's published setup (window and variant).
  void init_send_peer(std::size_t t, std::uint64_t setup);
  // A loop of this thread's own that polls (probe) until something
  // completes, backing off between polls (idle). While nonblocking
  // collectives run (a progress hook), from its first idle poll on, lapi
  // hears that this thread drives progress: interrupt mode's progress
  // thread stays parked instead of waking for every message the loop polls
  // anyway. Not for MPI_THREAD_MULTIPLE's polled waits (an idle hook): there
  // the waiting threads take turns at the MPI lock, and with the progress
  // thread parked MPICH's threads/pt2pt/threads took 11.5-15.6 s instead
  // of 3.0.
  struct PollLoop {
    std::optional<lapi::Context::DrivingProgress> driving;
    int spins = 0;
  };
  void idle(PollLoop& loop);
  void fill_status(const Request* r, Status* status) const;

  // ---- state -----------------------------------------------------------
  lapi::Context& ctx_;
  // ctx_.concurrency_switch(): whether handlers may run on another thread
  // (asked on every call and message; see concurrent()).
  const std::atomic<bool>& concurrent_;
  bool concurrent() const { return concurrent_.load(std::memory_order_relaxed); }
  Options options_;
  lapi::TaskId me_ = 0;
  std::uint32_t ntasks_ = 0;
  // The job's tasks and those of other jobs joined since (join_peers): the bound of a task id.
  // Grows on the application thread with the per-peer vectors below (under mu_).
  std::atomic<std::uint32_t> npeers_{0};
  std::uint32_t npeers() const { return npeers_.load(std::memory_order_relaxed); }
  std::size_t counted_limit_ = 0;  // below it lapi lands eager data in its arrival callback (counted landings)
  std::uint64_t my_window_ = 0;       // credit each sender gets from me
  bool finalized_ = false;
  bool copy_in_handler_ = false;  // enhanced: eager data is copied in the header handler
  HandlerSlot* slot_ = nullptr;
  lapi::HandlerId handler_base_ = 0;

  mutable std::mutex mu_;  // guards everything below (through EngineLock, see there)
  // Some task failed (lapirun --continue-on-failure) or some context was
  // revoked; read without mu_ on the send path, written under it.
  std::atomic<bool> any_fault_{false};
  std::vector<bool> failed_peers_;  // by task, sized at create
  // Contexts bound to the tasks that use them (bind_context), and those
  // a failed task has broken (peer_failed) or that were revoked (revoked).
  std::unordered_map<std::uint32_t, std::vector<lapi::TaskId>> bound_contexts_;
  std::unordered_map<std::uint32_t, Errc> failed_contexts_;
  // Contexts whose receives from any source follow ULFM's rule
  // (watch_any_source): their members and the failures acknowledged.
  struct AnySourceWatch {
    std::vector<lapi::TaskId> members, acknowledged;
  };
  std::unordered_map<std::uint32_t, AnySourceWatch> any_source_watches_;
  // Revocations in force here, by first context (revoke.cc).
  std::unordered_map<std::uint32_t, detail::RevokeHeader> revocations_;
  detail::PostedQueue posted_;
  detail::ArrivedQueue arrived_;
  lapi::Counter arrivals_;  // bumped on every push to arrived_ (blocking probe sleeps on it)
  std::vector<SendPeer> send_peers_;
  std::vector<RecvPeer> recv_peers_;
  detail::HandleTable<Request> send_handles_;  // sends awaiting CTS / ready ack
  detail::HandleTable<Request> recv_handles_;  // receives awaiting rendezvous data
  std::vector<Outgoing> outbox_;
  std::atomic<bool> outbox_pending_{false};  // outbox_ may be non-empty
  std::vector<Request*> reap_;  // internal and user-freed requests
  std::size_t held_copy_bytes_ = 0;  // footprint of held eager copies (under mu_)
  std::vector<std::unique_ptr<InFlight>> in_flight_;
  // Blocking probes in progress: (source or kAnySource, context). Pulls
  // consider them like posted receives.
  std::vector<std::pair<int, std::uint32_t>> probing_;
  // Attached buffers by key (nodes stay put: carriers point at theirs).
  std::unordered_map<Engine::BufferKey, detail::BsendBuffer> bsend_buffers_;
  std::uint64_t bsend_seq_ = 0;     // buffered messages taken so far (flush marks)
  std::size_t bsend_requests_ = 0;  // internal buffered sends not yet reaped
  detail::Pool<Request> request_pool_;  // application thread only, not under mu_
  unsigned releases_ = 0;               // application thread only
  detail::Pool<Message> message_pool_;
  EngineStats stats_;

  // Counters variant: a landing counter peers name as their target counter.
  lapi::Counter landing_counter_;
  std::uint64_t landing_handle_ = 0;  // its handle, for tasks of other jobs (join_setup)
  std::vector<lapi::RemoteCounter> peer_landing_;
  std::deque<Landed> landed_fifo_;
  int progress_calls_ = 0;
};

inline EngineLock::EngineLock(const Engine::Impl& engine)
    : mutex_(engine.concurrent() ? &engine.mu_ : nullptr) {
  if (mutex_ != nullptr) mutex_->lock();
}

}  // namespace mpcpi
