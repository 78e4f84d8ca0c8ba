#include "lapi/internal/completion.hpp"

#include <sched.h>

#include <utility>

namespace lapi::internal {

namespace {
constexpr int kSpinsBeforeSleep = 2000;
}

HandlerThread::HandlerThread(JobRunner run) : run_(run), thread_([this] { loop(); }) {}

HandlerThread::~HandlerThread() {
  stop_.store(true, std::memory_order_release);
  wake_.fetch_add(1, std::memory_order_release);
  wake_.notify_one();
  thread_.join();
}

void HandlerThread::push(const CompletionJob& job) {
  bool queued_in_order;
  {
    std::lock_guard<std::mutex> lock(overflow_mutex_);
    // Once anything overflowed, keep FIFO order by appending there too.
    queued_in_order = overflow_.empty() && queue_.push(job);
    if (!queued_in_order) overflow_.push_back(job);
  }
  if (sleeping_.load(std::memory_order_acquire)) {
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_one();
  }
}

void HandlerThread::loop() {
  int idle = 0;
  CompletionJob job;
  while (true) {
    bool got = queue_.pop(job);
    if (!got) {
      std::lock_guard<std::mutex> lock(overflow_mutex_);
      if (!overflow_.empty()) {
        // Drain what the ring still holds first: it was filled earlier.
        got = queue_.pop(job);
        if (!got) {
          job = overflow_.front();
          overflow_.pop_front();
          got = true;
        }
      }
    }
    if (got) {
      run_(job);
      idle = 0;
      continue;
    }
    if (stop_.load(std::memory_order_acquire)) return;
    if (++idle < kSpinsBeforeSleep) {
      sched_yield();  // stay responsive without starving oversubscribed ranks
      continue;
    }
    const std::uint32_t seen = wake_.load(std::memory_order_acquire);
    sleeping_.store(true, std::memory_order_seq_cst);
    if (queue_.read_available() == 0 && !stop_.load(std::memory_order_acquire)) {
      wake_.wait(seen, std::memory_order_acquire);
    }
    sleeping_.store(false, std::memory_order_relaxed);
    idle = 0;
  }
}

// ---------------------------------------------------------------------------

thread_local boost::context::fiber* FiberScheduler::tl_scheduler_side_
    __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {
constexpr std::size_t kFiberStack = 256 * 1024;
}  // namespace

FiberScheduler::FiberScheduler(JobRunner run) : run_(run), stacks_(kFiberStack) {}

FiberScheduler::~FiberScheduler() {
  // Destroying a suspended fiber unwinds it (Boost.Context throws
  // forced_unwind inside it), running its destructors.
  idle_.clear();
  waiting_.clear();
  workers_.clear();
}

void FiberScheduler::yield() {
  boost::context::fiber* back = tl_scheduler_side_;
  *back = std::move(*back).resume();
  tl_scheduler_side_ = back;
}

FiberScheduler::Worker* FiberScheduler::new_worker() {
  workers_.push_back(std::make_unique<Worker>());
  Worker* w = workers_.back().get();
  w->fiber = boost::context::fiber(std::allocator_arg, stacks_,
                                   [this, w](boost::context::fiber&& scheduler) {
                                     for (;;) {
                                       tl_scheduler_side_ = &scheduler;
                                       run_(w->job);
                                       w->done = true;
                                       scheduler = std::move(scheduler).resume();
                                     }
                                     return std::move(scheduler);
                                   });
  return w;
}

void FiberScheduler::dispatch(Worker* w) {
  boost::context::fiber* outer = tl_scheduler_side_;  // nested: a fiber driving progress
  w->fiber = std::move(w->fiber).resume();
  tl_scheduler_side_ = outer;
  if (w->done) {
    idle_.push_back(w);
  } else {
    waiting_.push_back(w);
  }
  waiting_count_.store(waiting_.size(), std::memory_order_relaxed);
}

void FiberScheduler::spawn(const CompletionJob& job) {
  Worker* w;
  if (idle_.empty()) {
    w = new_worker();
  } else {
    w = idle_.back();
    idle_.pop_back();
  }
  w->job = job;
  w->done = false;
  dispatch(w);
}

bool FiberScheduler::resume_waiting() {
  if (waiting_.empty()) return false;
  std::vector<Worker*> batch;
  batch.swap(waiting_);
  const std::size_t before = batch.size();
  for (Worker* w : batch) dispatch(w);
  return waiting_.size() < before;
}

}  // namespace lapi::internal
