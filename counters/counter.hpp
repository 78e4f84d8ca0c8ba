#pragma once
// LAPI counters: origin, target and completion counters are all this type.
//
// Memory-ordering contract: add() is a release operation and every read
// (get, try_consume, a wait that returns) is an acquire. So a thread that
// observes the counter at >= v after the v-th increment sees every byte of
// data the library landed, and every effect of the completion handler that
// ran, before that increment.

#include <atomic>
#include <cstdint>

namespace lapi {

// Nobody sleeps on a counter's own word: a waiting thread polls, or sleeps
// in its context (event fd, completion thread's wake word), which the
// engine wakes. So an increment is one store, with no futex notify (an
// atomic notify_all cost about 26 instructions per message on each side).
class Counter {
 public:
  Counter() = default;
  explicit Counter(int initial) : value_(initial) {}
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  int get() const { return value_.load(std::memory_order_acquire); }

  // Not atomic with respect to concurrent increments (LAPI_Setcntr's rule).
  void set(int v) {
    value_.store(v, std::memory_order_release);
  }

  void add(int n = 1) {
    value_.fetch_add(n, std::memory_order_acq_rel);
  }

  // add() and try_consume() for a caller that knows no other thread updates
  // or consumes this counter meanwhile (the engine while one thread alone
  // drives it): a plain load and store instead of a locked read-modify-write,
  // which would cost tens of cycles and drain the store buffer per message.
  void add_unshared(int n = 1) {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_release);
  }
  bool try_consume_unshared(int v) {
    const int cur = value_.load(std::memory_order_acquire);
    if (cur < v) return false;
    value_.store(cur - v, std::memory_order_relaxed);
    return true;
  }

  // If the counter is at least v, subtract v and return true (Waitcntr's rule).
  bool try_consume(int v) {
    int cur = value_.load(std::memory_order_acquire);
    while (cur >= v) {
      if (value_.compare_exchange_weak(cur, cur - v, std::memory_order_acq_rel)) return true;
    }
    return false;
  }

  // A remote fault on an operation that named this counter stores the LAPI
  // error code here; Waitcntr then returns that error instead of waiting on.
  int error() const { return error_.load(std::memory_order_acquire); }
  void set_error(int code) {
    error_.store(code, std::memory_order_release);
  }
  void clear_error() { error_.store(0, std::memory_order_release); }

 private:
  std::atomic<int> value_{0};
  std::atomic<int> error_{0};
};

}  // namespace lapi
