#pragma once
// The one-sided core: a LAPI context over one UCX worker.
//
// Every data-moving call is non-blocking and reports progress through
// counters (see counters/counter.hpp):
//   origin counter      at the origin, once the origin buffer may be reused;
//   target counter      at the target, after the data landed and the
//                       completion handler (if any) ran;
//   completion counter  at the origin, once the target has finished.
// A target counter is named by a RemoteCounter handle that the target handed
// out (register_counter, typically shared with address_init); the target
// validates it before touching anything.
//
// Threading: a context may be used by one application thread at a time plus
// the library's own threads (interrupt-mode progress thread, completion
// handler thread). Header handlers must not communicate.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/config.hpp"
#include "lapi/link_stats.hpp"
#include "lapi/shm_stats.hpp"
#include "lapi/status.hpp"

namespace lapi {

struct RemoteCounter {
  std::uint64_t handle = 0;  // 0 = no counter
  explicit operator bool() const { return handle != 0; }
};

struct Counters {
  RemoteCounter target{};
  Counter* origin = nullptr;
  Counter* completion = nullptr;
};

enum class Query : std::uint8_t {
  task_id,
  num_tasks,
  max_uhdr_size,
  max_data_size,
  interrupt_mode,     // 0 polling, 1 interrupt
  completion_policy,  // CompletionPolicy as integer
  eager_limit,
  error_checking,
  shared_memory,  // LAPIS_SHM: 1 when small Amsends to this node may use shared memory (read-only)
  split_copy,     // LAPIS_SPLIT_COPY: 1 when large Amsends to this node are copied by both tasks (read-only)
  checksum,       // LAPIS_CHECKSUM: Checksum as integer, 0 none, 1 crc32c (read-only)
  split_min,      // the smallest Amsend data split copy takes when it is on (Config::split_min); qenv
                  // gives the size in effect (16 KiB at least, the eager limit for 0)
};

enum class RmwOp : std::uint8_t { fetch_and_add, fetch_and_or, swap, compare_and_swap };

// Counts of remote faults, for tests and diagnostics.
struct FaultStats {
  std::uint64_t refused_here = 0;     // peers' requests this task refused
  std::uint64_t reported_to_me = 0;   // my requests that a target refused
  // LAPIS_CHECKSUM=crc32c. Counted where the data lands (the target of an
  // Amsend or Put, the origin of a Get) unless said otherwise.
  std::uint64_t checksum_mismatches = 0;   // transfers that arrived damaged
  std::uint64_t retransmissions = 0;       // transfers repeated (counted by whoever repeats them)
  std::uint64_t checksum_repaired = 0;     // damaged transfers later landed intact
  std::uint64_t checksum_failures = 0;     // transfers given up, damaged after every retry
  std::uint64_t corruptions_injected = 0;  // LAPIS_FAULT_CORRUPT: bits flipped here
};

// Called (in the progress context) when a target refuses one of this task's
// requests. `code` is the Errc value; `detail` names what was wrong.
using RemoteErrorHandler = void (*)(Context& ctx, TaskId target, Errc code, const char* detail,
                                    void* arg);

// How a task is reached, chosen once at init (Nexus' per-peer method) among
// the methods LAPIS_TRANSPORTS allows: itself; the same-host shared-memory
// rings (and, for large Amsends, split copy when `split` in PathInfo); or
// UCX for everything (another host, or the rings off), over the transport
// UCX picks: TCP when `tcp` (LAPIS_TRANSPORTS=tcp, or a LAPIS_PATHS rule for
// the pair, kept it to TCP).
enum class Path : std::uint8_t { self, shm, ucx };
struct PathInfo {
  Path path = Path::ucx;
  bool split = false;  // large Amsends copied by both tasks (split copy)
  bool tcp = false;    // path ucx: UCX is kept to TCP
  unsigned links = 0;  // large Amsends striped over this many links (LAPIS_LINKS)
  bool same_host = false;  // on this task's host, whatever the path (LAPIS_PATHS may say tcp)
};
std::string_view to_string(Path path);

// lapirun --continue-on-failure: called once for each task that failed
// (died, or ended inside the job), on the thread that notices it (one
// polling or waiting in this context, or interrupt mode's progress thread),
// outside any header handler. `why` says how the task ended.
using PeerFailureHandler = void (*)(Context& ctx, TaskId task, const char* why, void* arg);

class Link;  // link.hpp

namespace testing {
struct EngineAccess;  // lapi/internal/testing_hooks.cc
}

class Context {
 public:
  // Collective over all tasks of the job: creates the UCX worker, exchanges
  // addresses through the bootstrap and connects to every task.
  static Status init(const Config& config, std::unique_ptr<Context>& out);
  ~Context();  // terms the context if term() was not called
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Collective: a global fence, then tears down. Later calls return terminated.
  Status term();

