#pragma once
// MPCPI: the MPI point-to-point engine, built only from the public lapi API
// (Amsend, header handlers, completion handlers, counters), after the
// MPI-LAPI paper.
//
// The MPI layer (mpi/) calls this engine. It speaks:
//   * world task ids (the MPI layer translates communicator ranks);
//   * context ids: one uint32 per communicator and purpose (point-to-point
//     and collective traffic of one communicator use distinct ids); messages
//     match only within one context;
//   * contiguous byte buffers (the MPI layer packs non-contiguous datatypes);
//   * tags (0 .. kMaxTag; kAnyTag only in receives and probes);
//   * requests (opaque, owned by the engine).
//
// Semantics follow MPI: messages from one sender in one context match in send
// order (non-overtaking) whatever protocol carries them; wildcards pick the
// earliest matching message; a message longer than the receive buffer fills
// the buffer and completes with Errc::truncate, writing nothing past it.
//
// Threading: one application thread at a time may call the engine (MPI
// THREAD_SINGLE / FUNNELED / SERIALIZED; the MPI layer serialises
// MPI_THREAD_MULTIPLE callers with its own lock and lets others in while one
// waits, through the idle hook). The engine's handlers may run at the same
// time on lapi's progress and completion-handler threads; the engine
// synchronises with them itself.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "handlers/handler.hpp"
#include "lapi/context.hpp"

