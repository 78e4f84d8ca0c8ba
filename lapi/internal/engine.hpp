#pragma once
// Context::Impl — the engine behind lapi::Context. Its methods live in files
// by responsibility: engine_init.cc (UCX setup, term), connect.cc (the cards
// tasks exchange, the path chosen for each peer: peer.hpp, path_ops.hpp),
// am_send.cc / am_recv.cc (Amsend both sides), rma.cc (Put/Get/Rmw),
// ucx_path.cc (the UCX method's data operations), memory.cc (regions
// and rkeys), progress.cc (poll, wait, interrupt thread), sync.cc (fence,
// barrier, address_init), faults.cc (refusal and reporting), stripes.cc
// (large Amsends striped over network links; links.hpp owns the sockets).
// LAPIS_CHECKSUM's checked transfers are a class of their own
// (checked_transfers.hpp, the member checked_).
//
// Its state: what every file reads (the task, the UCX worker, the peers,
// lock_) at the end of the class, then one member per component (peer
// failures, progress thread, completion runner, registered memory,
// barrier and address_init, split copy, links and their watch, faults),
// each in a header of its own that says what it owns and under which lock.
//
// Locking: lock_ guards the UCX worker and every table below when more than
// one thread may drive the engine (unless its header says otherwise). UCX
// callbacks run with lock_ held (they are only reached through
// ucp_worker_progress), so code called from them uses the *_locked helpers
// and never takes lock_ again.

#include <ucp/api/ucp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/context.hpp"
#include "lapi/internal/checked_transfers.hpp"
#include "lapi/internal/completion.hpp"
#include "lapi/internal/completion_runner.hpp"
#include "lapi/internal/fault_state.hpp"
#include "lapi/internal/idle_spin.hpp"
#include "lapi/internal/integrity.hpp"
#include "lapi/internal/link_watch.hpp"
#include "lapi/internal/links.hpp"
#include "lapi/internal/maybe_mutex.hpp"
#include "lapi/internal/peer.hpp"
#include "lapi/internal/peer_failures.hpp"
#include "lapi/internal/progress_state.hpp"
#include "lapi/internal/region_table.hpp"
#include "lapi/internal/ring_backlog.hpp"
#include "lapi/internal/send_pool.hpp"
#include "lapi/internal/shm_channel.hpp"
#include "lapi/internal/slot_table.hpp"
#include "lapi/internal/split_copy_state.hpp"
#include "lapi/internal/sync_state.hpp"
#include "lapi/internal/wire.hpp"

namespace lapis::runtime {
class Bootstrap;
}

namespace lapi {

namespace internal {
struct AmsendFrame;  // amsend_frame.hpp
struct PeerCard;     // peer_card.hpp
class PathRules;     // path_rules.hpp
}

using internal::CompletionJob;
using internal::Proto;

class Context::Impl {
 public:
  Impl(Context& owner, const Config& config);
  ~Impl();

  // ---- engine_init.cc
  Status start();
  Status shutdown();

  // ---- connect.cc
  // Publishes this task's card, reads the others' and connects to each on the path chosen for
  // it (LAPIS_TRANSPORTS, LAPIS_PATHS). Sizes peers_.
  Status connect_peers(lapis::runtime::Bootstrap& boot);
  Status choose_path(TaskId t, const internal::PeerCard& card, const internal::PeerCard& mine,
                     const internal::PathRules& rules);
  // On a host with more tasks than cores: waiters yield early (waiters_yield_early_), split
  // copy is off (unless LAPIS_SPLIT_COPY=1).
  void note_oversubscription();
  // split_copy.cc: Config::split_min_auto's check, once the paths are known.
  void raise_split_min_if_cma_slow();

  // ---- join.cc: tasks of other jobs (Context::join_card, join_tasks, leave_tasks)
  std::uint32_t npeers() const { return npeers_.load(std::memory_order_acquire); }
  // Refuses operations naming joined task `t` from now on and closes its endpoint, telling it
  // first (`goodbye`: leave_tasks) or not (term: to the other job this task is gone).
  void leave_locked(TaskId t, bool goodbye);
  // A joined task left us: refused from now on like a failed one, without failure handlers (its
  // endpoint's coming error is expected). From a task of this job: refused.
  void on_goodbye_locked(const internal::GoodbyeWire& msg);
  // leave_locked for every joined task; at shutdown, after the job's fence.
  void leave_joined_locked();

  // Calls operation `Op` (&PathOps::put, ...) of the path that reaches `tgt` (path_tables.hpp).
  template <auto Op, typename... Args>
  decltype(auto) via_path(TaskId tgt, Args&&... args);

