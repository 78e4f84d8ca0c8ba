// Windows: handles, creation and destruction, completion and passive-target
// locks (window.hpp).
#include "mpi/internal/rma/window.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/rma/apply.hpp"
#include "mpi/internal/rma/protocol.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi::rma {

HandleTable<WinPtr>& g_window_table = *new HandleTable<WinPtr>{HandleKind::win};

namespace {

lapi::TaskId world(const Window& win, int rank) {
  return static_cast<lapi::TaskId>(win.comm->world_of(rank));
}

int lapi_error(const char* what, const lapi::Status& st) {
  return fail(MPI_ERR_OTHER, "{}: {}", what, st.message());
}

// Waits until `counter` moved `n` times (and takes them).
int wait_counter(lapi::Counter& counter, int& n, const char* what) {
  if (n == 0) return MPI_SUCCESS;
  // Usually done already (a put that finished at once, an answer that
  // came while waiting for another): no trip through the progress engine.
  if (counter.error() == 0 && counter.try_consume(n)) {
    n = 0;
    return MPI_SUCCESS;
  }
  lapi::Status st = lapi_context().waitcntr(counter, n);
  n = 0;
  if (!st.ok()) return lapi_error(what, st);
  return MPI_SUCCESS;
}

int take_remote_error(Window& win) {
  const int cls = win.remote_error.load(std::memory_order_acquire);
  if (cls == 0) return MPI_SUCCESS;
  set_error_detail(win.remote_error_detail);
  win.remote_error.store(0, std::memory_order_relaxed);
  return cls;
}

// One atomic on a target's lock word; returns the old value.
int lock_rmw(Window& win, int target, lapi::RmwOp op, std::int64_t operand, std::int64_t compare,
             std::int64_t& prev) {
  lapi::Context& ctx = lapi_context();
  lapi::Counter done;
  lapi::Status st = ctx.rmw64(op, world(win, target), win.targets[static_cast<std::size_t>(target)].lock_word,
                              operand, compare, &prev, &done);
  if (st.ok()) st = ctx.waitcntr(done, 1);
  if (!st.ok()) return lapi_error("lock word", st);
  return MPI_SUCCESS;
}

// MPI_Win_allocate_shared: one segment for the node, each rank's part at
// its offset (in rank order, each rounded up to 64 bytes), mapped by all.
int map_shared(Window& win, MPI_Aint size) {
  struct Entry {
    std::uint64_t size;
    char host[64];
    char name[64];
  };
  const Comm& comm = *win.comm;
  const auto n = static_cast<std::size_t>(comm.size());
  Entry mine{};
  mine.size = static_cast<std::uint64_t>(size);
  gethostname(mine.host, sizeof mine.host - 1);
  std::vector<char> raw;
  if (int rc = internal_allgather(comm, &mine, sizeof mine, raw)) return rc;
  std::vector<Entry> all(n);
  std::memcpy(all.data(), raw.data(), n * sizeof(Entry));
  win.shm_offset.assign(n, 0);
  win.shm_size.assign(n, 0);
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (std::strncmp(all[r].host, all[0].host, sizeof mine.host) != 0) {
      return fail(MPI_ERR_RMA_SHARED, "ranks 0 and {} of comm are on different hosts ({}, {})", r,
                  all[0].host, all[r].host);
    }
    win.shm_offset[r] = total;
    win.shm_size[r] = all[r].size;
    total += (all[r].size + 63) / 64 * 64;
  }
  win.shm_len = total > 0 ? total : 64;
  // Rank 0 creates the segment and names it; the others open that name.
  static unsigned serial = 0;
  if (comm.rank == 0) {
    std::snprintf(mine.name, sizeof mine.name, "/lapis-win-%d-%u", static_cast<int>(getpid()), serial++);
  }
  int fd = -1;
  if (comm.rank == 0) {
    fd = shm_open(mine.name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd >= 0 && ftruncate(fd, static_cast<off_t>(win.shm_len)) != 0) {
      close(fd);
      fd = -1;
    }
  }
  if (int rc = internal_allgather(comm, &mine, sizeof mine, raw)) return rc;
  std::memcpy(all.data(), raw.data(), n * sizeof(Entry));
  if (comm.rank != 0) fd = shm_open(all[0].name, O_RDWR, 0600);
  void* p = fd >= 0 ? mmap(nullptr, win.shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (fd >= 0) close(fd);
  // Everyone mapped it (or failed): the name may go.
  if (int rc = internal_barrier(comm)) return rc;
  if (comm.rank == 0) shm_unlink(mine.name);
  if (p == MAP_FAILED) {
    return fail(MPI_ERR_NO_MEM, "cannot map a shared segment of {} bytes: {}", win.shm_len,
                std::strerror(errno));
  }
  win.shm_base = p;
  win.base = static_cast<std::byte*>(p) + win.shm_offset[static_cast<std::size_t>(comm.rank)];
  return MPI_SUCCESS;
}

}  // namespace

