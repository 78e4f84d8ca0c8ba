// Window synchronisation: MPI_Win_fence (active target), MPI_Win_lock /
// unlock / lock_all / unlock_all (passive target), MPI_Win_flush and its
// -all / -local forms, MPI_Win_sync.
#include <atomic>
#include <mutex>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/rma/window.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;
using mpi::rma::Held;
using mpi::rma::raise_win;
using mpi::rma::Window;

namespace {

constexpr int kAllAsserts =
    MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

int check_assert(int assert) {
  if ((assert & ~kAllAsserts) == 0) return MPI_SUCCESS;
  return fail(MPI_ERR_ASSERT, "assert={:#x} has bits that are no MPI_MODE_* assertion", assert);
}

int check_rank(const Window& w, int rank) {
  if (rank >= 0 && rank < w.size_of_group()) return MPI_SUCCESS;
  return fail(MPI_ERR_RANK, "rank={} is not in the window's group (0..{})", rank, w.size_of_group() - 1);
}

bool any_lock(const Window& w) {
  if (w.lock_all) return true;
  for (Held h : w.held) {
    if (h != Held::none) return true;
  }
  return false;
}

// A flush with nothing outstanding (not even a copy into mapped window
// memory since the last flush), or MPI_Win_sync, is how programs poll
// their own window (OpenCoarrays' event wait spins on MPI_Win_sync and a
// flush to itself while others accumulate into it): accumulates run in
// this rank's handlers, so such a call must drive progress, or in polling
// mode the origin's unlock waits for ever. A flush that waits drives it
// already (waitcntr).
void progress_if_idle(Window& w, int target) {
  const auto t = static_cast<std::size_t>(target);
  if (w.rma_out[t] != 0 || w.local_out != 0 || w.requests_out[t] != 0) return;
  if (w.mapped_out[t] == 0 || rma::mapped_call_due(w)) (void)engine().progress();
}

// Opens the window call: MPI running and a real window.
#define LAPIS_WIN_CALL_UNUSED

int open(const char* fn, MPI_Win win, Window*& w) {
  if (int rc = check_running(fn)) return rc;
  return rma::lookup_window(win, w);
}

// A passive-target epoch may start when no fence epoch is active (a fence
// that opened one which saw no access yet gives way).
int passive_may_start(Window& w) {
  if (w.fence_epoch && w.ops_since_fence) {
    return fail(MPI_ERR_RMA_SYNC, "a fence epoch with accesses is active on win");
  }
  // Access epochs on one window must be disjoint (MPI 3.1 section 11.5).
  if (!w.access_group.empty()) {
    return fail(MPI_ERR_RMA_SYNC, "an access epoch of MPI_Win_start is open on win");
  }
  w.fence_epoch = false;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Win_fence(int assert, MPI_Win win) {
  const ApiCall call("MPI_Win_fence");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_fence";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  int rc = check_assert(assert);
  if (rc == MPI_SUCCESS && any_lock(*w)) {
    rc = fail(MPI_ERR_RMA_SYNC, "a passive-target epoch (MPI_Win_lock) is open on win");
  }
  if (rc == MPI_SUCCESS && (w->exposure || !w->access_group.empty())) {
    rc = fail(MPI_ERR_RMA_SYNC, "a post/start epoch is open on win");
  }
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  rc = rma::flush_all(*w);
  // Everyone's accesses are complete at their targets once all are here.
  const int barrier = internal_barrier(*w->comm);
  if (rc == MPI_SUCCESS) rc = barrier;
  w->fence_epoch = (assert & MPI_MODE_NOSUCCEED) == 0;
  w->ops_since_fence = false;
  return raise_win(w, kFn, rc);
}

extern "C" int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const ApiCall call("MPI_Win_lock");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_lock";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  int rc = MPI_SUCCESS;
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
    rc = fail(MPI_ERR_LOCKTYPE, "lock_type={} is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
              lock_type);
  }
  if (rc == MPI_SUCCESS) rc = check_assert(assert);
  if (rc == MPI_SUCCESS && rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rc == MPI_SUCCESS) rc = check_rank(*w, rank);
  if (rc == MPI_SUCCESS && (w->lock_all || w->held[static_cast<std::size_t>(rank)] != Held::none)) {
    rc = fail(MPI_ERR_RMA_SYNC, "win is already locked at rank {}", rank);
  }
  if (rc == MPI_SUCCESS) rc = passive_may_start(*w);
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  const Held kind = lock_type == MPI_LOCK_EXCLUSIVE ? Held::exclusive : Held::shared;
  const auto t = static_cast<std::size_t>(rank);
  w->nocheck[t] = (assert & MPI_MODE_NOCHECK) != 0;
  if (w->nocheck[t]) {
    // The program promises no conflicting lock: no lock word traffic.
    w->held[t] = kind;
    return MPI_SUCCESS;
  }
  return raise_win(w, kFn, rma::acquire_lock(*w, rank, kind));
}