  TaskId task_id() const;
  std::uint32_t num_tasks() const;
  Status qenv(Query query, std::int64_t& value) const;
  Status senv(Query query, std::int64_t value);

  // Registers a header handler under `id` (1 .. kMaxUserHandlers-1). Every
  // task must register the same ids before messages for them arrive.
  Status register_handler(HandlerId id, HeaderHandler handler, void* handler_arg = nullptr);
  // Messages for `id` that arrive afterwards are refused (reported to the origin).
  Status unregister_handler(HandlerId id);

  // Sends uhdr (at most max_uhdr_size bytes) and data to `tgt`; `handler`
  // runs there and names the landing buffer.
  Status amsend(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                const void* data, std::size_t data_len, const Counters& counters = {});
  // An Amsend that leaves before the call returns, or is not sent at all: `sent` says which.
  // When true the data buffer is free at once (what an origin counter would say) and nothing
  // more happens at the origin; when false (the message is too large to leave at once, the
  // shared-memory ring is full, the transport busy) nothing was sent and the caller uses
  // amsend(). For senders that would otherwise keep a record per message only to wait for
  // its origin counter, such as MPI's eager MPI_Isend.
  Status amsend_now(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len,
                    const void* data, std::size_t data_len, bool& sent);

  // Moves len bytes between registered memory here and registered memory at
  // tgt. The target counter moves only after the data is visible there.
  Status put(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, const void* org_addr,
             const Counters& counters = {});
  Status get(TaskId tgt, std::size_t len, std::uint64_t tgt_addr, void* org_addr,
             RemoteCounter tgt_cntr = {}, Counter* org_cntr = nullptr);

  // An Amsend of a user header alone for a message the target's application
  // will look for itself (it calls the library: a wait, a test): through
  // tgt's shared-memory ring even while tgt's progress thread sleeps, which
  // is not woken for it (an application thread asleep in a wait is). So it
  // may stay unhandled until tgt next calls the library. Where the ring
  // does not reach tgt (or is full, or LAPIS_CHECKSUM is on) it is an
  // ordinary amsend().
  Status amsend_quiet(TaskId tgt, HandlerId handler, const void* uhdr, std::size_t uhdr_len);
  // Whether a thread of this task sleeps on its event fd now (interrupt
  // mode's progress thread between messages, or a long wait), so that
  // messages to it go through UCX and wake it.
  bool sleeping() const;
  // Whether write_near reaches tgt: a task on this node whose memory the
  // kernel lets this one write (cross-memory attach), with end-to-end
  // checksums off (a direct write carries none).
  bool writes_near(TaskId tgt) const;
  // Writes len bytes from here into tgt's memory at tgt_addr, unregistered,
  // with no work at tgt; returns once they are in place. Only for memory tgt
  // named for the purpose (MPI announces a posted receive's buffer so that
  // the sender writes into it while the receiver computes), and writable:
  // up to 4 KiB the write goes through tgt's /proc/PID/mem, which writes
  // even into a page mapped read-only, as a debugger does. Errc::tgt for a
  // task out of range, Errc::no_connectivity where writes_near(tgt) is
  // false, Errc::transport when the kernel refuses the write (tgt gone,
  // tgt_addr not mapped there).
  Status write_near(TaskId tgt, std::uint64_t tgt_addr, const void* data, std::size_t len);

  // Atomic read-modify-write on a 32- or 64-bit integer in registered memory
  // at tgt. `operand` is the add/or/swap value, or for compare_and_swap the
  // new value stored when the target equals `compare`. `*prev` (optional)
  // receives the old target value once org_cntr moves.
  Status rmw32(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int32_t operand,
               std::int32_t compare, std::int32_t* prev, Counter* org_cntr);
  Status rmw64(RmwOp op, TaskId tgt, std::uint64_t tgt_addr, std::int64_t operand,
               std::int64_t compare, std::int64_t* prev, Counter* org_cntr);

  // Registered memory: remote Put/Get/Rmw may touch only these ranges.
  Status register_memory(void* addr, std::size_t len);
  Status deregister_memory(void* addr);
  // Memory allocated (and registered) by the transport: on shared memory,
  // remote Put/Get to it become plain loads and stores.
  Status alloc_registered(std::size_t len, void*& out);
  Status free_registered(void* addr);

  // Makes `counter` nameable as a target counter from other tasks.
  Status register_counter(Counter& counter, RemoteCounter& out);
  Status unregister_counter(Counter& counter);