int lookup_window(MPI_Win handle, Window*& out) {
  out = find_window(handle);
  if (out != nullptr) return MPI_SUCCESS;
  if (handle == MPI_WIN_NULL) return fail(MPI_ERR_WIN, "win is MPI_WIN_NULL");
  return fail(MPI_ERR_WIN, "win={:#x} is not a window", handle);
}

int raise_win(const Window* win, const char* function, int code) {
  if (code == MPI_SUCCESS) return code;
  if (win == nullptr) return raise(nullptr, function, code);
  const ErrhandlerPtr& h = win->errhandler;
  if (!h || h->kind == Errhandler::Kind::fatal) fatal_error(function, code, error_detail());
  if (h->kind == Errhandler::Kind::user && h->fn != nullptr) {
    MPI_Win handle = win->handle;
    return call_user_errhandler(*h, ErrObject::win, &handle, code);
  }
  return code;
}

int create_window(const CommPtr& comm, void* base, MPI_Aint size, int disp_unit, int flavor,
                  void** allocated, MPI_Win* out) {
  if (int rc = ensure_protocol_registered()) return rc;
  lapi::Context& ctx = lapi_context();
  auto win = std::make_shared<Window>();
  win->self = win;
  // The window's own communicator: its synchronisation messages (barriers,
  // post/complete notes) never meet the program's traffic on `comm`.
  {
    std::vector<CreateEntry> all;
    int slot = -1;
    if (int rc = exchange_and_agree(*comm, 0, comm->rank, all, slot)) return rc;
    MPI_Comm h = MPI_COMM_NULL;
    if (int rc = register_comm(*comm, comm->group->members(), slot, &h)) return rc;
    win->comm = *state().comms.find(h);
    state().comms.erase(h);
  }
  win->size = size;
  win->disp_unit = disp_unit;
  win->flavor = flavor;
  win->errhandler = fatal_errhandler();
  const auto n = static_cast<std::size_t>(comm->size());
  TargetInfo mine;
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    void* p = nullptr;
    if (lapi::Status st = ctx.alloc_registered(size > 0 ? static_cast<std::size_t>(size) : 1, p); !st.ok()) {
      return fail(MPI_ERR_NO_MEM, "cannot allocate {} registered bytes: {}", size, st.message());
    }
    win->allocated_here = true;
    win->base = p;
    *allocated = p;
    mine.registered = 1;
  } else {
    if (flavor == MPI_WIN_FLAVOR_SHARED) {
      if (int rc = map_shared(*win, size)) return rc;
      base = win->base;
      *allocated = base;
    }
    win->base = base;
    // Memory the core registered already (MPI_Alloc_mem) cannot be
    // registered again at the same address; lapi reaches it anyway. Any
    // other failure leaves this rank's part to the Amsend path.
    if (size > 0) {
      lapi::Status st = ctx.register_memory(base, static_cast<std::size_t>(size));
      win->registered_here = st.ok();
      mine.registered = st.ok() || st.code() == lapi::Errc::set_val;
    }
  }
  void* word = nullptr;
  if (lapi::Status st = ctx.alloc_registered(kLockWordsBytes, word); !st.ok()) {
    return fail(MPI_ERR_NO_MEM, "cannot allocate a lock word: {}", st.message());
  }
  win->lock_word = static_cast<std::uint64_t*>(word);
  std::memset(word, 0, kLockWordsBytes);
  win->answers.resize(n);
  for (auto& a : win->answers) a = std::make_unique<lapi::Counter>();
  win->requests_out.assign(n, 0);
  win->seq_out.assign(n, 0);
  win->rma_out.assign(n, 0);
  win->next_seq.assign(n, 1);
  win->early.resize(n);
  win->held.assign(n, Held::none);
  win->nocheck.assign(n, 0);
  win->in_access.assign(n, 0);
  win->id = register_window(win);

  mine.base = reinterpret_cast<std::uint64_t>(win->base);
  mine.size = static_cast<std::uint64_t>(size);
  mine.disp_unit = disp_unit;
  mine.lock_word = reinterpret_cast<std::uint64_t>(word);
  mine.win_id = win->id;
  std::vector<char> all;
  if (int rc = internal_allgather(*win->comm, &mine, sizeof mine, all)) return rc;
  win->targets.resize(n);
  std::memcpy(win->targets.data(), all.data(), n * sizeof(TargetInfo));
  // Learn every key now, while every rank is in the library: later accesses
  // then need nothing from a passive target's progress engine.
  // And, where the core maps a target's memory here, where it is.
  win->mapped.assign(n, nullptr);
  win->mapped_acc.assign(n, nullptr);
  win->mapped_out.assign(n, 0);
  bool maps_all = flavor != MPI_WIN_FLAVOR_DYNAMIC;
  for (std::size_t r = 0; r < n; ++r) {
    TargetInfo& t = win->targets[r];
    const auto w = static_cast<lapi::TaskId>(comm->world_of(static_cast<int>(r)));
    if (t.registered && t.size > 0 && !ctx.prefetch_key(w, t.base, t.size).ok()) t.registered = 0;
    if (lapi::Status st = ctx.prefetch_key(w, t.lock_word, kLockWordsBytes); !st.ok()) {
      return lapi_error("fetching a lock word's key", st);
    }
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC || t.size == 0) continue;  // nothing to map
    void* p = nullptr;
    if (flavor == MPI_WIN_FLAVOR_SHARED) {
      // The node's segment is mapped here already.
      p = static_cast<std::byte*>(win->shm_base) + win->shm_offset[r];
    } else if (!t.registered || !ctx.map_remote(w, t.base, t.size, p).ok()) {
      p = nullptr;
    }
    void* words = nullptr;
    if (p != nullptr && ctx.map_remote(w, t.lock_word, kLockWordsBytes, words).ok()) {
      win->mapped[r] = static_cast<std::byte*>(p);
      win->mapped_acc[r] = acc_word_of(static_cast<std::uint64_t*>(words));
    } else {
      maps_all = false;
    }
  }
  // Locked mode only if every rank maps every target (apply.hpp).
  {
    const char mine_maps = maps_all ? 1 : 0;
    std::vector<char> every;
    if (int rc = internal_allgather(*win->comm, &mine_maps, 1, every)) return rc;
    win->locked = std::all_of(every.begin(), every.end(), [](char c) { return c == 1; });
  }
  if (int rc = internal_barrier(*win->comm)) return rc;
  win->handle = window_table().insert(win);
  *out = win->handle;
  return MPI_SUCCESS;
}

