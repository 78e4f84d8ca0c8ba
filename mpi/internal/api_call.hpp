#pragma once
// Every MPI function opens with an ApiCall: it serialises the library's
// state between threads in the way the granted thread level needs.
//
// MPI_THREAD_MULTIPLE: one process-wide mutex, the MPI lock, guards all
// MPI-layer state (handle and request tables, communicators, context
// slots, collectives' fibers and tags, keyvals, the attached buffer) and
// serialises the calls into mpcpi and lapi. The outermost call on a thread
// takes it; nested calls (a user callback calling MPI) already hold it.
// A call that waits never sleeps holding it: mpcpi's waits call the idle
// hook (release_for_idle) between polls, which lets other threads send,
// receive, wait and progress meanwhile, and every wait re-checks its
// request once it holds the lock again. (lapi's progress thread, in
// interrupt mode, synchronises with mpcpi through mpcpi's own lock.)
//
// Lower levels: the engine, the request table and the handle tables assume
// one thread inside MPI at a time, and a program that breaks that rule
// used to corrupt them (a repeated sequence number, then MPI_ERR_REQUEST,
// or a UCX assertion). Entering while another thread is inside an MPI call
// is refused with MPI_ERR_OTHER through the error handler.
//
// Cost, outermost calls only (nested calls on one thread are free):
//  - MPI_THREAD_MULTIPLE: a mutex lock and unlock.
//  - MPI_THREAD_SERIALIZED, or any thread but the one that called MPI_Init:
//    one compare-and-swap of a global (a plain load and store would let two
//    threads that enter together both pass: two threads calling MPI in tight
//    loops hit that window within microseconds);
//  - SINGLE and FUNNELED on the main thread (the only thread allowed in):
//    a relaxed load and store, no read-modify-write, so a program that asks
//    for less pays less. A stray thread still takes the compare-and-swap
//    path and is caught, except in the instant both enter together.
// The level is chosen once, in MPI_Init_thread; the SINGLE/FUNNELED path
// does not look at the MULTIPLE flag at all.

#include <sched.h>

#include <atomic>
#include <mutex>

#include "mpi.h"

// The point-to-point calls a message-rate or latency loop makes
// (MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall,
// MPI_Test) get the whole path below them, through mpcpi and lapi, inlined
// into their own bodies. A program calls them through the shared library's
// PLT, so unlike a statically linked one it gets no inlining across its
// calls, and each layer boundary on the way cost its call, prologue and
// register spills: 8 B message rate, callgrind per message, MPI_Isend 742
// -> 555 instructions, MPI_Irecv 544 -> 365, MPI_Waitall 915 -> 751; 15.0
// -> 18.5 M msgs/s alternated. (Cold paths stay out of line: GCC places
// [[unlikely]] blocks apart.) Only in libmpi.so.12 and mpi_paper_latency
// (mpi/BUILD, //mpi:mpi_flattened): the tests link //mpi unflattened, since
// flattened calls made each of their LTO links minutes longer. LTO alone
// does not inline these paths: statically linked, MPI_Send still called
// mpcpi's send, its eager credit and the core's Amsend, 587 instructions
// per 8 B message against 375 flattened (callgrind, mpi_paper_latency).
// Flattening stops only at functions marked noinline, so the paths these
// calls rarely take are marked so (rendezvous and buffered sends, the
// handlers' outbox, collectives, partitioned and generalized requests,
// error reporting, aborting): without them each flattened call was 600-800
// KB of code (MPI_Isend 742 KB, now 41 KB), libmpi.so.12's LTO link took
// 17 minutes (now under 2), and the receiver of an 8-byte message-rate loop ran
// 6% more instructions per message (callgrind, 967 against 907).
#ifdef LAPIS_FLATTEN_HOT_CALLS
#define LAPIS_FLATTEN_HOT_CALL [[gnu::flatten]]
#else
#define LAPIS_FLATTEN_HOT_CALL
#endif

