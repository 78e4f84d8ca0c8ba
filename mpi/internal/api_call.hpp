#pragma once
// Overlapping MPI calls from two threads, caught before they corrupt state.
//
// Lapis grants at most MPI_THREAD_SERIALIZED: the engine, the request table
// and the handle tables assume one thread inside MPI at a time. A program
// that breaks that rule used to corrupt them (a repeated sequence number,
// then MPI_ERR_REQUEST, or a UCX assertion). Every MPI function now opens
// with an ApiCall: entering while another thread is inside an MPI call is
// refused with MPI_ERR_OTHER through the error handler.
//
// Cost, outermost calls only (nested calls on one thread, e.g. a user
// callback calling MPI, are fine):
//  - MPI_THREAD_SERIALIZED, or any thread but the one that called MPI_Init:
//    one compare-and-swap of a global (a plain load and store would let two
//    threads that enter together both pass: two threads calling MPI in tight
//    loops hit that window within microseconds);
//  - SINGLE and FUNNELED on the main thread (the only thread allowed in):
//    a relaxed load and store, no read-modify-write, so a program that asks
//    for less pays less. A stray thread still takes the compare-and-swap
//    path and is caught, except in the instant both enter together.

#include <atomic>

#include "mpi.h"

namespace mpi {

namespace detail {
// This thread's depth of MPI calls; its address names the thread inside.
inline thread_local int t_call_depth [[gnu::tls_model("initial-exec")]] = 0;
inline std::atomic<const int*> g_thread_inside{nullptr};
// Set by MPI_Init(_thread): the thread that called it, and whether the level
// granted lets other threads call MPI (SERIALIZED).
inline thread_local bool t_main_thread [[gnu::tls_model("initial-exec")]] = false;
inline bool g_any_thread = false;
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
  }
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  // MPI_Init(_thread) on this thread granted `level`.
  static void on_init(int level) {
    detail::t_main_thread = true;
    detail::g_any_thread = level >= MPI_THREAD_SERIALIZED;
  }

  // Another thread was inside MPI when this call began.
  bool overlaps() const { return overlaps_; }
  // MPI_ERR_OTHER, raised through MPI_COMM_WORLD's handler, naming the call.
  int refuse() const;

 private:
  const char* function_;
  bool overlaps_ = false;
  bool outermost_ = false;
};

}  // namespace mpi