extern "C" int MPI_Win_unlock(int rank, MPI_Win win) {
  const ApiCall call("MPI_Win_unlock");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_unlock";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_rank(*w, rank);
  if (rc == MPI_SUCCESS && w->held[static_cast<std::size_t>(rank)] == Held::none) {
    rc = fail(MPI_ERR_RMA_SYNC, "win is not locked at rank {}", rank);
  }
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  rc = rma::flush_target(*w, rank);
  if (w->nocheck[static_cast<std::size_t>(rank)]) {
    w->held[static_cast<std::size_t>(rank)] = Held::none;
  } else {
    const int released = rma::release_lock(*w, rank);
    if (rc == MPI_SUCCESS) rc = released;
  }
  return raise_win(w, kFn, rc);
}

extern "C" int MPI_Win_lock_all(int assert, MPI_Win win) {
  const ApiCall call("MPI_Win_lock_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_lock_all";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  int rc = check_assert(assert);
  if (rc == MPI_SUCCESS && any_lock(*w)) rc = fail(MPI_ERR_RMA_SYNC, "win is already locked");
  if (rc == MPI_SUCCESS) rc = passive_may_start(*w);
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  const bool nocheck = (assert & MPI_MODE_NOCHECK) != 0;
  for (int r = 0; r < w->size_of_group(); ++r) {
    w->nocheck[static_cast<std::size_t>(r)] = nocheck;
    if (nocheck) {
      w->held[static_cast<std::size_t>(r)] = Held::shared;
    } else if (int e = rma::acquire_lock(*w, r, Held::shared)) {
      return raise_win(w, kFn, e);
    }
  }
  w->lock_all = true;
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_unlock_all(MPI_Win win) {
  const ApiCall call("MPI_Win_unlock_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_unlock_all";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (!w->lock_all) return raise_win(w, kFn, fail(MPI_ERR_RMA_SYNC, "win is not locked by MPI_Win_lock_all"));
  int rc = rma::flush_all(*w);
  for (int r = 0; r < w->size_of_group(); ++r) {
    if (w->nocheck[static_cast<std::size_t>(r)]) {
      w->held[static_cast<std::size_t>(r)] = Held::none;
      continue;
    }
    const int released = rma::release_lock(*w, r);
    if (rc == MPI_SUCCESS) rc = released;
  }
  w->lock_all = false;
  return raise_win(w, kFn, rc);
}

namespace {

// MPI_Win_flush and MPI_Win_flush_local (the origin's buffers are free
// once the access completed at the target, so both wait for that).
int flush_one(const char* fn, int rank, MPI_Win win) {
  Window* w = nullptr;
  if (int rc = open(fn, win, w)) return raise(nullptr, fn, rc);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  int rc = check_rank(*w, rank);
  if (rc == MPI_SUCCESS && !w->lock_all && w->held[static_cast<std::size_t>(rank)] == Held::none) {
    rc = fail(MPI_ERR_RMA_SYNC, "no passive-target epoch to rank {} is open on win", rank);
  }
  if (rc == MPI_SUCCESS) {
    progress_if_idle(*w, rank);
    rc = rma::flush_target(*w, rank);
  }
  return raise_win(w, fn, rc);
}

int flush_every(const char* fn, MPI_Win win) {
  Window* w = nullptr;
  if (int rc = open(fn, win, w)) return raise(nullptr, fn, rc);
  if (!any_lock(*w)) {
    return raise_win(w, fn, fail(MPI_ERR_RMA_SYNC, "no passive-target epoch is open on win"));
  }
  (void)engine().progress();  // as progress_if_idle, for any target
  return raise_win(w, fn, rma::flush_all(*w));
}

}  // namespace

extern "C" int MPI_Win_flush(int rank, MPI_Win win) {
  const ApiCall call("MPI_Win_flush");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return flush_one("MPI_Win_flush", rank, win);
}

extern "C" int MPI_Win_flush_local(int rank, MPI_Win win) {
  const ApiCall call("MPI_Win_flush_local");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return flush_one("MPI_Win_flush_local", rank, win);
}

extern "C" int MPI_Win_flush_all(MPI_Win win) {
  const ApiCall call("MPI_Win_flush_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return flush_every("MPI_Win_flush_all", win);
}

extern "C" int MPI_Win_flush_local_all(MPI_Win win) {
  const ApiCall call("MPI_Win_flush_local_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return flush_every("MPI_Win_flush_local_all", win);
}

extern "C" int MPI_Win_sync(MPI_Win win) {
  const ApiCall call("MPI_Win_sync");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_sync";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  // The unified model: public and private copies are the same memory. The
  // window's lock orders this thread's accesses after those the target-side
  // handlers made (they run under it, maybe on lapi's threads); the fence
  // orders them against other processes' stores.
  (void)engine().progress();
  { std::lock_guard lock(w->acc_lock); }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}