int free_window(MPI_Win handle) {
  WinPtr win = *window_table().find(handle);
  lapi::Context& ctx = lapi_context();
  if (int rc = flush_all(*win)) return rc;
  // Every rank's accesses to us are complete once all are here.
  if (int rc = internal_barrier(*win->comm)) return rc;
  unregister_window(win->id);
  lapi::Status st;
  if (win->registered_here) st = ctx.deregister_memory(win->base);
  if (win->allocated_here) st = ctx.free_registered(win->base);
  if (win->shm_base != nullptr) munmap(win->shm_base, win->shm_len);
  if (st.ok()) st = ctx.free_registered(win->lock_word);
  if (!st.ok()) return lapi_error("releasing window memory", st);
  // Deregistration waits for peers to drop our keys: stay until all did.
  if (int rc = internal_barrier(*win->comm)) return rc;
  window_table().erase(handle);
  reap_answers();
  return MPI_SUCCESS;
}

bool mapped_call_due(Window& win) { return (++win.mapped_calls & (kMappedProgressEvery - 1)) == 0; }

int flush_target(Window& win, int target) {
  const auto t = static_cast<std::size_t>(target);
  win.mapped_out[t] = 0;
  if (win.rma_out[t]) {
    win.rma_out[t] = 0;
    if (lapi::Status st = lapi_context().flush_rma(world(win, target)); !st.ok()) {
      return lapi_error("lapi flush_rma", st);
    }
  }
  if (int rc = wait_counter(win.local_done, win.local_out, "put/get completion")) return rc;
  if (int rc = wait_counter(*win.answers[t], win.requests_out[t], "waiting for answers")) return rc;
  return take_remote_error(win);
}

