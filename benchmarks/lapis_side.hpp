#pragma once
// The Lapis half of every benchmark row: one lapi::Context whose progress
// mode and completion policy are switched between rows (Senv), two buffers
// from alloc_registered, and the measurement loops. Exactly two tasks:
// task 0 drives, task 1 answers.
//
// Each pattern runs `warmup` untimed and `iters` timed iterations and returns
// the timed seconds (meaningful on task 0). Errors throw BenchError.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/config.hpp"
#include "lapi/context.hpp"

namespace lapis::benchmarks {

class LapisSide {
 public:
  // Collective: lapi init (LAPIS_* environment honoured), buffers of
  // `buffer_size` bytes, handler registration and address exchange.
  // `checksum` (if given) overrides LAPIS_CHECKSUM.
  LapisSide(std::size_t buffer_size, std::optional<lapi::Checksum> checksum = std::nullopt);
  ~LapisSide();
  LapisSide(const LapisSide&) = delete;
  LapisSide& operator=(const LapisSide&) = delete;

  lapi::TaskId task_id() const { return me_; }
  std::uint32_t num_tasks() const { return ntasks_; }
  std::size_t eager_limit() const;
  void qenv(lapi::Query query, std::int64_t& value) const;
  // Senv on this task; callers follow it with a barrier.
  void set_mode(lapi::ProgressMode mode);
  void set_policy(lapi::CompletionPolicy policy);
  void barrier();
  // Collective, after a barrier: frees the buffers and terms the context
  // (also done by the destructor).
  void term();

  // Latency (round trips). Amsend: the peer's header handler lands the data
  // in its receive buffer and names a completion handler; the peer waits on
  // its target counter, then answers the same way.
  double am_pingpong(std::size_t size, int warmup, int iters);
  // Put with a target counter; the peer waits on the counter and puts back.
  double put_pingpong(std::size_t size, int warmup, int iters);
  // Bandwidth (windows). `window` Amsends, the peer waits for all of them on
  // its target counter and acknowledges with a zero-byte Amsend.
  double am_stream(std::size_t size, int warmup, int iters, int window);
  // `window` Puts, then Fence (complete at the target); a zero-byte Amsend at
  // the end releases the peer.
  double put_stream(std::size_t size, int warmup, int iters, int window);

 private:
  static constexpr lapi::HandlerId kPingHandler = 1;
  static constexpr lapi::HandlerId kAckHandler = 2;

  static lapi::Landing on_ping(lapi::Context& ctx, const lapi::AmHeaderInfo& info);
  static lapi::Landing on_ack(lapi::Context& ctx, const lapi::AmHeaderInfo& info);
  static void on_ping_complete(lapi::Context& ctx, void* user_info, void* completion_arg);

  void send_ack();
  void wait(lapi::Counter& counter, int value);

  std::unique_ptr<lapi::Context> ctx_;
  lapi::TaskId me_ = 0;
  lapi::TaskId peer_ = 0;
  std::uint32_t ntasks_ = 0;
  std::size_t buffer_size_ = 0;
  void* send_buf_ = nullptr;
  void* recv_buf_ = nullptr;
  std::uint64_t peer_recv_addr_ = 0;
  lapi::Counter landed_;   // target counter of pings and puts
  lapi::Counter acks_;     // target counter of acknowledgements
  lapi::Counter origin_;   // origin counter of streamed Amsends
  lapi::RemoteCounter my_landed_{};
  lapi::RemoteCounter my_acks_{};
  lapi::RemoteCounter peer_landed_{};
  lapi::RemoteCounter peer_acks_{};
  // Touched by the completion handler so it does real (if tiny) work.
  std::atomic<std::uint64_t> completions_{0};
};

}  // namespace lapis::benchmarks
