// Completion: test and wait, the counters-variant landing FIFO, and reaping
// of engine-owned requests and released copies.
//
// Waiting never spins unboundedly: base and enhanced sleep inside
// lapi::Context::waitcntr on the request's own counter (lapi polls, then
// yields, then sleeps on the event fd); the counters variant, whose
// completions are discovered by polling the landing counter, polls and
// backs off with sched_yield and short sleeps.

#include <sched.h>

#include <chrono>
#include <thread>

#include "mpcpi/internal/engine_impl.hpp"
#include "mpcpi/internal/errors.hpp"

namespace mpcpi {

namespace {
constexpr int kSpinPolls = 64;
constexpr int kYieldPolls = 4000;
constexpr auto kIdleSleep = std::chrono::microseconds(20);
}  // namespace

void Engine::Impl::fail_request(Request* r, Errc code, int events) {
  {
    EngineLock lock(*this);
    r->status.error = code;
    if (r->handle != 0) {
      if (r->kind == Request::Kind::send) {
        send_handles_.erase(r->handle);
      } else {
        recv_handles_.erase(r->handle);
      }
      r->handle = 0;
    }
  }
  complete(r, events);
}

void Engine::Impl::release_request(Request* r) {
  r->signal.set(0);
  r->signal.clear_error();
  r->waited = false;
  r->internal = false;
  r->user_freed = false;
  r->counter_poll = false;
  r->handle = 0;
  r->send_buf = nullptr;
  r->recv_buf = nullptr;
  request_pool_.put(r);
}

void Engine::Impl::fill_status(const Request* r, Status* status) const {
  if (status != nullptr) *status = r->status;
}

void Engine::Impl::idle(PollLoop& loop) {
  if (!loop.driving && progress_hook_ != nullptr) [[unlikely]] loop.driving.emplace(ctx_);
  if (idle_hook_ != nullptr) idle_hook_();
  ++loop.spins;
  if (loop.spins < kSpinPolls) return;
  if (loop.spins < kYieldPolls) {
    sched_yield();
    return;
  }
  std::this_thread::sleep_for(kIdleSleep);
  loop.spins = kSpinPolls;
}

void Engine::Impl::poll_landed() {
  // Nothing landed since the last poll: skip the lock (this runs in every
  // spin of a counters-variant wait).
  if (landing_counter_.get() <= 0) {
    drain_outbox();
    return;
  }
  {
    EngineLock lock(*this);
    while (!landed_fifo_.empty() && landing_counter_.try_consume(1)) {
      const Landed l = landed_fifo_.front();
      landed_fifo_.pop_front();
      if (l.req != nullptr) {
        l.req->counter_poll = false;
        complete(l.req);
      } else if (l.msg != nullptr) {
        message_landed_locked(l.msg);
      }
    }
  }
  drain_outbox();
}

void Engine::Impl::reap_locked() {
  for (std::size_t i = 0; i < reap_.size();) {
    Request* r = reap_[i];
    if (!r->done()) {
      ++i;
      continue;
    }
    if (r->bsend_buffer != nullptr) give_back_bsend_locked(r);
    release_request(r);
    reap_[i] = reap_.back();
    reap_.pop_back();
  }
  for (std::size_t i = 0; i < in_flight_.size();) {
    if (in_flight_[i]->sent.get() >= in_flight_[i]->count) {
      in_flight_[i] = std::move(in_flight_.back());
      in_flight_.pop_back();
    } else {
      ++i;
    }
  }
}

Errc Engine::Impl::test(Request* r, bool& completed, Status* status, bool release) {
  completed = false;
  if (r == nullptr) return fail(Errc::invalid_request, "test: request is null");
  if (!r->done()) {
    if (options_.variant == Variant::counters) poll_landed();
    (void)ctx_.probe();
    drain_outbox();
    run_hook();
    if (!r->done()) {
      // A loop of tests must not starve the tasks it waits for when the
      // host has more tasks than cores (as in progress()).
      if (++progress_calls_ % 64 == 0) sched_yield();
      return Errc::success;
    }
  }
  completed = true;
  if (release) return take_done(r, status);
  fill_status(r, status);
  return r->status.error;
}

Errc Engine::Impl::take_done(Request* r, Status* status) {
  fill_status(r, status);
  const Errc e = r->status.error;
  release_done(r);
  return e;
}

void Engine::Impl::release_done(Request* r) {
  release_request(r);
  if (++releases_ % 64 == 0) {  // now and then: engine-owned requests and copies
    EngineLock lock(*this);
    reap_locked();
  }
}

Errc Engine::Impl::wait(Request* r, Status* status) {
  if (r == nullptr) return fail(Errc::invalid_request, "wait: request is null");
  block_until_done(r);
  return take_done(r, status);
}

Errc Engine::Impl::wait_done(Request* r, Status* status) {
  block_until_done(r);
  fill_status(r, status);
  return r->status.error;
}

WaitNote Engine::Impl::note_wait(WaitKind kind, int peer, int tag, std::uint32_t context) {
  EngineLock lock(*this);
  return WaitNote(kind, peer, tag, context, posted_.size(), arrived_.size());
}

void Engine::Impl::block_until_done(Request* r) {
  if (r->done()) return;
  const WaitNote note = note_wait(r->kind == Request::Kind::recv ? WaitKind::recv : WaitKind::send,
                                  r->kind == Request::Kind::recv ? r->source : static_cast<int>(r->dest),
                                  r->tag, r->context);
  if (waits_poll()) {
    // Polled: the counters variant finds completions only by polling, a
    // progress hook must keep running while this waits, and an idle hook
    // lets other threads in between polls.
    PollLoop loop;
    while (!r->done()) {
      if (options_.variant == Variant::counters) poll_landed();
      if (r->done()) break;
      (void)ctx_.probe();
      drain_outbox();
      run_hook();
      if (r->done()) break;
      idle(loop);
    }
  } else if (!r->done()) {
    lapi::Status s = ctx_.waitcntr(r->signal, r->expected);
    // A task's failure interrupts lapi's wait: the requests it concerns have
    // failed by now (fail_requests_of); any other waits on.
    while (s.code() == lapi::Errc::tgt_purged && r->signal.get() < r->expected) {
      s = ctx_.waitcntr(r->signal, r->expected);
    }
    r->waited = true;
    if (!s.ok() && s.code() != lapi::Errc::tgt_purged && r->status.error == Errc::success) {
      r->status.error = fail(Errc::transport, "wait: {}", s.message());
    }
  }
}

Errc Engine::Impl::wait_any(std::span<Request* const> reqs, std::size_t& index, Status* status) {
  index = reqs.size();
  PollLoop loop;
  while (true) {
    bool any = false;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      Request* r = reqs[i];
      if (r == nullptr) continue;
      any = true;
      if (r->done()) {
        index = i;
        bool completed = false;
        return test(r, completed, status, true);
      }
    }
    if (!any) return Errc::success;
    if (options_.variant == Variant::counters) poll_landed();
    (void)ctx_.probe();
    drain_outbox();
    run_hook();
    idle(loop);
  }
}

Errc Engine::Impl::request_free(Request* r) {
  if (r == nullptr) return fail(Errc::invalid_request, "request_free: request is null");
  if (r->done()) {
    release_request(r);
  } else {
    EngineLock lock(*this);
    r->user_freed = true;
    reap_.push_back(r);
  }
  return Errc::success;
}

Errc Engine::Impl::progress() {
  if (finalized_) return fail(Errc::terminated, "progress: engine already finalized");
  (void)ctx_.probe();
  if (options_.variant == Variant::counters) poll_landed();
  if (++releases_ % 64 == 0 || !reap_.empty()) {
    EngineLock lock(*this);
    reap_locked();
  }
  drain_outbox();
  run_hook();
  // Loops of test()+progress() must not starve other ranks on a full host.
  if (++progress_calls_ % 64 == 0) sched_yield();
  return Errc::success;
}

}  // namespace mpcpi
