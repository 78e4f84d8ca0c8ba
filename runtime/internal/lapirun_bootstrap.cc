#include "runtime/internal/lapirun_bootstrap.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <sys/un.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>
#include <cstdlib>

#include "runtime/internal/tcp.hpp"

namespace lapis::runtime::internal {
namespace {

UniqueFd connect_tcp_endpoint(const std::string& spec) {
  try {
    return connect_tcp(spec);
  } catch (const std::runtime_error& e) {
    throw BootstrapError(std::string("lapirun rendezvous: ") + e.what());
  }
}

UniqueFd connect_unix(const std::string& path) {
  UnixAddress address;
  try {
    address = unix_address(path);
  } catch (const std::invalid_argument& e) {
    throw BootstrapError(std::string("lapirun rendezvous: ") + e.what());
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw BootstrapError(errno_message("lapirun rendezvous: socket"));
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address.addr), address.length);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0 && errno != EISCONN) {
    throw BootstrapError(errno_message(("lapirun rendezvous: cannot connect to " + path +
                                        " (launcher gone, or every rank already joined?)").c_str()));
  }
  return fd;
}

std::string seconds_text(int ms) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", ms / 1000.0);
  return text;
}

}  // namespace

LapirunBootstrap::LapirunBootstrap(std::string socket_path, int rank, int size, int timeout_ms)
    : socket_path_(std::move(socket_path)),
      rank_(rank),
      size_(size),
      timeout_ms_(timeout_ms),
      continue_on_failure_(std::getenv(kContinueOnFailureVariable) != nullptr &&
                           std::string_view(std::getenv(kContinueOnFailureVariable)) == "1") {
  if (size <= 0 || rank < 0 || rank >= size) {
    throw BootstrapError("lapirun rendezvous: invalid rank " + std::to_string(rank) + " of size " +
                         std::to_string(size));
  }
  const bool tcp = std::string_view(socket_path_).starts_with(kTcpPrefix);
  socket_ = tcp ? connect_tcp_endpoint(socket_path_) : connect_unix(socket_path_);
  if (tcp) {
    network_interface_ = interface_of_socket(socket_.get());
    // Twice the launcher's patience: if the link dies, the launcher reports it first.
    try {
      detect_dead_link(socket_.get(), 2 * link_timeout_ms());
    } catch (const std::runtime_error& e) {
      throw BootstrapError(std::string("lapirun rendezvous: ") + e.what());
    }
  }
  // Hello: the job size, then the job's secret (a TCP launcher refuses a connection without it).
  const std::uint32_t size32 = static_cast<std::uint32_t>(size);
  std::vector<std::byte> hello(sizeof size32);
  std::memcpy(hello.data(), &size32, sizeof size32);
  if (const char* secret = std::getenv(kJobSecretVariable); secret != nullptr) {
    const auto bytes = std::as_bytes(std::span(secret, std::strlen(secret)));
    hello.insert(hello.end(), bytes.begin(), bytes.end());
  }
  std::lock_guard lock(mutex_);
  call(MsgType::kHello, static_cast<std::uint32_t>(rank), hello, MsgType::kWelcome, "hello");
  // After the welcome: a refused hello reports itself.
  if (tcp || continue_on_failure_) start_watcher(tcp);
}