namespace mpi {

namespace detail {
// This thread's depth of MPI calls; its address names the thread inside.
inline thread_local int t_call_depth [[gnu::tls_model("initial-exec")]] = 0;
inline std::atomic<const int*> g_thread_inside{nullptr};
// Set by MPI_Init(_thread): the thread that called it, and whether the level
// granted lets other threads call MPI (SERIALIZED, MULTIPLE).
inline thread_local bool t_main_thread [[gnu::tls_model("initial-exec")]] = false;
inline bool g_any_thread = false;
// MPI_THREAD_MULTIPLE was granted (set once, before other threads may call).
inline bool g_multiple = false;
// The MPI lock (MULTIPLE only) and whether this thread holds it.
inline std::mutex g_mpi_lock;
inline thread_local bool t_holds_lock [[gnu::tls_model("initial-exec")]] = false;
// Drops of the MPI lock while other threads waited for it (~ApiCall).
inline thread_local unsigned t_contended_drops [[gnu::tls_model("initial-exec")]] = 0;
// Threads waiting for the MPI lock (a waiting call yields the CPU to them).
inline std::atomic<int> g_lock_waiters{0};

// Waiters spin, then yield, and never sleep in the kernel: the holder
// gives the lock up within microseconds (calls are short, and waits drop
// it between polls), and a futex wake-up costs several microseconds here
// (2 threads per rank ping-ponging: 7.9 us one-way with a blocking mutex).
inline void take_mpi_lock() {
  if (!g_mpi_lock.try_lock()) {
    g_lock_waiters.fetch_add(1, std::memory_order_relaxed);
    for (unsigned spins = 0; !g_mpi_lock.try_lock(); ++spins) {
      if (spins < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        sched_yield();
      }
    }
    g_lock_waiters.fetch_sub(1, std::memory_order_relaxed);
  }
  t_holds_lock = true;
}
inline void drop_mpi_lock() {
  t_holds_lock = false;
  g_mpi_lock.unlock();
}
}  // namespace detail

class ApiCall {
 public:
  explicit ApiCall(const char* function) : function_(function) {
    if (detail::t_call_depth++ > 0) return;  // nested on this thread
    if (detail::t_main_thread && !detail::g_any_thread) [[likely]] {
      if (detail::g_thread_inside.load(std::memory_order_relaxed) != nullptr) [[unlikely]] {
        overlaps_ = true;
        return;
      }
      detail::g_thread_inside.store(&detail::t_call_depth, std::memory_order_relaxed);
      outermost_ = true;
      return;
    }
    if (detail::g_multiple) {
      detail::take_mpi_lock();
      locked_ = true;
      return;
    }
    const int* none = nullptr;
    if (!detail::g_thread_inside.compare_exchange_strong(none, &detail::t_call_depth,
                                                         std::memory_order_acquire,
                                                         std::memory_order_relaxed)) [[unlikely]] {
      overlaps_ = true;
      return;
    }
    outermost_ = true;
  }
  ~ApiCall() {
    --detail::t_call_depth;
    if (outermost_) detail::g_thread_inside.store(nullptr, std::memory_order_release);
    // No sched_yield on every drop when threads wait for the lock: a
    // thread calling MPI in a loop (a window of MPI_Isend) made a system
    // call per call, 1.8-2.0 M msgs/s per thread with 2 threads (MPICH 3-6
    // M). Waiters get in while it is outside the lock, and its waits drop
    // the lock between polls. But a loop of calls that never wait (MPI_Test
    // on a request another thread completes, MPI_Grequest_complete's) takes
    // the lock back within nanoseconds, and mpcpi's yield every 64 tests
    // happens inside the call, lock held: the completing thread starved
    // (MPICH threads/pt2pt/greq_test hung; thread_multiple's phase r). So
    // every 64th drop while a thread waits yields outside the lock.
    if (locked_) {
      detail::drop_mpi_lock();
      if (detail::g_lock_waiters.load(std::memory_order_relaxed) > 0 &&
          ++detail::t_contended_drops % 64 == 0) [[unlikely]] {
        sched_yield_now();
      }
    }
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  // MPI_Init(_thread) on this thread granted `level`.
  static void on_init(int level) {
    detail::t_main_thread = true;
    detail::g_any_thread = level >= MPI_THREAD_SERIALIZED;
    detail::g_multiple = level == MPI_THREAD_MULTIPLE;
  }

  // mpcpi's idle hook under MULTIPLE: a waiting call lets other threads in
  // (gives up the MPI lock, yields if a thread waits for it, takes it back).
  // Called by mpcpi between polls, with no engine lock held.
  static void release_for_idle() {
    if (!detail::t_holds_lock) return;  // e.g. inside MPI_Init_thread itself
    detail::drop_mpi_lock();
    if (detail::g_lock_waiters.load(std::memory_order_relaxed) > 0) sched_yield_now();
    detail::take_mpi_lock();
  }

  // Another thread was inside MPI when this call began.
  bool overlaps() const { return overlaps_; }
  // The MPI function this call is (for messages).
  const char* name() const { return function_; }
  // MPI_ERR_OTHER, raised through MPI_COMM_WORLD's handler, naming the call.
  int refuse() const;

 private:
  static void sched_yield_now();
  const char* function_;
  bool overlaps_ = false;
  bool outermost_ = false;
  bool locked_ = false;
};

// For the few functions without an ApiCall (MPI_Error_string and
// MPI_Error_class, which any thread may call while another is inside MPI at
// every level) when they raise an error: under MULTIPLE, the handler lookup
// and a user handler run under the MPI lock like any call.
class ErrorPathLock {
 public:
  ErrorPathLock() {
    if (!detail::g_multiple || detail::t_call_depth > 0) return;
    ++detail::t_call_depth;
    detail::take_mpi_lock();
    locked_ = true;
  }
  ~ErrorPathLock() {
    if (!locked_) return;
    detail::drop_mpi_lock();
    --detail::t_call_depth;
  }
  ErrorPathLock(const ErrorPathLock&) = delete;
  ErrorPathLock& operator=(const ErrorPathLock&) = delete;

 private:
  bool locked_ = false;
};

}  // namespace mpi
