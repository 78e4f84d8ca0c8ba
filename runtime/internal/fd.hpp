#pragma once
// Small POSIX helpers shared by the launcher and the lapirun bootstrap client:
// an owning file descriptor and EINTR/partial-transfer-safe blocking I/O.
#include <sys/socket.h>
#include <sys/un.h>

#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace lapis::runtime::internal {

// Owns one file descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// "what: strerror(errno)" for error messages; reads errno at call time.
std::string errno_message(const char* what);

// Writes all of `data` to a blocking fd, retrying on EINTR and short writes.
// Sockets are written with MSG_NOSIGNAL so a vanished peer gives EPIPE, not SIGPIPE. A
// non-blocking fd is waited on with poll().
// Returns false (errno set) on error.
bool write_all(int fd, std::span<const std::byte> data);

// Outcome of read_exact: the whole buffer, a clean end of file before the first byte
// or in the middle, an error (errno set), or the deadline passing.
enum class ReadResult { kOk, kEof, kError, kTimeout };

// Reads exactly out.size() bytes, retrying on EINTR and short reads. timeout_ms < 0 waits forever;
// otherwise it bounds the whole read.
ReadResult read_exact(int fd, std::span<std::byte> out, int timeout_ms = -1);

void set_nonblocking(int fd);

// The address of a Unix stream socket named `name`: a path, or, when it starts with '@', a
// name in Linux's abstract namespace (no file at all). Throws std::invalid_argument if the
// name does not fit. `length` is what bind()/connect() take.
struct UnixAddress {
  sockaddr_un addr{};
  socklen_t length = 0;
};
UnixAddress unix_address(const std::string& name);

}  // namespace lapis::runtime::internal
