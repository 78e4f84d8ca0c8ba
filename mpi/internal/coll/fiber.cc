#include "mpi/internal/coll/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>

#include <cstdlib>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
extern "C" {
void* __tsan_get_current_fiber();
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}
#endif

namespace mpi {

namespace fctx = boost::context::detail;

// Boost.Context's fcontext, not ucontext: swapcontext saves and restores
// the signal mask with a system call each way (2.4 us a resume and suspend
// on this project's PVM guests, 760,000 rt_sigprocmask calls a rank in
// MPICH's coll/nonblocking3 at 4 ranks); a jump_fcontext is a few
// register moves.
struct Fiber::Impl {
  fctx::fcontext_t self = nullptr;    // where the fiber continues
  fctx::fcontext_t caller = nullptr;  // where its suspend returns to
  char* stack = nullptr;  // the mapping: a guard page, then the usable stack
  // ASan: the stack being left and where it lies; TSan: fiber objects.
  void* asan_fake = nullptr;
  const void* caller_bottom = nullptr;
  std::size_t caller_size = 0;
  void* tsan_self = nullptr;
  void* tsan_caller = nullptr;
};

namespace {

thread_local Fiber* t_current = nullptr;

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// A few stacks stay mapped: a nonblocking collective should not cost two
// system calls for its stack.
constexpr std::size_t kPooledStacks = 16;
std::vector<char*> g_stack_pool;

char* take_stack() {
  if (!g_stack_pool.empty()) {
    char* s = g_stack_pool.back();
    g_stack_pool.pop_back();
    return s;
  }
  const std::size_t total = Fiber::kStackBytes + page_size();
  void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  // Guard page: an overflow faults instead of corrupting the heap.
  (void)mprotect(p, page_size(), PROT_NONE);
  return static_cast<char*>(p);
}

void give_stack(char* s) {
  if (g_stack_pool.size() < kPooledStacks) {
    g_stack_pool.push_back(s);
  } else {
    (void)munmap(s, Fiber::kStackBytes + page_size());
  }
}

char* usable(char* mapping) { return mapping + page_size(); }

// Switch bookkeeping for the sanitizers; no code in normal builds. Inlined
// into the function that switches: TSan records function entries and exits
// per fiber, so a helper's own exit must not land on the other fiber.
[[gnu::always_inline]] inline void before_switch_out_of_caller(Fiber::Impl& f) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(&f.asan_fake, usable(f.stack), Fiber::kStackBytes);
#endif
#if defined(__SANITIZE_THREAD__)
  f.tsan_caller = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(f.tsan_self, 0);
#endif
  (void)f;
}

[[gnu::always_inline]] inline void after_return_to_caller(Fiber::Impl& f) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(f.asan_fake, nullptr, nullptr);
#endif
  (void)f;
}

[[gnu::always_inline]] inline void before_switch_to_caller(Fiber::Impl& f, bool finishing) {
#if defined(__SANITIZE_ADDRESS__)
  // Finishing: a null save slot tells ASan this stack's fake frames can go.
  __sanitizer_start_switch_fiber(finishing ? nullptr : &f.asan_fake, f.caller_bottom,
                                 f.caller_size);
#endif
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(f.tsan_caller, 0);
#endif
  (void)f;
  (void)finishing;
}

[[gnu::always_inline]] inline void after_entering_fiber(Fiber::Impl& f, bool first) {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(first ? nullptr : f.asan_fake, &f.caller_bottom,
                                  &f.caller_size);
#endif
  (void)f;
  (void)first;
}

void entry(fctx::transfer_t from) {
  auto* fiber = static_cast<Fiber*>(from.data);
  fiber->run_body(from.fctx);
}

}  // namespace

Fiber::Fiber(std::function<void()> body) : body_(std::move(body)) {}

Fiber::~Fiber() {
  if (impl_ == nullptr) return;
#if defined(__SANITIZE_THREAD__)
  __tsan_destroy_fiber(impl_->tsan_self);
#endif
  give_stack(impl_->stack);
  delete impl_;
}

void Fiber::run_body(void* caller) {
  impl_->caller = static_cast<fctx::fcontext_t>(caller);
  after_entering_fiber(*impl_, true);
  body_();
  finished_ = true;
  before_switch_to_caller(*impl_, true);
  // Leave without returning: a return would be recorded (TSan) on the
  // caller's fiber, which never entered this function.
  (void)fctx::jump_fcontext(impl_->caller, nullptr);
  std::abort();
}

bool Fiber::resume() {
  if (finished_) return true;
  if (impl_ == nullptr) {
    char* stack = take_stack();
    if (stack == nullptr) return false;
    impl_ = new Impl;
    impl_->stack = stack;
    // fcontext takes the stack's top: it grows down from there.
    impl_->self = fctx::make_fcontext(usable(stack) + kStackBytes, kStackBytes, &entry);
#if defined(__SANITIZE_THREAD__)
    impl_->tsan_self = __tsan_create_fiber(0);
#endif
  }
  Fiber* outer = t_current;
  t_current = this;
  before_switch_out_of_caller(*impl_);
  impl_->self = fctx::jump_fcontext(impl_->self, this).fctx;
  after_return_to_caller(*impl_);
  t_current = outer;
  return true;
}

void Fiber::suspend() {
  Fiber* f = t_current;
  if (f == nullptr) std::abort();  // only fibers suspend
  before_switch_to_caller(*f->impl_, false);
  f->impl_->caller = fctx::jump_fcontext(f->impl_->caller, nullptr).fctx;
  after_entering_fiber(*f->impl_, false);
}

Fiber* Fiber::current() { return t_current; }

}  // namespace mpi