namespace mpcpi {

enum class SendMode : std::uint8_t { standard, ready, synchronous, buffered };

// The paper's section-5 implementations, selected by LAPIS_MPI_VARIANT.
enum class Variant : std::uint8_t {
  base,      // completion handlers run on lapi's handler thread
  counters,  // eager completion seen through a target counter, no completion handler
  enhanced,  // completion handlers run inline in the progress context (default)
};

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;
inline constexpr int kMaxTag = 0x7fffffff;  // MPI_TAG_UB

// Messages of fewer bytes go eagerly; at or above, by rendezvous.
// LAPIS_EAGER_LIMIT overrides it. Measured on shared memory (README): lapi
// already moves Amsend payloads of 8 KiB and more by UCX rendezvous straight
// into the landing buffer, so an eager MPCPI message up to 128 KiB lands
// zero-copy when its receive is posted and saves the RTS/CTS exchange
// (0.5-1 us; bandwidth +5-25% at 32-128 KiB); an unexpected one pays a
// copy-out from early-arrival memory instead. Beyond 128 KiB the exchange
// is a few percent of the transfer and rendezvous wins.
inline constexpr std::size_t kDefaultEagerLimit = 131072;
// Bytes of early-arrival (unexpected) memory a receiver may hold for all its
// senders together; LAPIS_EARLY_ARRIVAL_MAX overrides it.
inline constexpr std::size_t kDefaultEarlyArrivalMax = std::size_t{32} << 20;
// 128 MiB: a million held 8-byte sends (80 bytes of bookkeeping each) still
// fit, so programs that rely on buffering that much keep running, while a
// flood of large eager messages (10,000 x 64 KiB) no longer copies 630 MB.
inline constexpr std::size_t kDefaultHeldSendMax = std::size_t{128} << 20;
// Per-message bookkeeping that a buffered send takes from the attached
// buffer besides the data (the MPI layer's MPI_BSEND_OVERHEAD).
inline constexpr std::size_t kBsendOverhead = 64;
// The engine registers its protocol handlers at ids
// first_handler_id .. first_handler_id + kNumHandlerIds - 1.
inline constexpr lapi::HandlerId kNumHandlerIds = 16;
inline constexpr lapi::HandlerId kDefaultFirstHandlerId = lapi::kMaxUserHandlers - kNumHandlerIds;

// Error codes. Each maps to one MPI error class (named beside it).
enum class Errc : int {
  success = 0,
  truncate,         // MPI_ERR_TRUNCATE: message longer than the receive buffer
  buffer,           // MPI_ERR_BUFFER: buffered send does not fit / bad attach
  ready_no_match,   // MPI_ERR_OTHER: ready send found no posted receive
  invalid_rank,     // MPI_ERR_RANK: destination/source is not a task
  invalid_tag,      // MPI_ERR_TAG
  invalid_count,    // MPI_ERR_COUNT / MPI_ERR_BUFFER: null buffer with bytes > 0
  invalid_request,  // MPI_ERR_REQUEST: null or foreign request / message
  invalid_arg,      // MPI_ERR_ARG: anything else malformed (options, variant ...)
  no_memory,        // MPI_ERR_NO_MEM
  transport,        // MPI_ERR_OTHER: lapi reported an error (see detail)
  terminated,       // MPI_ERR_OTHER: engine finalized
  peer_failed,      // MPIX_ERR_PROC_FAILED: the peer failed (lapirun --continue-on-failure)
  revoked,          // MPIX_ERR_REVOKED: the context was revoked (Engine::revoke)
  // MPIX_ERR_PROC_FAILED (blocking) or _PENDING (nonblocking): a receive from
  // any source in a watched context while a member's failure is not
  // acknowledged (Engine::watch_any_source)
  any_source_failed,
};

// "MPCPI_ERR_TRUNCATE" etc.
std::string_view errc_name(Errc code);
// Detail text of the most recent error returned on this thread, naming the
// function and argument ("isend: dest=9 is not a task (0..3)").
std::string_view last_error_detail();

struct Status {
  int source = kAnySource;  // world task id of the sender
  int tag = kAnyTag;
  std::size_t bytes = 0;          // bytes delivered into the receive buffer
  std::size_t message_bytes = 0;  // bytes the sender sent (>= bytes; probe: size)
  Errc error = Errc::success;
  bool cancelled = false;
};

// Counts since create, for tests and diagnostics.
struct EngineStats {
  std::uint64_t eager_sent = 0;      // eager and ready messages put on the wire
  std::uint64_t rendezvous_sent = 0;  // requests-to-send put on the wire
  std::uint64_t held = 0;            // sends held back for lack of credit
  std::uint64_t held_uncopied = 0;   // of those, eager sends held by reference (copy cap reached)
  std::uint64_t held_copy_bytes = 0;  // now (not a count): memory held eager copies take (held_send_max)
  std::uint64_t pulls_sent = 0;      // pulls this receiver asked for
  std::uint64_t pulled_received = 0;  // messages that came on a pull
  std::uint64_t credits_sent = 0;    // credit messages this receiver sent
  std::uint64_t unexpected = 0;      // messages queued as unexpected
  std::uint64_t out_of_order = 0;    // arrivals that waited for a predecessor
  std::uint64_t protocol_errors = 0;  // malformed or unexpected peer messages dropped
  std::uint64_t announced = 0;       // receives this receiver announced (direct landing)
  std::uint64_t announces_heard = 0;  // announcements this sender took in
  std::uint64_t direct_sent = 0;     // messages this sender wrote into announced receives
};

struct Options {
  Variant variant = Variant::enhanced;
  std::size_t eager_limit = kDefaultEagerLimit;
  std::size_t early_arrival_max = kDefaultEarlyArrivalMax;
  // Memory a sender may spend holding copies of eager sends that wait for
  // credit (each held copy costs its bytes plus bookkeeping). Past it, a
  // held eager send keeps the user's buffer and stays pending: a blocking
  // standard send waits (as the standard allows), a nonblocking one keeps
  // its request incomplete. Nothing is lost either way.
  std::size_t held_send_max = kDefaultHeldSendMax;
  lapi::HandlerId first_handler_id = kDefaultFirstHandlerId;
  // Set the lapi context's completion policy to what the variant needs
  // (base, counters: thread; enhanced: inline).
  bool set_completion_policy = true;
  // Direct landing (LAPIS_DIRECT_RECV): in interrupt mode a nonblocking
  // receive from one task on this node, posted while no other receive is,
  // is announced to that task, whose matching send writes the data straight
  // into the receive buffer (lapi::Context::write_near): the message is
  // there while the receiver computes, with no thread of its own woken.
  bool direct_recv = true;

