#pragma once
// Failed peers (peer_failures.cc: lapirun --continue-on-failure, and UCX's
// endpoint errors). Two sides with different locks:
//   * noting: any thread (the bootstrap's listener, a UCX error callback)
//     appends under `mutex` and bumps `epoch` (note());
//   * absorbing: the engine (poll_once, wait_until) sees `epoch` move past
//     `absorbed_epoch`, takes the notes (take_notes()), sets `failed[task]`,
//     `any_failed` and `last_failed`, runs `hooks`, then sets `announced[task]`.
// Readers on the operation paths (am_send.cc, rma.cc, sync.cc, memory.cc)
// only load the atomics. `hooks` is changed under the engine's lock_;
// `watching` only by start() and shutdown().

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lapi/context.hpp"

namespace lapi::internal {

struct PeerFailureHook {
  PeerFailureHandler fn = nullptr;
  void* arg = nullptr;
};

struct PeerFailures {
  using Notes = std::vector<std::pair<TaskId, std::string>>;

  mutable std::mutex mutex;  // guards notes and why
  bool watching = false;     // registered with the bootstrap (start) until shutdown
  Notes notes;               // noted, not yet absorbed
  std::vector<std::string> why;            // by task, under mutex
  std::unique_ptr<std::atomic<bool>[]> failed;  // by task, set once absorbed: operations refuse it
  // By task, set once its failure handlers have run (Context::peer_failed): a thread that sees
  // the failure there sees what the handlers did, whichever thread absorbed it.
  std::unique_ptr<std::atomic<bool>[]> announced;
  std::atomic<bool> any_failed{false};
  std::atomic<bool> any_job_failed{false};  // a task of this job (not one joined from another)
  std::atomic<std::uint32_t> epoch{0};  // bumped by every note
  std::atomic<std::uint32_t> absorbed_epoch{0};
  std::atomic<TaskId> last_failed{0};  // the latest task absorbed, for an interrupted wait's message
  std::array<PeerFailureHook, Context::kMaxPeerFailureHandlers> hooks{};

  // At start(), before any note can come: nobody failed among `ntasks`.
  void size_for(std::uint32_t ntasks) {
    failed = std::make_unique<std::atomic<bool>[]>(ntasks);
    announced = std::make_unique<std::atomic<bool>[]>(ntasks);
    why.assign(ntasks, std::string());
  }
  // Any thread: takes note that `task` failed.
  void note(TaskId task, const std::string& reason) {
    std::lock_guard<std::mutex> g(mutex);
    notes.emplace_back(task, reason);
    epoch.fetch_add(1, std::memory_order_release);
  }
  // Whether notes came since the last take_notes() (one relaxed comparison:
  // poll_once asks on every poll).
  bool unabsorbed() const {
    return epoch.load(std::memory_order_relaxed) != absorbed_epoch.load(std::memory_order_relaxed);
  }
  // The engine: the notes since the last call, their reasons kept by task
  // (the first one heard wins).
  Notes take_notes() {
    Notes fresh;
    std::lock_guard<std::mutex> g(mutex);
    fresh.swap(notes);
    for (const auto& [task, reason] : fresh) {
      if (why[task].empty()) why[task] = reason.empty() ? "failed" : reason;
    }
    absorbed_epoch.store(epoch.load(std::memory_order_acquire), std::memory_order_release);
    return fresh;
  }
  // A joined task that left (join.cc): refused like a failed one, no hooks run.
  void mark_left(TaskId task) {
    {
      std::lock_guard<std::mutex> g(mutex);
      if (why[task].empty()) why[task] = "it left: leave_tasks, MPI_Comm_disconnect";
    }
    failed[task].store(true, std::memory_order_release);
    announced[task].store(true, std::memory_order_release);
    any_failed.store(true, std::memory_order_release);
  }
  // Why `task` failed (empty: not known to have failed, or out of range).
  std::string reason(TaskId task) const {
    std::lock_guard<std::mutex> g(mutex);
    return task < why.size() ? why[task] : std::string();
  }
  // Adds a hook, or gives a hook already there its new argument; false when
  // every slot is taken. Caller holds the engine's lock_.
  bool add_hook(PeerFailureHandler fn, void* arg) {
    for (auto& hook : hooks) {
      if (hook.fn == fn) {  // added again (a layer's next instance): the new argument
        hook.arg = arg;
        return true;
      }
    }
    for (auto& hook : hooks) {
      if (hook.fn == nullptr) {
        hook = {fn, arg};
        return true;
      }
    }
    return false;
  }
};

}  // namespace lapi::internal