  // ---- path_report.cc
  // LAPIS_VERBOSE=1: one line on stderr naming the path to each peer (self, shm, ucx).
  void report_paths() const;
  PathInfo path_info(TaskId t) const;

  // ---- am_send.cc
  Status amsend(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                const void* data, std::size_t data_len, const Counters& counters);
  // amsend() once its arguments passed, under the lock, out of line (a small Put's
  // frame to kPutFrameHandler, put()); send_amsend_locked is the same, inlined.
  Status amsend_locked(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                       const void* data, std::size_t data_len, const Counters& counters);
  Status send_amsend_locked(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                            const void* data, std::size_t data_len, const Counters& counters);
  // Context::amsend_now: `sent` false and success when it could not leave inside the call.
  Status amsend_now(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                    const void* data, std::size_t data_len, bool& sent);
  // Refuses a call from a header handler and bad arguments (amsend_arg_error names them).
  Status check_amsend_call(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                           const void* data, std::size_t data_len) const;
  // The arguments' error, or (well-formed) the target's failure, or success.
  Status amsend_arg_error(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                          const void* data, std::size_t data_len) const;
  // Writes an Amsend frame's head at `at`: AmsendWire (with `extra_flags`),
  // the target counter handle and completion cookie when present, room for
  // the ChecksumWire when kChecked (extra_flags then has kChecksummed), the
  // user header. Returns its length. Caller holds lock_ (the cookie table).
  // kChecked is a template argument so that the unchecked path, the one
  // every message takes without LAPIS_CHECKSUM, carries no checksum code.
  template <bool kChecked>
  std::size_t write_frame_locked(std::byte* at, HandlerId handler, std::uint16_t extra_flags,
                                 const void* uhdr, std::size_t uhdr_len, const Counters& counters);
  // write_frame_locked<checked>, out of line (that one is inlined into am_send.cc).
  std::size_t write_frame_out_of_line_locked(bool checked, std::byte* at, HandlerId handler,
                                             std::uint16_t extra_flags, const void* uhdr,
                                             std::size_t uhdr_len, const Counters& counters);
  // Amsend to a task on this node through its shared-memory ring; nothing
  // is sent when the frame is too long, the ring full or the target asleep
  // (RingSend says which). kChecked: LAPIS_CHECKSUM, extra_flags has
  // kChecksummed. `counted`: a queued Amsend, already counted for fences.
  // Caller holds lock_.
  template <bool kChecked>
  internal::RingSend amsend_shm_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                                       const void* uhdr, std::size_t uhdr_len, const void* data,
                                       std::size_t data_len, const Counters& counters,
                                       bool counted = false);
  // An Amsend to a task on this node whose ring is full, or behind others
  // queued for it (ring_backlog.hpp): queued, or false when it cannot be
  // (no origin counter, or a frame too long for the ring) and should take
  // the path's way.
  // Caller holds lock_; ring_backlog.cc holds these.
  bool queue_amsend_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                           const void* uhdr, std::size_t uhdr_len, const void* data,
                           std::size_t data_len, const Counters& counters);
  // Sends what is queued for `tgt` while its ring has room (all targets: from
  // the poll); whether any left.
  bool flush_backlog_locked(TaskId tgt);
  bool flush_backlogs_locked();
  // Before a sleep: everything still queued through UCX; for one target
  // (`found_asleep`: its first frame found the target asleep).
  void backlog_to_ucx_locked();
  void queue_to_ucx_locked(TaskId tgt, bool found_asleep);
  // A failed target: its queue dropped, the origin counters moved.
  void drop_backlog_to_locked(TaskId tgt);
  // Sends a control message through the target's path; caller holds lock_. Header is copied.
  void send_control_locked(TaskId tgt, Proto proto, const void* header, std::size_t len,
                           const void* data = nullptr, std::size_t data_len = 0);
  // The same for a fixed-size message (kinds accept_shm_control_locked
  // takes) to a task on this node: through its shared-memory ring when
  // there is room, else as send_control_locked.
  void send_control_near_locked(TaskId tgt, Proto proto, const void* msg, std::size_t len);
  // Publishes the frame shm_.begin_send gave for `tgt`; a target that went
  // to sleep meanwhile is woken through UCX.
  void end_ring_send_locked(TaskId tgt, std::size_t len, bool quiet = false) {
    if (shm_.end_send(tgt, len, quiet) == internal::ShmSend::done_wake) [[unlikely]] send_wake_locked(tgt);
  }
  void send_wake_locked(TaskId tgt);
  // The shm and ucx paths' Amsend beyond the ring (PathOps::amsend): split copy, stripes, UCX.
  Status amsend_host_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                            const void* uhdr, std::size_t uhdr_len, const void* data,
                            std::size_t data_len, const Counters& counters);
  Status amsend_net_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                           const void* uhdr, std::size_t uhdr_len, const void* data,
                           std::size_t data_len, const Counters& counters);
  // ---- host_rma.cc: the shm path's Put and Get (PathOps::put/get)
  Status put_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                         const void* org_addr, ucp_rkey_h rkey, const Counters& counters);
  Status get_host_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
                         ucp_rkey_h rkey, RemoteCounter tgt_cntr, Counter* org_cntr);
  // Moves a Put (`put`) or Get of `len` bytes at `addr` itself, into or out of UCX's mapping
  // or by cross-memory attach; false: UCX must.
  bool move_in_place_locked(TaskId tgt, ucp_rkey_h rkey, std::uint64_t addr, std::size_t len,
                            void* local, bool put);

  // ---- ucx_path.cc: the UCX method's operations (PathOps, path_ops.hpp says what each does)
  // Amsend through UCX (eager or rendezvous; always eager with
  // `extra_flags`, which are AmsendWire flags such as kSplitData). Caller
  // holds lock_.
  Status amsend_ucx_locked(TaskId tgt, HandlerId handler, std::uint16_t extra_flags,
                           const void* uhdr, std::size_t uhdr_len, const void* data,
                           std::size_t data_len, const Counters& counters);
  // A small eager frame through UCX, only if it completes inside the call.
  ucs_status_t amsend_ucx_immediate_locked(TaskId tgt, std::byte* frame, std::size_t off,
                                           std::size_t uhdr_len, const void* data,
                                           std::size_t data_len);
  // Posts one active message (header copied into a pooled SendOp). Caller
  // holds lock_. `origin` is bumped once the data buffer may be reused.
  Status post_send_locked(TaskId tgt, internal::Proto proto, const void* header,
                          std::size_t header_len, const void* data, std::size_t data_len,
                          std::uint32_t am_flags, Counter* origin);
  Status post_op_locked(internal::SendOp* op, TaskId tgt, internal::Proto proto,
                        const void* data, std::size_t data_len, std::uint32_t am_flags,
                        Counter* origin);
  Status amsend_now_ucx_locked(TaskId tgt, std::byte* frame, std::size_t off,
                               std::size_t uhdr_len, const void* data, std::size_t data_len,
                               bool& sent);
  void send_control_ucx_locked(TaskId tgt, Proto proto, const void* header, std::size_t len,
                               const void* data, std::size_t data_len);
  Status put_ucx_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, const void* org_addr,
                        ucp_rkey_h rkey, const Counters& counters);
  Status get_ucx_locked(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
                        ucp_rkey_h rkey, RemoteCounter tgt_cntr, Counter* org_cntr);
  Status atomic_ucx_locked(TaskId tgt, RmwOp op, std::uint64_t tgt_addr, std::int64_t operand,
                           std::int64_t compare, void* prev, unsigned width, ucp_rkey_h rkey,
                           Counter* org_cntr);
  Status flush_ucx(TaskId tgt);

  // ---- am_recv.cc
  Status register_handler(HandlerId id, HeaderHandler handler, void* arg);
  Status unregister_handler(HandlerId id);
  ucs_status_t on_amsend(const void* header, std::size_t header_len, void* data,
                         std::size_t length, const ucp_am_recv_param_t* param);
  ucs_status_t on_amsend_packed(const void* header, std::size_t header_len, void* data,
                                std::size_t length, const ucp_am_recv_param_t* param);
  // Both forms: `bytes` holds the frame (AmsendWire, words, user header),
  // followed by the data when `packed`. Inlined into its three callers
  // (am_recv.cc): the shared-memory ring's is every small message's path.
  [[gnu::always_inline]] ucs_status_t accept_amsend_locked(bool rndv, bool packed,
                                                           const std::byte* bytes,
                                                           std::size_t frame_len, void* data,
                                                           std::size_t length);
  // A parsed frame that carries a checksum or should (LAPIS_CHECKSUM here):
  // checks it, then deliver_amsend_locked<true>. Out of the unchecked path.
  ucs_status_t accept_checked_amsend_locked(bool rndv, const std::byte* bytes,
                                            const internal::AmsendFrame& f);
  // A parsed, accepted frame: runs the header handler and lands the data.
  template <bool kChecked>
  ucs_status_t deliver_amsend_locked(bool rndv, const std::byte* bytes,
                                     const internal::AmsendFrame& f,
                                     const internal::DataCheck& check);
  // `split_id` (non-zero for a split-copy Amsend) is the origin's record,
  // released so that its origin counter moves.
  ucs_status_t refuse_amsend_locked(bool rndv, std::uint32_t src, Errc code, std::uint64_t cookie,
                                    std::string detail, std::uint64_t split_id = 0);
  ucs_status_t pull_rendezvous_locked(void* desc, void* buffer, std::size_t length,
                                      const CompletionJob& job, const internal::DataCheck& check = {});
  // Data of an Amsend from `src` is in place: count it, then complete.
  // Here in the class, so that every small message's landing inlines it.
  void landed_locked(const CompletionJob& job) {
    internal::Peer& peer = peers_[job.src];
    ++peer.landed_from;
    if (peer.fence_wanted != 0) check_fence_requests_locked(job.src);
    if (job.handler == nullptr) {
      // Most Amsends name neither a target counter nor a completion counter: no call.
      if (job.target_counter != nullptr || job.cookie != 0) finish_job_locked(job);
    } else {
      run_handler_later_locked(job);
    }
  }
  // The completion handler of a landed Amsend: to the handler thread, or
  // deferred until the poll that landed it returns.
  void run_handler_later_locked(const CompletionJob& job);
  // Whether a target counter handle was handed out here (memoized).
  bool counter_registered_locked(std::uint64_t handle);
  // Runs after the completion handler (or at once when there is none).
  void finish_job(const CompletionJob& job);
  void finish_job_locked(const CompletionJob& job);

  // ---- rma.cc
  // Validates a Put/Get (before its lock), then resolves the target region's rkey (under it).
  Status check_transfer_call(const char* fn, TaskId tgt, std::size_t len, std::uint64_t tgt_addr,
                             const void* org_addr) const;
  Status transfer_rkey(std::unique_lock<internal::MaybeMutex>& guard, TaskId tgt,
                       std::uint64_t tgt_addr, std::size_t len, ucp_rkey_h& rkey);
  Status put(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, const void* org_addr,
             const Counters& counters);
  // kPutFrameHandler's header handler (handler_arg: the engine): lands a Put
  // frame's data at the address its user header names, in memory registered here.
  static Landing land_put_frame(Context& ctx, const AmHeaderInfo& info);
  Status get(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
             RemoteCounter tgt_cntr, Counter* org_cntr);
  Status rmw(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int64_t operand,
             std::int64_t compare, void* prev, unsigned width, Counter* org_cntr);
  Status rmw_self(RmwOp op, std::uint64_t tgt_addr, std::int64_t operand, std::int64_t compare,
                  void* prev, unsigned width, Counter* org_cntr);
  void on_counter_update_locked(const internal::CounterUpdateWire& msg);
  void on_completion_ack_locked(const internal::CompletionAckWire& msg);
  // A Put's counter update (or a checked Put's intact verify) from `src`:
  // its target counter moves and its completion cookie is acked. False
  // (refused: a fault message names the cookie) for unknown flags or an
  // unregistered counter.
  bool count_remote_locked(TaskId src, std::uint16_t flags, std::uint64_t counter,
                           std::uint64_t cookie);

  // ---- memory.cc
  Status register_memory(void* addr, std::size_t len, bool allocate, void** out);
  Status deregister_memory(void* addr, bool allocated);
  // Looks up (fetching once from the target if needed) the rkey covering the
  // remote range. Blocks with progress on a miss.
  Status remote_key(TaskId tgt, std::uint64_t addr, std::size_t len, ucp_rkey_h& out);
  // remote_key's look at the region last used (inline, ucx_rma.hpp: every Put and Get asks)
  // and, failing that, at the regions known, without asking the target.
  bool cached_rkey_locked(TaskId tgt, std::uint64_t addr, std::size_t len, ucp_rkey_h& out);
  bool known_rkey_locked(TaskId tgt, std::uint64_t addr, std::size_t len, ucp_rkey_h& out);
  Status map_remote(TaskId tgt, std::uint64_t addr, std::size_t len, void*& local);
  void on_rkey_request_locked(const internal::RkeyRequestWire& req);
  void on_rkey_invalidate_locked(const internal::RkeyInvalidateWire& msg);
  void on_rkey_dropped_locked(const internal::RkeyInvalidateWire& msg);
  void on_rkey_reply_bytes_locked(const internal::RkeyReplyWire& reply, const void* rkey,
                                  std::size_t rkey_len);

  // Switches the completion policy (starting the handler thread or fiber
  // scheduler on first use). Called only when no other engine thread runs.
  void apply_policy(CompletionPolicy policy);

  // ---- progress.cc
  // Runs the engine once; returns whether anything happened.
  bool poll_once();
  void run_deferred();
  void run_job(const CompletionJob& job);
  static void run_job_here(void* self, const CompletionJob& job);
  // Blocks (with progress) until done() returns true. Yields and then sleeps
  // on the worker's event fd when idle, so oversubscribed hosts keep moving.
  template <typename Done>
  Status wait_until(Done done);
  void idle_backoff(internal::IdleSpin& spin);
  // wait_until for the job's own rounds (fence, barrier, address_init): a task of another job
  // failing (join.cc) does not end the wait, which never waits for it; one of the job does.
  template <typename Done>
  Status wait_for_job(Done done);
  void start_progress_thread();
  void progress_loop();
  void stop_progress_thread();
  // Waits for a UCX request returned by a *_nbx call to finish.
  ucs_status_t wait_request(ucs_status_ptr_t request);

  // ---- sync.cc
  Status fence();
  // fence() towards tasks [first, end) only.
  Status fence_tasks(TaskId first, TaskId end);
  Status flush_rma(TaskId tgt);
  Status barrier();
  Status address_init(std::uint64_t mine, std::span<std::uint64_t> out);
  // Polls until nothing more has landed, or kDrainPollsBeforeFailure times
  // (as a wait does, announced to the progress thread): what a task sent
  // before it failed is taken in.
  void drain_landed();
  void on_fence_request_locked(const internal::FenceWire& msg);
  void on_fence_reply_locked(const internal::FenceWire& msg);
  void on_barrier_locked(const internal::BarrierWire& msg);
  void on_address_init_locked(const internal::AddressInitWire& msg);
  void check_fence_requests_locked(TaskId src);
  // Proto::wake: the message's arrival has woken this task; nothing to do.
  void on_wake_locked(const internal::WakeWire&) {}

  // ---- shm (engine_init.cc, am_send.cc, progress.cc)
  // Lands a frame from the shared-memory channel (Proto::amsend_packed layout).
  void accept_shm_frame_locked(TaskId src, const std::byte* frame, std::size_t len,
                               std::size_t room);
  // Sleeps on the worker's event fd (timeout_ms < 0: until an event) once
  // UCX is armed and no shared-memory frame waits.
  // `waiter`: a thread waiting in the library, not the progress thread (ShmChannel::sleep_begin).
  void sleep_on_efd(int timeout_ms, bool waiter);

  // ---- split_copy.cc: large Amsends to a task on this node, copied by both
  // tasks with cross-memory attach (process_vm_readv/writev).
  // Smaller rendezvous Amsends go through UCX.
  static constexpr std::size_t kSplitMin = 16384;
  // The smallest Amsend data split copy takes (Config::split_min).
  std::size_t split_threshold() const {
    return std::max(kSplitMin, config_.split_min != 0 ? config_.split_min : config_.eager_limit);
  }
  bool split_reaches(TaskId tgt) const { return peers_[tgt].split_pid != 0; }
  // Context::writes_near / write_near (split_copy.cc: the same cross-memory attach).
  bool writes_near(TaskId tgt) const { return tgt < npeers() && split_reaches(tgt) && !integrity_.on; }
  Status write_near(TaskId tgt, std::uint64_t tgt_addr, const void* data, std::size_t len);
  Status amsend_quiet(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len);
  // At init: whether `peer`'s memory is reachable from here.
  void probe_split_peer(TaskId peer, const internal::SplitAddress& addr);
  internal::SplitAddress split_address() const;
  Status amsend_split_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                             std::size_t uhdr_len, const void* data, std::size_t data_len,
                             const Counters& counters);
  // The origin's record of a split or staged Amsend; `later` gets the
  // counters that move with the frame (the origin counter waits for split_done).
  internal::SplitSend* new_split_send_locked(TaskId tgt, const void* data, std::size_t data_len,
                                             const Counters& counters, Counters& later);
  // Its frame into tgt's ring, sealed when `flags` has kChecksummed; a full ring is counted.
  internal::RingSend split_frame_to_ring_locked(TaskId tgt, HandlerId handler, std::uint16_t flags,
                                                const void* uhdr, std::size_t uhdr_len,
                                                internal::SplitSend& op, const Counters& later);
  // Forgets a split or staged Amsend whose frame never left.
  void drop_unsent_split_locked(internal::SplitSend* op);
  // Target side, once the header handler named `buffer` (null: discard).
  void land_split_locked(TaskId src, const internal::SplitWire& split, void* buffer,
                         const CompletionJob& job, std::uint32_t split_crc);
  // LAPIS_CHECKSUM, polling mode: runs the checks finish_split_recv_locked
  // held back and completes those Amsends (split_copy.cc says why they wait).
  void check_held_splits_locked();
  // Checks the data (LAPIS_CHECKSUM), frees the origin's buffer and lands.
  void complete_split_recv_locked(internal::SplitRecv& rec);
  // The same once checked: split_done to the origin, then the landing (or the failure).
  void settle_split_recv_locked(internal::SplitRecv& rec);
  // Target side: the data will not be copied (`code` says why, success for
  // a discard); the origin may reuse its buffer. `near`: split_done may take
  // the ring (a success with no completion ack behind it, which must not
  // overtake it; a failure goes in order with the fault naming it).
  void release_split_locked(TaskId src, std::uint64_t id, Errc code, bool near = false);
  // A kControlFrame from the ring (send_control_near_locked): queued, and
  // handled by run_ring_controls_locked once the poll is over.
  void accept_shm_control_locked(TaskId src, const std::byte* frame, std::size_t len);
  void run_ring_controls_locked();
  void on_split_go_locked(const internal::SplitGoWire& msg);
  void on_split_last_locked(const internal::SplitDoneWire& msg);
  void on_split_done_locked(const internal::SplitDoneWire& msg);
  // `task` failed: its split Amsends will never be copied or answered.
  void drop_split_sends_to_locked(TaskId task);
  // `task` failed: UCX may never finish what it holds for it (peer_failures.cc).
  void free_ucx_sends_to_locked(TaskId task);
  void finish_split_recv_locked(std::uint64_t token);
  // LAPIS_CHECKSUM: copies src's data at `addr` into `buffer` again.
  bool split_copy_again_locked(TaskId src, void* buffer, std::uint64_t addr, std::size_t len);

  // ---- staged_copy.cc: large Amsends with an origin counter to a task on
  // this node, copied in and out through the target's staging area.
  // Staging takes what split copy could (from kSplitMin), below split
  // copy's threshold too, where the other way is UCX's eager copies
  // (staged_copy.cc has the figures).
  // From here split copy beats staging where a cross-memory read is cheap
  // (staged_copy.cc): one copy shared by two cores against two copies.
  static constexpr std::size_t kSplitOverStageMin = 96 * 1024;
  // Whether an Amsend of `data_len` to `tgt` may be staged.
  bool stages_to(TaskId tgt, std::size_t data_len, const Counters& counters) const {
    return config_.staged_copy && counters.origin != nullptr && peers_[tgt].split &&
           data_len >= kSplitMin &&
           !split_beats_staging(tgt, data_len) && shm_.stages_to(tgt);
  }
  // Where a cross-memory read is cheap, without checksums (whose CRCs ride
  // on staging's copies): from kSplitOverStageMin, and from kSplitMin while
  // large Amsends go both ways (both cores busy: the copying in all decides).
  bool split_beats_staging(TaskId tgt, std::size_t data_len) const {
    if (integrity_.on || !cma_cheap()) return false;
    return data_len >= kSplitOverStageMin || (data_len >= kSplitMin && both_ways_locked(tgt));
  }
  // Our last large Amsend to `tgt` is still out, and one of its landed here
  // within kBothWaysNs. (Not in a ping-pong: each side's send is done
  // before it sends again.)
  bool both_ways_locked(TaskId tgt) const;
  // Target: a split or staged Amsend from `src` lands (both_ways_locked).
  void note_split_in_locked(TaskId src);
  // Whether start-up found a cross-memory read cheap against a copy (it is
  // timed where split copy may start below the eager limit).
  bool cma_cheap() const {
    return split_.cma_copy_ratio != 0 && split_.cma_copy_ratio <= config_.split_cma_ratio_max;
  }
  // Origin: the frame through the ring (nothing sent: false, the caller
  // takes split copy or UCX).
  bool amsend_staged_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                            std::size_t uhdr_len, const void* data, std::size_t data_len,
                            const Counters& counters);
  // Origin: pushes chunks while staging areas have room; whether any.
  bool push_stages_locked();
  bool push_stage_locked(TaskId tgt);
  // Target: the chunks of `src`'s staged Amsend `id` (its record) are
  // dropped as they come (the Amsend was refused), or wait for its frame to
  // come again (it arrived damaged).
  void drop_staged_chunks_locked(TaskId src, std::uint64_t id);
  void await_staged_frame_locked(TaskId src, std::uint64_t id);
  // Target side, once the header handler named `buffer` (null: discard).
  void land_staged_locked(TaskId src, const internal::SplitWire& split, void* buffer,
                          const CompletionJob& job);
  // Target: copies out and checks the chunks that wait; whether any.
  bool drain_stages_locked();
  bool drain_stage_locked(TaskId src);
  // Target: staged record `token` from `src` has every byte (or failed).
  void settle_staged_locked(TaskId src, std::uint64_t token);
  // Target: reads what is left of src's oldest staged record itself once src
  // has neither pushed nor polled for a while (staged_copy.cc says why; unchecked only).
  void pull_staged_if_quiet_locked(TaskId src);
  // Target: copies one chunk out and checks it, reading it again from the
  // origin's buffer while damaged (check_split_locked; rec.error says if that failed).
  void land_chunk_locked(internal::SplitRecv& rec, const internal::ShmChannel::StageChunk& chunk);
  // Origin: `op` ended early (its target failed it): no more pushing.
  void forget_staged_send_locked(const internal::SplitSend& op);
  // Target: whether a chunk waits for a staged Amsend (before a sleep).
  bool stage_waiting_locked() const;
  // `task` failed: what it was pushing, or was to push, is dropped.
  void drop_stages_locked(TaskId task);

  // ---- stripes.cc: large Amsends to tasks on other hosts, striped over the links
  // (LAPIS_LINKS; links.hpp has the sockets). Split copy's frame and split_done, with the
  // data over the links instead of by cross-memory attach.
  // LAPIS_LINK_TIMEOUT in milliseconds (links and their watch), or its error.
  Status link_timeout(int& ms) const;
  Status open_links(std::uint64_t uid);
  // Under PMIx (no launcher watches the ranks' hosts): a watched connection to every task on
  // another host (link_watch.hpp), its failure reported as the task's.
  Status watch_other_hosts(const std::vector<internal::PeerCard>& cards);
  bool stripes_to(TaskId tgt, std::size_t data_len) const {
    return peers_[tgt].stripes && data_len >= config_.stripe_min && links_.reaches(tgt) && !integrity_.on;
  }
  Status amsend_striped_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                               std::size_t uhdr_len, const void* data, std::size_t data_len,
                               const Counters& counters);
  // Target side, once the header handler named `buffer` (null: discard).
  void land_striped_locked(TaskId src, const internal::SplitWire& split, void* buffer,
                           const CompletionJob& job);
  void on_stripe_go_locked(const internal::SplitGoWire& msg);
  ucs_status_t on_stripe_frag(const void* header, std::size_t header_len, void* data,
                              std::size_t length, const ucp_am_recv_param_t* param);
  static void stripe_landed(void* self, TaskId src, std::uint64_t id, const CompletionJob& job);
  static void stripe_over_ucx(void* self, TaskId tgt, std::uint64_t token, std::uint32_t index,
                              const std::byte* data, std::size_t len);
  LinkStats link_stats();

  // LAPIS_CHECKSUM=crc32c's methods: checked_ (checked_transfers.hpp).

  // ---- peer_failures.cc: tasks that failed (lapirun --continue-on-failure)
  // Any thread (the bootstrap's listener): takes note, wakes a sleeper.
  void note_peer_failure(int task, const std::string& why);
  // UCX's error handler of an endpoint to another host (the connection reset, or silent until
  // keepalive gave up): its task failed, as if the launcher had said so.
  static void on_endpoint_error(void* impl, ucp_ep_h ep, ucs_status_t status);
  // Engine side: marks the tasks noted since the last call as failed and
  // runs the failure handlers. Called by poll_once when failures_.epoch moved.
  void absorb_failures();
  // poll_once without absorb_failures (which drains through it).
  bool poll_transports();
  static constexpr int kDrainPollsBeforeFailure = 64;
  // Registers with the bootstrap (on) or leaves it (off, before the engine goes).
  void watch_failures(bool on);
  // Errc::tgt_purged naming the failed `task` (and `fn`).
  Status failed_peer_error(const char* fn, TaskId task) const;
  // An operation naming `tgt`: refused when tgt failed. Only called once
  // failures_.any_failed is set; tgt may be out of range (the operation says so).
  Status check_peer(const char* fn, TaskId tgt) const {
    if (tgt < npeers() && failures_.failed[tgt].load(std::memory_order_acquire)) return failed_peer_error(fn, tgt);
    return Errc::success;
  }

  // ---- faults.cc
  // Refuses a peer's request: counts it and reports it back to `src` (when
  // src names a task) with the request's completion cookie.
  void refuse_locked(std::uint32_t src, Errc code, std::uint64_t cookie, std::string detail);
  void on_fault_bytes_locked(const internal::FaultWire& msg, const void* text, std::size_t len);

  // Counter updates by the engine. While one thread alone drives it (lock_
  // off) nobody else updates or consumes a counter meanwhile, so they need
  // no locked read-modify-write.
  void bump(Counter& c) {
    if (lock_.enabled()) {
      c.add();
    } else {
      c.add_unshared();
    }
  }
  bool consume(Counter& c, int value) {
    return lock_.enabled() ? c.try_consume(value) : c.try_consume_unshared(value);
  }

  // ---- shared state (read by every file)
  Context& owner_;
  Config config_;
  TaskId me_ = 0;
  std::uint32_t ntasks_ = 1;
  std::size_t max_uhdr_ = 0;
  std::atomic<bool> terminated_{false};
  bool entered_job_ = false;  // told the launcher this task is in the job (start())
  // Waiters yield after IdleSpin's first polls instead of learning to spin longer
  // (idle_spin.hpp): where the job has more tasks on this host than cores online
  // (note_oversubscription), and once a handler thread runs completions (apply_policy), which
  // a waiter spinning on its core would keep from running.
  std::atomic<bool> waiters_yield_early_{false};

  ucp_context_h ucp_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  // Every task's path, endpoint and per-peer state, by task (peer.hpp): the job's tasks at
  // start(), tasks of other jobs appended by join_tasks (join.cc) up to kMaxJoinedTasks over the
  // context's life (ids are not reused: a server accepting one-task jobs serves 16384), the
  // endpoints closed and the table emptied at shutdown(). Its capacity is reserved at start(),
  // so appending never moves an entry; npeers_ (released after an entry is built) bounds the
  // task ids an operation may name.
  static constexpr std::uint32_t kMaxJoinedTasks = 16384;
  std::vector<internal::Peer> peers_;
  std::atomic<std::uint32_t> npeers_{0};
  // The tasks by identity (Peer::uid, Context::task_uid; under lock_): ids are each task's
  // own, identities are not.
  std::unordered_map<std::uint64_t, TaskId> tasks_by_uid_;
  std::string net_if_;       // the interface UCX's network traffic keeps to (start()); ports listen there
  bool ucx_tcp_only_ = false;  // LAPIS_TRANSPORTS=tcp kept UCX to tcp,self (start())
  int efd_ = -1;
  internal::MaybeMutex lock_;

  struct UserHandler {
    HeaderHandler fn = nullptr;
    void* arg = nullptr;
  };
  std::array<UserHandler, kMaxUserHandlers> handlers_{};

  std::unordered_set<std::uint64_t> counters_;  // registered target counters
  std::uint64_t last_counter_hit_ = 0;          // memo of the last validated handle
  internal::SlotTable<Counter*> completions_;   // cookie -> completion counter

  // ---- components (in the order the members had when they stood here one
  // by one): each header says what it owns, who touches it and under which
  // lock.
  internal::RegionTable regions_;      // region_table.hpp: this task's registered memory
  internal::SyncState sync_;           // sync_state.hpp: barrier and address_init rounds
  internal::CompletionRunner runner_;  // completion_runner.hpp: completion policies
  internal::ProgressState progress_;   // progress_state.hpp: interrupt mode
  internal::SplitCopyState split_;     // split_copy_state.hpp: split-copy records
  internal::LinkSet links_;            // links.hpp: striping over network links
  internal::LinkWatch watch_;          // link_watch.hpp: links to other hosts, under PMIx

  internal::Integrity integrity_;
  // The held-send token of the Amsend frame being accepted (0: none), for
  // refuse_amsend_locked to ack it.
  std::uint64_t accepting_held_ = 0;

  internal::SendPool send_pool_;
  internal::ShmChannel shm_;
  internal::RingBacklog backlog_;  // ring_backlog.hpp: Amsends waiting for room in a full ring
  // UCX polling rate beside the rings (progress.cc), guarded by lock_.
  unsigned polls_since_ucx_ = 0;
  unsigned ucx_poll_every_ = 1;
  unsigned ucx_quiet_polls_ = 0;
  std::atomic<std::uint64_t> send_errors_{0};

  internal::PeerFailures failures_;  // peer_failures.hpp: tasks that failed
  internal::FaultState faults_;      // fault_state.hpp: refusals and the remote error handler
  // Last, so that the members above keep the offsets the hot paths were
  // measured with.
  internal::CheckedTransfers checked_{*this, integrity_};  // checked_transfers.hpp
};

// Set while a header handler runs on this thread (any context).
// Initial-exec: read on every message and every blocking call, and inside
// libmpi.so the default (global-dynamic) model would call __tls_get_addr
// each time. Four bytes fit the static TLS surplus even when the library is
// dlopen()ed.
extern thread_local int tl_header_handler_depth __attribute__((tls_model("initial-exec")));

}  // namespace lapi
#include "lapi/internal/path_tables.hpp"
#include "lapi/internal/wait.hpp"