// A rank on another host was started through an agent (ssh) that may not take it down when
// the launcher ends the job or dies. The launcher closes its end of the rendezvous connection
// only then (or after a protocol error from this rank), so the peer's hang-up ends this process
// (exit_on_hangup; on one host the launcher's kill and PR_SET_PDEATHSIG suffice). With
// --continue-on-failure the launcher also speaks between collectives: Failed frames. A detached
// thread polls a duplicate of the socket; it reads only under mutex_, when no collective is
// waiting for its reply, so whatever it finds then is a Failed frame.
void LapirunBootstrap::start_watcher(bool exit_on_hangup) {
  const int fd = ::fcntl(socket_.get(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return;
  watch_fd_ = fd;
  watcher_ = std::thread([this, fd, exit_on_hangup] {
    const short events = static_cast<short>(POLLRDHUP | (continue_on_failure_ ? POLLIN : 0));
    for (;;) {
      pollfd p{fd, events, 0};
      if (::poll(&p, 1, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (stopping_.load(std::memory_order_acquire)) break;  // the destructor woke us
      if (p.revents & POLLIN) {
        std::lock_guard lock(mutex_);
        if (!socket_.valid()) break;
        pollfd now{socket_.get(), POLLIN, 0};
        bool hung_up = false;
        while (::poll(&now, 1, 0) > 0 && (now.revents & POLLIN)) {
          Reply notice;
          if (read_exact(socket_.get(), std::as_writable_bytes(std::span(&notice.header, 1)), timeout_ms_) !=
                  ReadResult::kOk ||
              notice.header.type != MsgType::kFailed || notice.header.length > kMaxPayload) {
            hung_up = true;  // end of file, or the stream out of step: nothing more to hear
            break;
          }
          notice.payload.resize(notice.header.length);
          if (read_exact(socket_.get(), notice.payload, timeout_ms_) != ReadResult::kOk) {
            hung_up = true;
            break;
          }
          note_failure(notice.header, notice.payload);
        }
        if (!hung_up) continue;
      }
      if (!exit_on_hangup) break;
      // An error rather than a close: the link to the launcher's host is gone (keepalive gave up).
      int error = 0;
      socklen_t len = sizeof error;
      (void)::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
      const std::string message =
          "lapirun rendezvous (rank " + std::to_string(rank_) + "): " +
          (error != 0 ? "lost the connection to the launcher (" + std::string(std::strerror(error)) + ")"
                      : std::string("the launcher closed the connection")) +
          "; ending this rank\n";
      (void)!::write(STDERR_FILENO, message.data(), message.size());
      ::_exit(1);
    }
  });
}

LapirunBootstrap::~LapirunBootstrap() {
  if (!watcher_.joinable()) return;
  stopping_.store(true, std::memory_order_release);
  ::shutdown(watch_fd_, SHUT_RDWR);  // wakes the watcher's poll (the socket is ending anyway)
  watcher_.join();
  ::close(watch_fd_);
}

void LapirunBootstrap::note_failure(const FrameHeader& header, std::span<const std::byte> payload) {
  const int rank = static_cast<int>(header.seq);
  if (rank < 0 || rank >= size_) return;
  std::string why = to_string(payload);
  if (listener_) return listener_(rank, why);
  failed_ranks_.emplace_back(rank, std::move(why));
}

void LapirunBootstrap::watch_failures(FailureListener listener) {
  std::lock_guard lock(mutex_);
  listener_ = std::move(listener);
  if (!listener_) return;
  for (const auto& [rank, why] : failed_ranks_) listener_(rank, why);
  failed_ranks_.clear();
}

std::vector<std::vector<std::byte>> LapirunBootstrap::allgather(std::span<const std::byte> mine) {
  std::lock_guard lock(mutex_);
  const std::uint32_t seq = next_seq_++;
  Reply reply = call(MsgType::kAllgather, seq, mine, MsgType::kAllgatherResult,
                     "allgather (collective #" + std::to_string(seq) + ")");
  auto blobs = decode_gather_result(reply.payload, static_cast<std::size_t>(size_));
  if (!blobs) fail("lapirun rendezvous: malformed allgather result for collective #" + std::to_string(seq));
  return std::move(*blobs);
}

void LapirunBootstrap::barrier() {
  std::lock_guard lock(mutex_);
  const std::uint32_t seq = next_seq_++;
  call(MsgType::kBarrier, seq, {}, MsgType::kBarrierDone, "barrier (collective #" + std::to_string(seq) + ")");
}

// One-way notes to the launcher: best effort (a broken socket means the launcher already knows
// more than this note would tell it).
void LapirunBootstrap::enter_job(std::string_view leave_call) {
  std::lock_guard lock(mutex_);
  if (job_entries_++ > 0 || !failure_.empty()) return;
  (void)write_all(socket_.get(), encode_frame(MsgType::kEnter, 0, std::as_bytes(std::span(leave_call))));
}

void LapirunBootstrap::leave_job() {
  std::lock_guard lock(mutex_);
  if (job_entries_ == 0 || --job_entries_ > 0 || !failure_.empty()) return;
  (void)write_all(socket_.get(), encode_frame(MsgType::kLeave, 0, {}));
}

void LapirunBootstrap::abort_job() {
  std::unique_lock lock(mutex_, std::try_to_lock);  // a thread stuck in a collective must not hold it up
  if (!lock.owns_lock() || !failure_.empty()) return;
  (void)write_all(socket_.get(), encode_frame(MsgType::kAbort, 0, {}));
}

LapirunBootstrap::Reply LapirunBootstrap::call(MsgType request, std::uint32_t seq, std::span<const std::byte> payload,
                                               MsgType expected, const std::string& what) {
  if (!failure_.empty()) throw BootstrapError(failure_);
  const std::string context = "lapirun rendezvous (rank " + std::to_string(rank_) + ", " + what + "): ";
  if (!write_all(socket_.get(), encode_frame(request, seq, payload))) {
    fail(context + errno_message("cannot send to the launcher"));
  }
  Reply reply;
  auto read = [&](std::span<std::byte> out) {
    switch (read_exact(socket_.get(), out, timeout_ms_)) {
      case ReadResult::kOk: return;
      case ReadResult::kEof: fail(context + "the launcher closed the connection (lapirun gone?)");
      case ReadResult::kError: fail(context + errno_message("cannot read from the launcher"));
      case ReadResult::kTimeout:
        fail(context + "no reply within " + seconds_text(timeout_ms_) + " s (LAPIS_BOOTSTRAP_TIMEOUT)");
    }
  };
  do {  // Failed frames may come before the reply (--continue-on-failure)
    if (reply.header.type == MsgType::kFailed) note_failure(reply.header, reply.payload);
    read(std::as_writable_bytes(std::span(&reply.header, 1)));
    if (reply.header.length > kMaxPayload) fail(context + "corrupt reply (payload too large)");
    reply.payload.resize(reply.header.length);
    read(reply.payload);
  } while (reply.header.type == MsgType::kFailed);
  if (reply.header.type == MsgType::kError) fail(context + to_string(reply.payload));
  if (reply.header.type != expected || reply.header.seq != seq) {
    fail(context + "unexpected reply '" + msg_type_name(reply.header.type) + "' #" +
         std::to_string(reply.header.seq));
  }
  return reply;
}

void LapirunBootstrap::fail(std::string message) {
  failure_ = message;
  socket_.reset();  // the stream may be out of step now; nothing more can be read from it safely
  throw BootstrapError(std::move(message));
}

}  // namespace lapis::runtime::internal
