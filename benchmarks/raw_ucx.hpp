#pragma once
// The raw-UCX baseline the benchmarks put beside every Lapis number.
//
// It owns its own ucp context and worker, configured like Lapis' (features
// AM|RMA|AMO32|AMO64|WAKEUP, thread mode SERIALIZED, same endpoint error mode,
// same eager/rendezvous split for active messages), and moves data between
// ucp_mem_map-allocated buffers, as Lapis' Put does with alloc_registered
// memory. Exactly two ranks: rank 0 drives, rank 1 answers.
//
// Every pattern runs `warmup` untimed and then `iters` timed iterations and
// returns the timed seconds (meaningful on rank 0). `blocking` selects the
// interrupt-mode counterpart: idle waits drain the worker, arm it and sleep
// in poll() on its event fd instead of spinning on ucp_worker_progress
// (while none of this rank's own operations is in flight; see
// RawTransport::wait_until for why).
// Fatal UCX errors throw BenchError.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace lapis::benchmarks {

// Exchanges one blob per rank (the bootstrap's allgather).
using Allgather =
    std::function<std::vector<std::vector<std::byte>>(std::span<const std::byte> mine)>;

struct RawUcxConfig {
  std::size_t buffer_size = 0;  // bytes of each send/receive buffer
  // Active messages of at least this many bytes are forced to rendezvous,
  // smaller ones to eager (Lapis' eager limit).
  std::size_t eager_limit = 8192;
  // UCP_ERR_HANDLING_MODE_PEER on the endpoint (Lapis uses the default, NONE;
  // PEER mode can narrow UCX's protocol choice).
  bool peer_error_mode = false;
};

class RawUcx {
 public:
  // Collective over both ranks.
  static std::unique_ptr<RawUcx> create(int rank, const RawUcxConfig& config,
                                        const Allgather& allgather);
  ~RawUcx();
  RawUcx(const RawUcx&) = delete;
  RawUcx& operator=(const RawUcx&) = delete;

  // Latency (round trips): data AM into the peer's buffer (its callback
  // copies or pulls the data, then flags it) and back.
  double am_pingpong(std::size_t size, int warmup, int iters, bool blocking);
  // Put, ucp_worker_fence, header-only AM notification; the peer waits on
  // the notification and answers the same way (like Lapis' put + target
  // counter).
  double put_notify_pingpong(std::size_t size, int warmup, int iters, bool blocking);
  // Put only; the peer spins on the last byte of its buffer (polling only:
  // RMA arrival raises no wake-up on shared memory). Both ranks must call
  // prepare_memory_poll(size) and pass a barrier before each repetition.
  double put_mempoll_pingpong(std::size_t size, int warmup, int iters);
  void prepare_memory_poll(std::size_t size);

  // Bandwidth (windows): `window` AMs outstanding, then the peer acknowledges
  // with a header-only AM.
  double am_stream(std::size_t size, int warmup, int iters, int window, bool blocking);
  // `window` puts, then ucp_worker_flush (completion at the target); one
  // header-only AM at the end releases the peer.
  double put_stream(std::size_t size, int warmup, int iters, int window, bool blocking);

  class Impl;

 private:
  explicit RawUcx(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lapis::benchmarks
