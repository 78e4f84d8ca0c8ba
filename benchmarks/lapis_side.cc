// Measurement loops over the public lapi API. Each mirrors one raw-UCX loop
// in raw_ucx.cc.

#include "benchmarks/lapis_side.hpp"

#include <vector>

#include <fmt/format.h>

#include "benchmarks/bench_error.hpp"
#include "benchmarks/timing.hpp"

namespace lapis::benchmarks {
namespace {

// Throws BenchError("<what>: <status message>") unless the status is ok.
void check(const lapi::Status& status, const char* what) {
  if (!status.ok()) throw BenchError(fmt::format("{}: {}", what, status.message()));
}

// Collective exchange of one value; returns the peer's.
std::uint64_t swap_with_peer(lapi::Context& ctx, lapi::TaskId peer, std::uint64_t mine) {
  std::vector<std::uint64_t> all(ctx.num_tasks());
  check(ctx.address_init(mine, all), "address_init");
  return all[peer];
}

}  // namespace

LapisSide::LapisSide(std::size_t buffer_size, std::optional<lapi::Checksum> checksum)
    : buffer_size_(buffer_size) {
  lapi::Config config;
  check(lapi::Config::from_env(config), "LAPIS_* environment");
  if (checksum) config.checksum = *checksum;
  check(lapi::Context::init(config, ctx_), "lapi init");
  me_ = ctx_->task_id();
  ntasks_ = ctx_->num_tasks();
  if (ntasks_ != 2) {
    throw BenchError(fmt::format("the benchmarks need exactly 2 tasks (lapirun -n 2), got {}",
                                 ntasks_));
  }
  peer_ = 1 - me_;
  check(ctx_->register_handler(kPingHandler, &LapisSide::on_ping, this), "register ping handler");
  check(ctx_->register_handler(kAckHandler, &LapisSide::on_ack, this), "register ack handler");
  check(ctx_->alloc_registered(buffer_size_, send_buf_), "alloc_registered(send buffer)");
  check(ctx_->alloc_registered(buffer_size_, recv_buf_), "alloc_registered(receive buffer)");
  check(ctx_->register_counter(landed_, my_landed_), "register_counter(landed)");
  check(ctx_->register_counter(acks_, my_acks_), "register_counter(acks)");
  peer_recv_addr_ = swap_with_peer(*ctx_, peer_, reinterpret_cast<std::uint64_t>(recv_buf_));
  peer_landed_.handle = swap_with_peer(*ctx_, peer_, my_landed_.handle);
  peer_acks_.handle = swap_with_peer(*ctx_, peer_, my_acks_.handle);
}

LapisSide::~LapisSide() {
  try {
    term();
  } catch (const std::exception&) {
  }
}

void LapisSide::term() {
  if (!ctx_) return;
  // Back to polling so no progress thread races the teardown.
  (void)ctx_->senv(lapi::Query::interrupt_mode, 0);
  (void)ctx_->unregister_counter(landed_);
  (void)ctx_->unregister_counter(acks_);
  // Callers pass a barrier first, so no peer still writes into these.
  if (send_buf_ != nullptr) (void)ctx_->free_registered(send_buf_);
  if (recv_buf_ != nullptr) (void)ctx_->free_registered(recv_buf_);
  send_buf_ = recv_buf_ = nullptr;
  const lapi::Status status = ctx_->term();
  ctx_.reset();
  check(status, "lapi term");
}

void LapisSide::qenv(lapi::Query query, std::int64_t& value) const {
  check(ctx_->qenv(query, value), "qenv");
}

std::size_t LapisSide::eager_limit() const {
  std::int64_t value = 0;
  check(ctx_->qenv(lapi::Query::eager_limit, value), "qenv(eager_limit)");
  return static_cast<std::size_t>(value);
}

void LapisSide::set_mode(lapi::ProgressMode mode) {
  check(ctx_->senv(lapi::Query::interrupt_mode, mode == lapi::ProgressMode::interrupt ? 1 : 0),
        "senv(interrupt_mode)");
}

void LapisSide::set_policy(lapi::CompletionPolicy policy) {
  check(ctx_->senv(lapi::Query::completion_policy, static_cast<std::int64_t>(policy)),
        "senv(completion_policy)");
}

void LapisSide::barrier() { check(ctx_->barrier(), "barrier"); }

void LapisSide::wait(lapi::Counter& counter, int value) {
  check(ctx_->waitcntr(counter, value), "waitcntr");
}

lapi::Landing LapisSide::on_ping(lapi::Context&, const lapi::AmHeaderInfo& info) {
  auto* self = static_cast<LapisSide*>(info.handler_arg);
  if (info.data_len > self->buffer_size_) return {};  // cannot happen: both sides size alike
  return lapi::Landing{self->recv_buf_, &LapisSide::on_ping_complete, self, nullptr};
}

lapi::Landing LapisSide::on_ack(lapi::Context&, const lapi::AmHeaderInfo&) { return {}; }

void LapisSide::on_ping_complete(lapi::Context&, void* user_info, void*) {
  static_cast<LapisSide*>(user_info)->completions_.fetch_add(1, std::memory_order_relaxed);
}

void LapisSide::send_ack() {
  check(ctx_->amsend(peer_, kAckHandler, nullptr, 0, nullptr, 0, {.target = peer_acks_}),
        "amsend(ack)");
}

double LapisSide::am_pingpong(std::size_t size, int warmup, int iters) {
  const auto send = [&] {
    check(ctx_->amsend(peer_, kPingHandler, nullptr, 0, send_buf_, size, {.target = peer_landed_}),
          "amsend(ping)");
  };
  const auto ping = [&] {
    send();
    wait(landed_, 1);
  };
  const auto pong = [&] {
    wait(landed_, 1);
    send();
  };
  return me_ == 0 ? timed(warmup, iters, ping) : timed(warmup, iters, pong);
}

double LapisSide::put_pingpong(std::size_t size, int warmup, int iters) {
  const auto send = [&] {
    check(ctx_->put(peer_, size, peer_recv_addr_, send_buf_, {.target = peer_landed_}), "put");
  };
  const auto ping = [&] {
    send();
    wait(landed_, 1);
  };
  const auto pong = [&] {
    wait(landed_, 1);
    send();
  };
  return me_ == 0 ? timed(warmup, iters, ping) : timed(warmup, iters, pong);
}

double LapisSide::am_stream(std::size_t size, int warmup, int iters, int window) {
  const auto send_window = [&] {
    for (int i = 0; i < window; ++i) {
      check(ctx_->amsend(peer_, kPingHandler, nullptr, 0, send_buf_, size,
                         {.target = peer_landed_, .origin = &origin_}),
            "amsend(stream)");
    }
    wait(acks_, 1);
    wait(origin_, window);
  };
  const auto receive_window = [&] {
    wait(landed_, window);
    send_ack();
  };
  return me_ == 0 ? timed(warmup, iters, send_window) : timed(warmup, iters, receive_window);
}

double LapisSide::put_stream(std::size_t size, int warmup, int iters, int window) {
  if (me_ != 0) {
    wait(acks_, 1);  // progresses (polling) until task 0 is done
    return 0.0;
  }
  const auto send_window = [&] {
    for (int i = 0; i < window; ++i) {
      check(ctx_->put(peer_, size, peer_recv_addr_, send_buf_), "put(stream)");
    }
    check(ctx_->fence(), "fence");
  };
  const double seconds = timed(warmup, iters, send_window);
  send_ack();
  return seconds;
}

}  // namespace lapis::benchmarks
