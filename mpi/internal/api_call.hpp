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
// Cost: a thread-local increment and one compare-and-swap of a global per
// outermost call (a plain load and store would let two threads that enter
// together both pass: two threads calling MPI in tight loops hit that window
// within microseconds). Nested calls on one thread (a user callback calling
// MPI) are fine.

#include <atomic>

namespace mpi {

namespace detail {
// This thread's depth of MPI calls; its address names the thread inside.
inline thread_local int t_call_depth [[gnu::tls_model("initial-exec")]] = 0;
inline std::atomic<const int*> g_thread_inside{nullptr};
}  // namespace detail

class ApiCall {
 public:
  explicit ApiCall(const char* function) : function_(function) {
    if (detail::t_call_depth++ > 0) return;  // nested on this thread
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