  // Waits until counter >= value, then subtracts value. Drives progress in
  // polling mode; yields or sleeps rather than spinning when idle. `current`
  // (optional) receives the value after the subtraction.
  Status waitcntr(Counter& counter, int value, int* current = nullptr);

  // Runs the progress engine once.
  Status probe();
  // Data fence: everything this task issued has completed at its target.
  Status fence();
  // RMA flush towards one task (MPI_Win_flush): returns once every Put, Get
  // and Rmw this task issued to `tgt` has completed there (data visible at
  // the target, Get data here). Unlike fence() it does not cover Amsend, so
  // it needs no answer from the target's progress engine: where the
  // transport moves Put/Get without the target's CPU (shared memory, RDMA)
  // it completes even while `tgt` never calls the library.
  // With LAPIS_CHECKSUM on it is a full fence().
  Status flush_rma(TaskId tgt);
  // Fetches and caches tgt's key for the registered region covering
  // [addr, addr+len), so that later Put/Get/Rmw there need no round trip to
  // `tgt` (which in polling mode needs tgt to be in the library). Both tasks
  // should be in the library (e.g. a collective that creates a window).
  // Errc::not_registered when tgt registered nothing covering the range.
  Status prefetch_key(TaskId tgt, std::uint64_t addr, std::size_t len);
  // A pointer in this process to tgt's registered [addr, addr+len), when the
  // transport maps it here (tgt on this host, memory from alloc_registered;
  // tgt == self: addr itself): loads and stores through it are Put and Get
  // without a library call, complete once they retire (plain coherent
  // memory; order them as for any memory shared between threads). Valid
  // until tgt deregisters or frees the range. Errc::not_registered when tgt
  // registered nothing covering the range, Errc::no_connectivity when it is
  // not mapped here (another host, memory registered from elsewhere, or
  // LAPIS_CHECKSUM on: every byte moved must then be checked). Fetches the
  // key like prefetch_key when it is not cached.
  Status map_remote(TaskId tgt, std::uint64_t addr, std::size_t len, void*& local);
  // Collective fence + barrier.
  Status gfence();
  Status barrier();
  // Collective: out[i] = task i's `mine`. out.size() must be num_tasks().
  // A task that failed after sending its value still counts; if a failed
  // task's value never came, Errc::tgt_purged, with out holding every live
  // task's value (the failed ones' slots 0).
  Status address_init(std::uint64_t mine, std::span<std::uint64_t> out);

  void set_remote_error_handler(RemoteErrorHandler handler, void* arg);
  // Failed peers (lapirun --continue-on-failure; elsewhere a failed task
  // ends the job). Once a task has failed, every operation naming it
  // (amsend, put, get, rmw, flush_rma, map_remote, prefetch_key) fails at
  // once with Errc::tgt_purged, a blocking call in progress when a failure
  // is noticed returns Errc::tgt_purged naming the task (its wait may have
  // been for that task; call again to wait on), fence waits for the
  // others only, and barrier/gfence fail (the job's barrier now lacks a
  // member). Term still completes among the tasks left. Handlers are kept
  // in the order added; at most kMaxPeerFailureHandlers. Adding a handler
  // already there replaces its argument (one per layer: a layer that
  // re-creates itself on the context points it at its new state).
  static constexpr int kMaxPeerFailureHandlers = 4;
  Status add_peer_failure_handler(PeerFailureHandler handler, void* arg);
  // Whether `task` failed (a joined task that left counts as failed: operations naming it are
  // refused alike). True once the failure handlers have run, on whichever thread absorbed the
  // failure (operations naming the task are refused from a moment before).
  bool peer_failed(TaskId task) const;
  // How `task` is reached (LAPIS_VERBOSE=1 prints it for every task at
  // init). Errc::tgt for a task that does not exist.
  Status path_of(TaskId task, PathInfo& out) const;
  // Whether a task of this job failed (tasks of other jobs, joined, failing or leaving do not
  // count: the job's own collectives can still complete).
  bool any_peer_failed() const;
  FaultStats fault_stats() const;
  ShmStats shm_stats() const;
  // Striping over network links (LAPIS_LINKS): bytes per link, failed links, resent fragments.
  LinkStats link_stats() const;
  // True while this thread is inside one of this context's header handlers.
  bool in_header_handler() const;
  // Whether handlers may run on another thread than the caller's (interrupt
  // mode's progress thread, the thread completion policy). When false, a
  // layer above needs no locks of its own around state its handlers touch.
  // Inline: layers above ask on every message.
  bool handlers_may_run_concurrently() const {
    return concurrency_switch().load(std::memory_order_relaxed);
  }
  // The flag behind handlers_may_run_concurrently() (load it relaxed),
  // valid as long as this context. A layer above that keeps it asks with one
  // load instead of two dependent ones (context, then flag): on every call
  // and message of an MPI stream, that second load sat on the critical path.
  const std::atomic<bool>& concurrency_switch() const { return *concurrent_; }
  // Interrupt mode: the caller is about to stop calling the library while it
  // expects traffic (a layer above returning to its application with
  // receives posted). The progress thread, which stays parked for a grace
  // period after the application's last wait so that back-to-back waits
  // cost no wake-ups, takes over at once instead. Cheap when there is
  // nothing to do (no progress thread, or it is not parked); a no-op in
  // polling mode.
  void hand_over_progress();
  // Interrupt mode: while one of these lives, the thread that made it polls
  // the library in a loop of its own (probe) until something completes, as
  // waitcntr does inside. The progress thread then stays parked, as during
  // a waitcntr, instead of waking for every message this thread would poll
  // anyway: two threads woken per message, and two context switches per
  // wake-up when tasks outnumber cores. When the loop ends, the progress
  // thread takes over after its grace period (or at once, with
  // hand_over_progress()). Costs one load in polling mode.
  class DrivingProgress {
   public:
    explicit DrivingProgress(Context& ctx);
    ~DrivingProgress();
    DrivingProgress(const DrivingProgress&) = delete;
    DrivingProgress& operator=(const DrivingProgress&) = delete;

