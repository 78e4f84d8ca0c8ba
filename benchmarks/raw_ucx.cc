// Measurement loops of the raw-UCX baseline. Each mirrors one Lapis pattern in
// lapis_side.cc step by step, so the two columns of a row compare like with
// like.

#include "benchmarks/raw_ucx.hpp"

#include <vector>

#include "benchmarks/raw_transport.hpp"
#include "benchmarks/timing.hpp"

namespace lapis::benchmarks {

class RawUcx::Impl : public RawTransport {
 public:
  using RawTransport::RawTransport;
  // Monotonic marker for the memory-polling ping-pong: both ranks step it
  // identically, and consecutive values always differ and are never zero.
  std::uint64_t poll_sequence = 0;
};

namespace {

std::uint8_t marker(std::uint64_t sequence) { return static_cast<std::uint8_t>(1 + sequence % 255); }

}  // namespace

std::unique_ptr<RawUcx> RawUcx::create(int rank, const RawUcxConfig& config,
                                       const Allgather& allgather) {
  return std::unique_ptr<RawUcx>(new RawUcx(std::make_unique<Impl>(rank, config, allgather)));
}

RawUcx::RawUcx(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RawUcx::~RawUcx() = default;

double RawUcx::am_pingpong(std::size_t size, int warmup, int iters, bool blocking) {
  Impl& t = *impl_;
  std::uint64_t expected = t.data_received();
  const auto ping = [&] {
    void* sent = t.send_data(size);
    ++expected;
    t.wait_until([&] { return t.data_received() >= expected && t.request_done(sent); }, blocking);
  };
  const auto pong = [&] {
    ++expected;
    t.wait_until([&] { return t.data_received() >= expected; }, blocking);
    void* sent = t.send_data(size);
    t.wait_request(sent, blocking);
  };
  return t.rank() == 0 ? timed(warmup, iters, ping) : timed(warmup, iters, pong);
}

double RawUcx::put_notify_pingpong(std::size_t size, int warmup, int iters, bool blocking) {
  Impl& t = *impl_;
  std::uint64_t expected = t.notifications_received();
  // Put, then a fence so the notification cannot overtake the data.
  const auto put_and_notify = [&] {
    void* put = t.put(size);
    t.fence();
    void* note = t.send_notification();
    return std::pair{put, note};
  };
  const auto ping = [&] {
    auto [put, note] = put_and_notify();
    ++expected;
    t.wait_until(
        [&] {
          return t.notifications_received() >= expected && t.request_done(put) &&
                 t.request_done(note);
        },
        blocking);
  };
  const auto pong = [&] {
    ++expected;
    t.wait_until([&] { return t.notifications_received() >= expected; }, blocking);
    auto [put, note] = put_and_notify();
    t.wait_until([&] { return t.request_done(put) && t.request_done(note); }, blocking);
  };
  return t.rank() == 0 ? timed(warmup, iters, ping) : timed(warmup, iters, pong);
}

void RawUcx::prepare_memory_poll(std::size_t size) {
  // A stale byte left at this offset by an earlier, larger transfer could
  // equal the next marker; clear it before the barrier that precedes the run.
  impl_->recv_buffer()[size - 1] = std::byte{0};
}

double RawUcx::put_mempoll_pingpong(std::size_t size, int warmup, int iters) {
  Impl& t = *impl_;
  volatile auto* last = reinterpret_cast<volatile std::uint8_t*>(t.recv_buffer() + size - 1);
  auto* outgoing_last = reinterpret_cast<std::uint8_t*>(t.send_buffer() + size - 1);
  const auto arrived = [&](std::uint8_t want) {
    // Software RMA paths need this side's progress too; calling it is cheap.
    t.wait_until([&] { return *last == want; }, /*blocking=*/false);
  };
  const auto send = [&](std::uint8_t value) {
    *outgoing_last = value;
    return t.put(size);
  };
  const auto ping = [&] {
    const std::uint8_t value = marker(++t.poll_sequence);
    void* put = send(value);
    arrived(value);
    t.wait_request(put, false);
  };
  const auto pong = [&] {
    const std::uint8_t value = marker(++t.poll_sequence);
    arrived(value);
    void* put = send(value);
    t.wait_request(put, false);
  };
  return t.rank() == 0 ? timed(warmup, iters, ping) : timed(warmup, iters, pong);
}

double RawUcx::am_stream(std::size_t size, int warmup, int iters, int window, bool blocking) {
  Impl& t = *impl_;
  std::uint64_t acks = t.notifications_received();
  std::uint64_t landed = t.data_received();
  std::vector<void*> sends(static_cast<std::size_t>(window), nullptr);
  const auto all_sent = [&] {
    for (void*& request : sends) {
      if (!t.request_done(request)) return false;
    }
    return true;
  };
  const auto send_window = [&] {
    for (void*& request : sends) request = t.send_data(size);
    ++acks;
    t.wait_until([&] { return t.notifications_received() >= acks && all_sent(); }, blocking);
  };
  const auto receive_window = [&] {
    landed += static_cast<std::uint64_t>(window);
    t.wait_until([&] { return t.data_received() >= landed; }, blocking);
    void* ack = t.send_notification();
    t.wait_request(ack, blocking);
  };
  return t.rank() == 0 ? timed(warmup, iters, send_window) : timed(warmup, iters, receive_window);
}

double RawUcx::put_stream(std::size_t size, int warmup, int iters, int window, bool blocking) {
  Impl& t = *impl_;
  if (t.rank() != 0) {
    // The target only has to progress (software RMA) until released.
    const std::uint64_t release = t.notifications_received() + 1;
    t.wait_until([&] { return t.notifications_received() >= release; }, blocking);
    return 0.0;
  }
  std::vector<void*> puts(static_cast<std::size_t>(window), nullptr);
  const auto send_window = [&] {
    for (void*& request : puts) request = t.put(size);
    void* flushed = t.flush();
    t.wait_request(flushed, blocking);
    for (void*& request : puts) t.wait_request(request, blocking);
  };
  const double seconds = timed(warmup, iters, send_window);
  void* release = t.send_notification();
  t.wait_request(release, blocking);
  return seconds;
}

}  // namespace lapis::benchmarks