  // Reads LAPIS_MPI_VARIANT (base|counters|enhanced), LAPIS_EAGER_LIMIT,
  // LAPIS_EARLY_ARRIVAL_MAX and LAPIS_HELD_SEND_MAX (bytes, optional k/m/g
  // suffix) and LAPIS_DIRECT_RECV (0|1) over the given values. An invalid value is Errc::invalid_arg naming the variable.
  static Errc from_env(Options& options);
};

std::string_view to_string(Variant variant);
std::string_view to_string(SendMode mode);

// A pending operation. Opaque; created by isend/irecv/imrecv, released by a
// completing test/wait or by request_free.
class Request;
// A message removed from matching by improbe/mprobe, to be received with
// imrecv/mrecv. Opaque.
class Message;

class Engine {
 public:
  // Collective over all tasks of the context: registers the protocol
  // handlers and exchanges flow-control windows (and, for the counters
  // variant, target-counter handles). `ctx` must outlive the engine.
  static Errc create(lapi::Context& ctx, const Options& options, std::unique_ptr<Engine>& out);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Delivers everything this task still holds for others (flow-controlled
  // sends, buffered sends) and then refuses further calls. Call before
  // lapi::Context::term(); every task should call it (MPI_Finalize).
  Errc finalize();

  const Options& options() const;
  EngineStats stats() const;
  lapi::TaskId task_id() const;
  std::uint32_t num_tasks() const;

  // Jobs that connect: tasks lapi joined (lapi::Context::join_tasks) become peers here too.
  // What a task of the other job needs from this one: its window and variant, and (counters
  // variant) its landing counter. The two jobs must run the same variant.
  struct JoinSetup {
    std::uint64_t setup = 0;
    std::uint64_t landing = 0;
  };
  JoinSetup join_setup() const;
  // Tasks [first, first + theirs.size()) are the ones lapi just joined; theirs[i] is task
  // first + i's join_setup(). Joins from several threads may call this in any order.
  // Errc::invalid_arg when `first` is a task of this job or they run another variant.
  Errc join_peers(lapi::TaskId first, std::span<const JoinSetup> theirs);

  // ---- Point to point -------------------------------------------------
  // Nonblocking send of `bytes` contiguous bytes. The request completes when
  // `buf` may be reused (synchronous: and the receive has matched; ready:
  // and the receiver confirmed a posted receive, else its status carries
  // Errc::ready_no_match). Buffered mode copies into the attached buffer
  // and returns an already-completed request, or Errc::buffer.
  //
  // With `done_now` given, a send that completed inside the call (a small
  // eager message lapi put on the wire at once, with no error) sets
  // *done_now = true and out = null: there is nothing left to complete,
  // which saves the request's creation, test and release in message-rate
  // loops. Otherwise *done_now = false and `out` is as above.
  Errc isend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
             SendMode mode, Request*& out, bool* done_now = nullptr);
  // Nonblocking receive into at most `capacity` bytes. source may be
  // kAnySource, tag kAnyTag. `user`: an application's receive, whose buffer
  // it watches and whose completion it takes through test/wait; in interrupt
  // mode its sender may write straight into buf (Options::direct_recv).
  Errc irecv(void* buf, std::size_t capacity, int source, int tag, std::uint32_t context,
             Request*& out, bool user = false);
  // Blocking forms (isend/irecv + wait); return the operation's error.
  Errc send(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
            SendMode mode);
  Errc recv(void* buf, std::size_t capacity, int source, int tag, std::uint32_t context,
            Status* status);

