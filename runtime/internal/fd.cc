#include "runtime/internal/fd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace lapis::runtime::internal {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);  // close() on Linux always releases the fd, even on EINTR: never retry.
  fd_ = fd;
}

std::string errno_message(const char* what) {
  const int saved = errno;
  return std::string(what) + ": " + std::strerror(saved);
}

bool write_all(int fd, std::span<const std::byte> data) {
  bool is_socket = true;  // Try send() first; fall back to write() for pipes and files.
  while (!data.empty()) {
    ssize_t n = is_socket ? ::send(fd, data.data(), data.size(), MSG_NOSIGNAL)
                          : ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // an inherited non-blocking fd: wait, don't spin
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, -1) < 0 && errno != EINTR) return false;
        continue;
      }
      if (is_socket && errno == ENOTSOCK) {
        is_socket = false;
        continue;
      }
      return false;
    }
    data = data.subspan(static_cast<std::size_t>(n));
  }
  return true;
}

ReadResult read_exact(int fd, std::span<std::byte> out, int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  while (!out.empty()) {
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return ReadResult::kTimeout;
      pollfd p{fd, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left.count()));
      if (r < 0 && errno != EINTR) return ReadResult::kError;
      if (r <= 0) continue;  // EINTR or spurious wake-up: recompute the time left.
    }
    const ssize_t n = ::read(fd, out.data(), out.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadResult::kError;
    }
    if (n == 0) return ReadResult::kEof;
    out = out.subspan(static_cast<std::size_t>(n));
  }
  return ReadResult::kOk;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

UnixAddress unix_address(const std::string& name) {
  UnixAddress out;
  out.addr.sun_family = AF_UNIX;
  const bool abstract = !name.empty() && name[0] == '@';
  // An abstract name is the bytes after a leading NUL, with no terminator; a path needs one.
  if (name.size() + (abstract ? 0 : 1) > sizeof(out.addr.sun_path)) {
    throw std::invalid_argument("Unix socket name too long: " + name);
  }
  std::memcpy(out.addr.sun_path, name.data(), name.size());
  if (abstract) out.addr.sun_path[0] = '\0';
  out.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() + (abstract ? 0 : 1));
  return out;
}

}  // namespace lapis::runtime::internal