int flush_all(Window& win) {
  int first = MPI_SUCCESS;
  for (int r = 0; r < win.size_of_group(); ++r) {
    const int rc = flush_target(win, r);
    if (first == MPI_SUCCESS) first = rc;
  }
  return first;
}

namespace {

// Waits between attempts on a lock word someone else holds: polls this
// task's progress (others' passive-target requests to it must go on) and
// yields the core (the holder may be a rank on it), for a time that doubles
// from 1 us up to `cap`. Without it every rank retried at once, each retry a
// remote atomic, so the lock word's target served a flood of failing
// attempts and a waiting writer lost every race to the readers.
class LockBackoff {
 public:
  explicit LockBackoff(std::chrono::microseconds cap) : cap_(cap) {}
  void wait() {
    lapi::Context& ctx = lapi_context();
    const auto until = std::chrono::steady_clock::now() + delay_;
    do {
      (void)ctx.probe();
      sched_yield();
    } while (std::chrono::steady_clock::now() < until);
    delay_ = std::min(delay_ * 2, cap_);
  }

 private:
  std::chrono::microseconds delay_{1};
  std::chrono::microseconds cap_;
};

// A waiting writer looks again soon (its turn comes as the last reader
// leaves); a reader stepping back waits out a whole exclusive epoch.
constexpr std::chrono::microseconds kWriterBackoffCap{32};
constexpr std::chrono::microseconds kReaderBackoffCap{256};
// How often a new writer defers to a waiting one (ExclusiveStep::defer): with
// the backoff doubling to kWriterBackoffCap, about 130 us, four of the waiting
// writer's retries at least.
constexpr int kMaxDefers = 8;

int acquire_exclusive(Window& win, int target) {
  LockBackoff backoff(kWriterBackoffCap);
  std::uint64_t expected = 0;
  int deferred = 0;
  for (;;) {
    std::int64_t prev = 0;
    if (int rc = lock_rmw(win, target, lapi::RmwOp::compare_and_swap,
                          static_cast<std::int64_t>(kLockExclusive), static_cast<std::int64_t>(expected),
                          prev)) {
      return rc;
    }
    const auto seen = static_cast<std::uint64_t>(prev);
    switch (exclusive_step(expected, seen, deferred < kMaxDefers)) {
      case ExclusiveStep::taken:
        return MPI_SUCCESS;
      case ExclusiveStep::defer:
        ++deferred;
        backoff.wait();
        continue;  // expected stays 0: the waiting writer's swap goes first
      case ExclusiveStep::swap_again:
        expected = seen;
        continue;
      case ExclusiveStep::raise_flag:
        if (int rc = lock_rmw(win, target, lapi::RmwOp::fetch_and_or,
                              static_cast<std::int64_t>(kLockWriterWaiting), 0, prev)) {
          return rc;
        }
        break;
      case ExclusiveStep::back_off:
        break;
    }
    expected = kLockWriterWaiting;  // what the word holds once the holders are gone
    backoff.wait();
  }
}

int acquire_shared(Window& win, int target) {
  LockBackoff backoff(kReaderBackoffCap);
  for (;;) {
    std::int64_t prev = 0;
    if (int rc = lock_rmw(win, target, lapi::RmwOp::fetch_and_add, 1, 0, prev)) return rc;
    if (shared_lock_taken(static_cast<std::uint64_t>(prev))) return MPI_SUCCESS;
    if (int rc = lock_rmw(win, target, lapi::RmwOp::fetch_and_add, -1, 0, prev)) return rc;
    backoff.wait();
  }
}

}  // namespace

int acquire_lock(Window& win, int target, Held kind) {
  if (int rc = kind == Held::exclusive ? acquire_exclusive(win, target) : acquire_shared(win, target)) {
    return rc;
  }
  win.held[static_cast<std::size_t>(target)] = kind;
  return MPI_SUCCESS;
}

int release_lock(Window& win, int target) {
  const auto t = static_cast<std::size_t>(target);
  const std::int64_t delta =
      win.held[t] == Held::exclusive ? -static_cast<std::int64_t>(kLockExclusive) : -1;
  win.held[t] = Held::none;
  std::int64_t prev = 0;
  return lock_rmw(win, target, lapi::RmwOp::fetch_and_add, delta, 0, prev);
}

}  // namespace mpi::rma
