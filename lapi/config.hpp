#pragma once
// Start-up configuration of a context. Defaults can come from LAPIS_*
// environment variables (Config::from_env); every field is also readable
// through Context::qenv and most are settable with Context::senv.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "handlers/handler.hpp"
#include "lapi/status.hpp"

namespace lapi {

enum class ProgressMode : std::uint8_t { polling, interrupt };

// End-to-end data integrity (lapi/internal/integrity.hpp): with crc32c every
// byte the core moves for the user carries a CRC32C from the origin's buffer
// to the landing buffer, checked there before anything reports it landed;
// damaged transfers are repeated.
enum class Checksum : std::uint8_t { none, crc32c };

// Transfer paths that fault injection (LAPIS_FAULT_CORRUPT) can damage.
enum CorruptPath : std::uint32_t {
  kCorruptShm = 1u << 0,    // Amsend frames in the shared-memory rings
  kCorruptEager = 1u << 1,  // Amsend frames through UCX, eager
  kCorruptRndv = 1u << 2,   // Amsend data pulled by UCX rendezvous
  kCorruptSplit = 1u << 3,  // Amsend data moved by split copy or staged copy (per chunk)
  kCorruptPut = 1u << 4,
  kCorruptGet = 1u << 5,
  kCorruptRmw = 1u << 6,    // Rmw operands and results
  kCorruptAll = (1u << 7) - 1,
};

// Tests only: flip one bit in one transfer in `every` (counted per path,
// first transmissions only; with every = 1 all transmissions, so that the
// operations fail) on the paths in `paths`, at the destination just before
// the checksum is checked. Needs Checksum::crc32c.
struct FaultCorrupt {
  std::uint32_t paths = 0;  // CorruptPath bits; 0 = off
  std::uint32_t every = 0;
};

// The methods a job may use between its tasks (LAPIS_TRANSPORTS; Nexus'
// per-job choice). shm: within a host, the core's shared-memory rings and
// split copy, and UCX's shared-memory transports; tcp: UCX over TCP (across
// hosts, or within one host over loopback). Each peer's path is chosen
// once, at init, among the allowed ones (Context::path_of).
enum Transport : std::uint8_t {
  kTransportShm = 1u << 0,
  kTransportTcp = 1u << 1,
  kTransportsAll = kTransportShm | kTransportTcp,
};

struct Config {
  ProgressMode mode = ProgressMode::polling;
  CompletionPolicy policy = CompletionPolicy::inline_run;
  // Amsend data of at least this many bytes goes by UCX rendezvous (pulled
  // zero-copy into the landing buffer); smaller data is sent eagerly.
  std::size_t eager_limit = 8192;
  bool error_checking = true;
  // Interrupt mode: how long the application must stay out of the library's
  // waits before the progress thread takes over progress from it (while it
  // keeps waiting back to back, only it polls: one wake-up per message).
  // Context::hand_over_progress() ends the grace early.
  std::uint32_t takeover_grace_us = 50;
  // Interrupt mode: the nice value the progress thread asks for (-20..19).
  // A thread woken to land a message must preempt the application thread
  // computing on its core; at the application's own priority Linux's EEVDF
  // scheduler sometimes lets it wait for the next tick (~2 ms at HZ=250),
  // which was half of the paper's interrupt-test mean. Going below the
  // process's nice needs CAP_SYS_NICE or RLIMIT_NICE: without them the
  // thread takes the lowest value RLIMIT_NICE allows, with a warning only
  // when the value was set explicitly (progress_nice_set).
  int progress_nice = -20;
  bool progress_nice_set = false;
  // Nexus' skip poll: while UCX has been quiet and shared-memory rings are
  // watched, UCX is progressed once every this many polls (1: every poll).
  // An idle ucp_worker_progress costs several times a look at the rings,
  // more with TCP peers (see lapi/internal/progress.cc).
  std::uint32_t ucx_quiet_every = 16;
  // Small Amsends to tasks on the same node go through rings in shared
  // memory instead of UCX (see lapi/internal/shm_channel.hpp).
  bool shm = true;
  // Transport bits (above). Without kTransportShm the rings and split copy
  // are off and UCX keeps to TCP; without kTransportTcp UCX keeps to shared
  // memory, and a task on another host is an init error. A UCX_TLS the
  // user set wins over the UCX part.
  std::uint8_t transports = kTransportsAll;
  // Per-pair rules, as LAPIS_PATHS reads them: HOSTA-HOSTB=shm|tcp[;...]
  // (lapi/internal/path_rules.hpp). Empty: the automatic choice for all.
  std::string paths;
  // Large Amsends (from split_min below, 16 KiB at least) to tasks
  // on the same node are copied by both tasks at once, in parts, with
  // cross-memory attach (see lapi/internal/split_copy.cc). Needs `shm`.
  // Left off on a host with more of the job's tasks than cores online,
  // where the two copiers share cores (connect.cc says what that cost),
  // unless `split_copy_always` (LAPIS_SPLIT_COPY=1; unset or `auto`: on
  // while every task may have a core; `0`: off).
  bool split_copy = true;
  bool split_copy_always = false;
  // Large Amsends with an origin counter to a task on this node go through
  // the target's staging area (lapi/internal/staged_copy.cc): what split
  // copy would take, and from 64 KiB below its threshold. LAPIS_STAGED_COPY=0:
  // split copy (with checksums, its two CRC passes) and UCX as before.
  bool staged_copy = true;
  // The smallest Amsend data split copy takes (16 KiB at least); 0: the
  // eager limit. Below the eager limit it takes data that would otherwise
  // go through UCX's eager copy-in/copy-out: the MPI layer keeps a 128 KiB
  // eager limit for tasks split copy cannot reach and sets 16 KiB here
  // (mpi/internal/runtime.cc says what it measured).
  std::size_t split_min = 0;
  // split_min below the eager limit pays only where a cross-memory read is
  // cheap against the two ordinary copies of UCX's eager path. With
  // `split_min_auto` the task times both at init (a 16 KiB read of its own
  // memory, best of 16) and, where the read costs more than
  // `split_cma_ratio_max` copies, split copy starts at the eager limit
  // instead (split_copy.cc says what was measured). LAPIS_SPLIT_MIN sets
  // split_min and turns this off.
  bool split_min_auto = false;
  double split_cma_ratio_max = 8;
  Checksum checksum = Checksum::none;
  FaultCorrupt fault_corrupt{};
  // The network interface UCX uses (LAPIS_NET_IF; must exist and be up).
  // Empty: loopback for a job on one host, the interface that reaches the
  // launcher for a lapirun job across hosts, UCX's own choice under PMIx.
  // UCX_NET_DEVICES, when set, wins over all of these.
  std::string net_if;
  // Striping (LAPIS_LINKS, lapi/internal/links.hpp): Amsends of stripe_min bytes or more to
  // tasks on other hosts go in fragments over these interfaces (at most kMaxLinks), those the two
  // tasks share; empty: none (UCX alone). LAPIS_STRIPE_MIN: the size. 128 KiB: two fragments
  // at least (links.cc), since a striped Amsend pays a round trip (stripe_go) before its data
  // moves: MPI's 64 KiB latency between two test hosts was 41 us striped against 30 through
  // UCX, and from 256 KiB on the two were even.
  static constexpr std::size_t kMaxLinks = 4;
  std::vector<std::string> links;
  std::size_t stripe_min = 128 * 1024;
  // The call that ends this task's part in the job, as the user knows it:
  // under lapirun a task that exits without it while others still run ends
  // the job with "rank R exited ... without calling <leave_call>". APIs
  // layered on the core name their own (LAPI_Term, MPI_Finalize).
  std::string leave_call = "lapi::Context::term";

