#pragma once
// How a waiting thread spends a poll that found nothing (idle_backoff,
// progress.cc): spin, then yield the core, then sleep on the event fd.
//
// How long to spin before the first yield is learnt from the yields
// themselves. A sched_yield is a system call even when nobody else wants
// the core (1.3 us on a PVM guest, where every system call costs about
// 1 us), and a message that lands meanwhile waits for it to return: with a
// fixed 128 polls before yielding, a ping-pong whose reply took longer
// than those polls paid a yield per message (lapi_latency --op amsend,
// 4 KiB 1.75 us against 1.14 with 2000 polls, 8000 B 2.2 against 1.55;
// 2 KiB, answered within the polls, 0.8 either way). Yet on a host with
// more runnable tasks than cores (8 ranks on 2), a yield is what lets the
// task being waited for run. So: a yield that comes back at once
// (kQuietYieldNs: nobody else ran) doubles the time this thread spins
// before its next first yield, up to kMaxSpinNs; one that lets another
// task run drops it back to none. Contended cores keep the old
// behaviour, quiet ones stop paying system calls on short waits. Nothing is
// learnt where the job alone has more tasks on the host than cores (a
// yield that finds its own core free says nothing of the task waited for,
// queued on the other: mpi_coll alltoall of 8 B at 4 ranks on 2 cores,
// 9-11 us yielding after 128 polls, 16 us learning) or where a handler
// thread runs the completions waited for (its sleeps make the yields look
// quiet, and then it waits behind the spinner: the thread policy's MPI
// ping-pong, mpi_paper_latency base, 9 us yielding, 61 us learning).

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace lapi::internal {

// The clock and the yield, replaceable in tests (tests/core/idle_spin_test.cc).
struct SystemIdleOs {
  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  static void yield() { sched_yield(); }
};

template <typename Os = SystemIdleOs>
class BasicIdleSpin {
 public:
  // Polls spun before anything else (and all the spinning a contended core gets).
  static constexpr int kSpinPolls = 128;
  // Polls that yield before the waiter sleeps on the event fd.
  static constexpr int kYieldPolls = 4000;
  static constexpr std::int64_t kQuietYieldNs = 5'000;
  static constexpr std::int64_t kMaxSpinNs = 50'000;

  // `yield_early`: spin kSpinPolls only and learn nothing (the engine says when:
  // Context::Impl::waiters_yield_early_).
  explicit BasicIdleSpin(bool yield_early) : learns_(!yield_early) {}

  // One idle poll; true when the waiter should sleep now (it then calls
  // after_sleep and polls on).
  bool idle() {
    ++idle_;
    if (idle_ < kSpinPolls) return false;
    if (idle_ == kSpinPolls) {  // the spin so far ends: what follows starts here
      spin_until_ = learns_ && learnt_spin_ns() != 0 ? now_ns() + learnt_spin_ns() : 0;
      yields_ = 0;
      return false;
    }
    if (spin_until_ != 0) {
      // The clock only every 256 polls: a read costs about 25 ns here, and
      // reading it every 16 cost 1 KiB ping-pongs 5-10% (mpi_latency).
      if ((idle_ & 255) != 0 || now_ns() < spin_until_) return false;
      spin_until_ = 0;
    }
    if (yields_ < kYieldPolls) {
      ++yields_;
      yield(learns_);
      return false;
    }
    return true;
  }

  // Back to yielding after a sleep (the first spin is behind us).
  void after_sleep() {
    idle_ = kSpinPolls + 1;
    yields_ = 0;
  }
  // Something happened: the next idle poll starts over. (On the message
  // path, so one store: the rest is reset when the first spin ends.)
  void busy() { idle_ = 0; }

  // How long this thread spins before its first yield, as learnt (per
  // thread: what a yield costs is a fact about the core it runs on).
  static std::int64_t& learnt_spin_ns() {
    thread_local std::int64_t ns = 0;
    return ns;
  }

 private:
  static std::int64_t now_ns() { return Os::now_ns(); }
  static void yield(bool learn) {
    if (!learn) {
      Os::yield();
      return;
    }
    const std::int64_t start = now_ns();
    Os::yield();
    std::int64_t& learnt = learnt_spin_ns();
    const bool quiet = now_ns() - start < kQuietYieldNs;
    learnt = quiet ? std::min(std::max<std::int64_t>(2 * learnt, 1'000), kMaxSpinNs) : 0;
  }

  bool learns_;
  int idle_ = 0;
  int yields_ = 0;
  std::int64_t spin_until_ = 0;
};

using IdleSpin = BasicIdleSpin<>;

}  // namespace lapi::internal
