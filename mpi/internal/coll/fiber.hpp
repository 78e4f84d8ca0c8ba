#pragma once
// A fiber: a function running on its own stack that can suspend itself
// (Fiber::suspend) and be resumed later by the thread's MPI calls.
//
// Nonblocking collectives run the blocking collectives' algorithms unchanged
// on a fiber: where an algorithm would wait for a message, the fiber
// suspends instead and the progress hook resumes it on a later MPI call. So
// every algorithm exists once, and the blocking path pays nothing for it.
//
// Stacks (kStackBytes, a guard page below) are kept in a small pool. The
// switches are annotated for ASan and TSan, which otherwise lose track of
// the stack.

#include <cstddef>
#include <functional>

namespace mpi {

class Fiber {
 public:
  static constexpr std::size_t kStackBytes = 256 * 1024;

  // Does not run `body` yet.
  explicit Fiber(std::function<void()> body);
  ~Fiber();  // the fiber must have finished (or never started)
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber until it suspends or finishes. False when no stack
  // could be mapped (the body has not run).
  bool resume();
  bool finished() const { return finished_; }

  // From inside a fiber: back to whoever resumed it.
  static void suspend();
  // The fiber this thread is running, or null on the thread's own stack.
  static Fiber* current();

  struct Impl;
  // The fiber's entry point (called on its own stack; `caller`: the
  // context that first resumed it).
  void run_body(void* caller);

 private:
  std::function<void()> body_;
  Impl* impl_ = nullptr;
  bool finished_ = false;
};

}  // namespace mpi