  // ---- Failed peers (lapirun --continue-on-failure) ---------------------
  // Binds `context` to the tasks that use it (a communicator's members;
  // binding again adds to them). Once one of them fails, the context fails
  // as a whole: its unmatched receives fail with Errc::peer_failed whatever
  // their source, and so do its sends still waiting for their receiver and
  // every later receive or rendezvous send in it. Receives and sends
  // naming the failed task fail in any context. unbind_context forgets
  // the binding (the context may be reused).
  void bind_context(std::uint32_t context, std::span<const lapi::TaskId> members);
  // Forgets the binding, failure and revocation of these contexts (a
  // communicator's, about to be reused).
  void unbind_contexts(std::span<const std::uint32_t> contexts);

  // Revokes `contexts` (one communicator's, consecutive; ULFM's
  // MPIX_Comm_revoke) here and at every task bound to `bound_context`
  // (bind_context): their unmatched receives, whatever the source, and
  // their sends still waiting for a receiver fail with Errc::revoked, and
  // so does every later send, receive or probe in them, until
  // unbind_contexts. Needs no answer and no live peer: after a failure
  // each task that knows of it tells the members it has bound again, so
  // the news spreads even if the revoking task died half-way. Revoking
  // twice is harmless.
  void revoke(std::span<const std::uint32_t> contexts, std::uint32_t bound_context);
  // ULFM's rule for receives from any source: while one of `members` has
  // failed and is not in `acknowledged`, a receive or probe from kAnySource
  // in `context` that matches nothing already arrived fails with
  // Errc::any_source_failed, and so do those posted when a member fails
  // (they could wait for a message only the failed task would send).
  // Calling it again replaces both lists (MPIX_Comm_failure_ack);
  // unbind_contexts forgets it. Unwatched contexts keep such receives posted.
  void watch_any_source(std::uint32_t context, std::span<const lapi::TaskId> members,
                        std::span<const lapi::TaskId> acknowledged);
  // success while `context` works; peer_failed or revoked once a member
  // failed (a bound context) or it was revoked. Cheap until then.
  Errc context_error(std::uint32_t context) const;

  // ---- Completion -----------------------------------------------------
  // If `req` has completed: sets completed, fills *status (may be null),
  // releases the request (the pointer is dead afterwards) and returns the
  // operation's error (== status->error). Otherwise makes progress, sets
  // completed = false and returns success.
  Errc test(Request* req, bool& completed, Status* status);
  // Blocks (yielding the CPU, never busy-spinning forever) until `req`
  // completes, then behaves as a completing test().
  Errc wait(Request* req, Status* status);
  // wait() in two steps, for a caller that reads the status where it lies:
  // blocks until `req` completes and returns its status (its error
  // included), valid until release_done(req) releases the request. A null
  // `req` gets a status whose error is Errc::invalid_request (and
  // release_done(nullptr) does nothing).
  // Saves copying the status out on every request of an MPI_Waitall.
  const Status& wait_in_place(Request* req);
  void release_done(Request* req);
  // Waits until one non-null request of `reqs` completes; sets index (or
  // reqs.size() if all are null) and behaves as wait() on it. The caller
  // nulls its slot.
  Errc wait_any(std::span<Request* const> reqs, std::size_t& index, Status* status);
  // Like test() but never releases the request (MPI_Request_get_status).
  Errc peek(Request* req, bool& completed, Status* status);
  // MPI_Request_free: the engine releases `req` once it completes.
  Errc request_free(Request* req);
  // Best effort (MPI_Cancel). Receives are cancelled while unmatched. Sends
  // are cancelled while still held back by flow control, or while a
  // rendezvous request-to-send has not matched at the receiver; an eager
  // send already on the wire cannot be cancelled. The request must still be
  // completed with test/wait; Status::cancelled tells the outcome.
  Errc cancel(Request* req);
  // Runs lapi progress and the engine's deferred work once; yields the CPU
  // now and then so loops of test()/progress() do not starve other ranks.
  Errc progress();
  // A function the engine calls from its completion and probe calls (test,
  // wait, wait_any, progress, iprobe, probe), on the calling thread, never
  // with engine locks held: the MPI layer advances its nonblocking
  // collectives there. While one is set, waits poll (with the usual
  // spin/yield/sleep back-off) instead of sleeping in lapi, so the hook
  // keeps running. Null removes it.
  using ProgressHook = void (*)();
  void set_progress_hook(ProgressHook hook);
  // A function every blocking call (wait, wait_any, the blocking send and
  // recv, probe, buffer_detach, finalize) calls between its polls, on the
  // waiting thread, with no engine lock held. The MPI layer gives up its
  // MPI_THREAD_MULTIPLE lock there, so a thread that waits never stops
  // other threads from calling the engine; the wait re-checks its request
  // afterwards. While one is set, waits poll (with the spin/yield/sleep
  // back-off) instead of sleeping in lapi. Set it before other threads use
  // the engine; null (the default) removes it.
  using IdleHook = void (*)();
  void set_idle_hook(IdleHook hook);
  // Calls the layer above makes for itself while one of these lives on the
  // calling thread (a collective's sends and receives), not for its
  // application. In interrupt mode a call that returns with receives posted
  // hands progress over to lapi's progress thread at once, since the
  // application may not call again until its data is there (the paper's
  // interrupt test); a library call returns to more library code, which
  // calls again at once, and each such hand-over woke the progress thread
  // for nothing: an 8-byte MPI_Allreduce at 2 ranks took 37.7 us instead
  // of 0.56-0.80.
  class LibraryCall {
   public:
    LibraryCall();
    ~LibraryCall();
    LibraryCall(const LibraryCall&) = delete;
    LibraryCall& operator=(const LibraryCall&) = delete;
  };

