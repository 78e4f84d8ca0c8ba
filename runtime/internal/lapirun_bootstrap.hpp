#pragma once
#include <cstddef>
#include <cstdint>
#include <atomic>
#include <mutex>
#include <thread>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/bootstrap.hpp"
#include "runtime/internal/fd.hpp"
#include "runtime/internal/wire.hpp"

namespace lapis::runtime::internal {

// Client of the lapirun rendezvous (protocol in wire.hpp). Connects and says hello in the
// constructor; each collective is one request and one blocking reply.
class LapirunBootstrap final : public Bootstrap {
 public:
  // timeout_ms < 0: wait for the launcher forever (lapirun's own --timeout still applies).
  LapirunBootstrap(std::string socket_path, int rank, int size, int timeout_ms);
  ~LapirunBootstrap() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) override;
  void barrier() override;
  std::string_view kind() const override { return "lapirun"; }
  std::string network_interface() const override { return network_interface_; }
  void enter_job(std::string_view leave_call) override;
  void leave_job() override;
  void abort_job() override;
  void watch_failures(FailureListener listener) override;

 private:
  struct Reply {
    FrameHeader header;
    std::vector<std::byte> payload;
  };

  // Sends one request and waits for its reply; throws (and marks the bootstrap broken) on
  // transport failure, an Error reply, or a reply that does not match the request.
  // Precondition: mutex_ held.
  Reply call(MsgType request, std::uint32_t seq, std::span<const std::byte> payload, MsgType expected,
             const std::string& what);
  [[noreturn]] void fail(std::string message);
  // A Failed frame from the launcher: to the listener, or kept until there is one. mutex_ held.
  void note_failure(const FrameHeader& header, std::span<const std::byte> payload);
  // Between collectives (--continue-on-failure) and for a launcher across hosts that hangs up: a
  // thread that waits for the socket to speak, then reads the Failed frames under mutex_.
  void start_watcher(bool exit_on_hangup);

  const std::string socket_path_;
  const int rank_;
  const int size_;
  const int timeout_ms_;
  std::string network_interface_;  // TCP rendezvous: the interface that reaches the launcher
  std::mutex mutex_;  // guards everything below: one collective on the socket at a time
  UniqueFd socket_;
  std::uint32_t next_seq_ = 0;
  int job_entries_ = 0;  // enter_job() calls not yet matched by leave_job()
  std::string failure_;  // non-empty once broken
  const bool continue_on_failure_;
  FailureListener listener_;
  std::vector<std::pair<int, std::string>> failed_ranks_;  // heard before there was a listener
  // The watcher (start_watcher): joined when the object goes at exit, after
  // a shutdown() of its socket wakes it, so it never touches a destroyed one.
  std::thread watcher_;
  int watch_fd_ = -1;
  std::atomic<bool> stopping_{false};
};

}  // namespace lapis::runtime::internal