   private:
    Context& ctx_;
    bool announced_;
  };

  // ---- Jobs that connect (MPI_Comm_accept/connect/join; link.hpp has the channel the two
  // jobs meet over). Tasks of another job join this context as tasks num_tasks(), ... of this
  // task's own numbering (each task numbers the tasks it joined itself). Amsend, Put, Get, Rmw
  // and fence reach them as any task; barrier, gfence and address_init stay the job's.
  //
  // What another job's task needs to reach this one.
  Status join_card(std::vector<std::byte>& out) const;
  // Joins one task per card, numbered first, first+1, ...: the next ids free here, so joins
  // in flight at once (cards swapped, then joined in any order, as MPI_Comm_spawn from two
  // threads does call by call) get ranges of their own. Each side learns how the other
  // numbered it only after both joined: before anything is sent to them, name_joined must
  // tell this context the id each of them gave this task. On failure none stays joined.
  Status join_tasks(std::span<const std::vector<std::byte>> cards, TaskId& first);
  // ids_there[i]: the id joined task first + i gave this task (Errc::tgt unless tasks
  // [first, first + ids_there.size()) were all joined).
  Status name_joined(TaskId first, std::span<const TaskId> ids_there);
  // Refuses operations naming joined tasks [first, first+count) from now on (Errc::tgt_purged)
  // and closes their endpoints at once, needing nothing from them: what must land first is
  // the caller's to fence (MPI_Comm_disconnect: every operation between the two groups has
  // completed, then a barrier). Term leaves the tasks still joined the same way.
  Status leave_tasks(TaskId first, std::uint32_t count);
  // num_tasks() plus the tasks joined (left ones included: ids are never reused).
  std::uint32_t num_peers() const;
  // Task ids are each task's own for joined tasks; a task's uid is the same everywhere (64
  // random bits drawn at its init, never 0), for telling another task which task one means.
  // task_uid: 0 for an id that names no task. task_of_uid: false for a task this one does not
  // know, or has left.
  std::uint64_t task_uid(TaskId task) const;
  bool task_of_uid(std::uint64_t uid, TaskId& task) const;
  // Ports (link.hpp: PortTable), listening on the interface UCX's network traffic keeps to.
  Status open_port(std::string& name);
  Status close_port(std::string_view name);
  // Waits for the other job at `port` (opened here), running this context's progress meanwhile;
  // `keep_waiting(arg)`, when given, is asked between waits too, and false ends the wait
  // (Errc::timeout): MPI_Comm_spawn stops when the job it started ends first.
  Status accept_link(std::string_view port, std::unique_ptr<Link>& out,
                     bool (*keep_waiting)(void*) = nullptr, void* arg = nullptr);
  Status connect_link(std::string_view port, std::unique_ptr<Link>& out);

  class Impl;

 private:
  // lapi/testing.hpp's hooks (//lapi:testing, a test-only target) reach the engine; nothing in
  // the production library does.
  friend struct testing::EngineAccess;
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  const std::atomic<bool>* concurrent_ = nullptr;  // the engine lock's switch (set by init)
};

// Ends this process with `status` and the whole job with it: under lapirun
// the launcher ends every task, even with --continue-on-failure (where the
// others go on after a task fails). For MPI_Abort; stdio is not flushed.
[[noreturn]] void abort_job(int status);

}  // namespace lapi