  // ---- Probe ----------------------------------------------------------
  // Status::bytes and message_bytes give the message size.
  Errc iprobe(int source, int tag, std::uint32_t context, bool& found, Status* status);
  Errc probe(int source, int tag, std::uint32_t context, Status* status);
  // Matched probe: the message leaves matching; receive it with imrecv.
  // `msg` is null when iprobe-style improbe finds nothing.
  Errc improbe(int source, int tag, std::uint32_t context, Message*& msg, Status* status);
  Errc mprobe(int source, int tag, std::uint32_t context, Message*& msg, Status* status);
  Errc imrecv(Message* msg, void* buf, std::size_t capacity, Request*& out);

  // ---- Buffered mode --------------------------------------------------
  // Buffered sends copy into a buffer the program attached: the process's
  // (kProcessBuffer: MPI_Buffer_attach, and isend/send in SendMode::buffered)
  // or one under any other key the caller chooses (MPI 4.1's communicator
  // and session buffers: ibsend/bsend name theirs). One buffer per key
  // (Errc::buffer if one is attached). Each message takes bytes +
  // kBsendOverhead of it. `automatic`: no memory of the program's, each
  // message gets a heap block of its own (MPI_BUFFER_AUTOMATIC); buf and
  // size are only given back by detach.
  using BufferKey = std::uint64_t;
  static constexpr BufferKey kProcessBuffer = 0;
  Errc buffer_attach(void* buf, std::size_t size, BufferKey key = kProcessBuffer,
                     bool automatic = false);
  // Waits until every message has left the buffer, then detaches it.
  // buf = nullptr, size = 0 when nothing was attached.
  Errc buffer_detach(void*& buf, std::size_t& size, BufferKey key = kProcessBuffer);
  // Waits until every message in the buffer now has left it; the buffer
  // stays attached (MPI_Buffer_flush). Nothing attached: returns at once.
  Errc buffer_flush(BufferKey key = kProcessBuffer);
  // The nonblocking form (MPI_Buffer_iflush): note a mark, then poll
  // buffer_flushed until it says the messages before the mark have left.
  // buffer_flushed reaps but does not poll the transport (test and wait do).
  std::uint64_t buffer_flush_mark();
  bool buffer_flushed(BufferKey key, std::uint64_t mark);
  // isend/send in buffered mode into the buffer under `key`.
  Errc ibsend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
              BufferKey key, Request*& out);
  Errc bsend(const void* buf, std::size_t bytes, int dest, int tag, std::uint32_t context,
             BufferKey key);

  class Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpcpi
