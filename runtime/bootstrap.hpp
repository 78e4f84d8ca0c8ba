#pragma once
// How the ranks of one job find each other before any fast transport exists.
//
// A Bootstrap is a slow, out-of-band channel (a Unix socket to `lapirun`, or the PMIx server of
// another launcher) used once per lapi context at Init to swap worker addresses. It is not a data
// path: each collective costs a round trip through the launcher.
#include <cstddef>
#include <functional>
#include <string>
#include <memory>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace lapis::runtime {

struct BootstrapError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Out-of-band exchange used once per lapi context at Init. Collective calls must be made
// by every rank in the same order. Thread-safe: calls are serialized internally.
//
// Collectives block the calling thread in the kernel (no spinning), so oversubscribed hosts are
// fine. After a collective throws, the bootstrap is broken: every later call throws too.
class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank contributes `mine` (any length, may differ per rank); returns all contributions indexed by rank.
  // Throws BootstrapError (with a readable message) on failure (peer died, launcher gone, timeout).
  virtual std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) = 0;
  virtual void barrier() = 0;
  // A barrier of every rank but `failed` (ranks the caller knows to have failed, in any order),
  // for the survivors to meet after a failure. lapirun's launcher knows the survivors itself (a
  // plain barrier); PMIx fences over the others (every survivor must name the same ranks).
  virtual void barrier_without(std::span<const int> failed) {
    (void)failed;
    barrier();
  }
  virtual std::string_view kind() const = 0;  // "lapirun", "pmix", "singleton"
  // A job across hosts under lapirun: the network interface this process reaches the launcher
  // by (the core keeps UCX's network traffic to it). Empty on one host.
  virtual std::string network_interface() const { return {}; }

  // This process takes part in the job from enter_job() until the matching leave_job() (calls
  // nest: a process may run several contexts). A launcher that sees the process end in between
  // reports that it left without calling `leave_call` (e.g. "MPI_Finalize") and ends the job,
  // since the others may be waiting for it. One-way and cheap; no-ops where the launcher
  // cannot be told (singleton, PMIx). Never throws.
  virtual void enter_job(std::string_view leave_call) { (void)leave_call; }
  virtual void leave_job() {}
  // This process is about to end the whole job (MPI_Abort): a launcher that would let the
  // others go on after its exit (--continue-on-failure) ends them all. One-way, best effort
  // (skipped if another thread is in a bootstrap call); never throws.
  virtual void abort_job() {}

  // Under lapirun --continue-on-failure the job goes on when a rank fails (dies, or exits
  // between enter_job and leave_job): `listener` hears of each such rank once, with how it
  // ended, on a thread of the bootstrap's or the caller's (so it must only take note and
  // return). Failures known before the call are replayed to it at once. Later collectives
  // gather the ranks left (an allgather gives a failed rank's slot empty). Nothing happens
  // where the launcher cannot say (singleton, PMIx, a job without the option).
  using FailureListener = std::function<void(int rank, const std::string& why)>;
  virtual void watch_failures(FailureListener listener) { (void)listener; }
};

// The process-wide bootstrap, created on first use (thread-safe): PMIx when PMIX_RANK is set in the
// environment; the lapirun rendezvous when LAPIS_RENDEZVOUS is set; otherwise a singleton (rank 0 of 1).
// Throws BootstrapError if the chosen one cannot start.
//
// Under lapirun the rank also reads LAPIS_RANK and LAPIS_SIZE; LAPIS_BOOTSTRAP_TIMEOUT (seconds,
// optional) bounds each wait for the launcher. The object lives until the process exits (PMIx is
// finalized then).
Bootstrap& process_bootstrap();

}  // namespace lapis::runtime