  // Reads LAPIS_MODE (polling|interrupt), LAPIS_POLICY (inline|thread|fiber),
  // LAPIS_AM_EAGER_LIMIT (bytes), LAPIS_ERROR_CHECK (0|1) and
  // LAPIS_TAKEOVER_GRACE_US (microseconds), LAPIS_PROGRESS_NICE (-20..19),
  // LAPIS_UCX_POLL_EVERY (1..4096),
  // LAPIS_SHM (0|1), LAPIS_TRANSPORTS (shm,tcp: a list of one or both),
  // LAPIS_PATHS (HOSTA-HOSTB=shm|tcp[;...]; its hosts are checked at init),
  // LAPIS_SPLIT_COPY (0|1), LAPIS_CHECKSUM (none|crc32c), LAPIS_NET_IF, LAPIS_LINKS
  // (IF[,IF...]), LAPIS_STRIPE_MIN (bytes) and
  // LAPIS_FAULT_CORRUPT (PATH[,PATH...]:N, PATH one of shm, eager, rndv,
  // split, put, get, all) over the given defaults. An invalid value is an
  // Errc::set_val error naming the variable.
  static Status from_env(Config& config);
};

std::string_view to_string(ProgressMode mode);
std::string_view to_string(CompletionPolicy policy);
std::string_view to_string(Checksum checksum);

}  // namespace lapi
