// Cross-memory attach (cma.hpp): process_vm_readv/writev, and /proc/PID/mem
// for small transfers.

#include "lapi/internal/cma.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace lapi::internal {

namespace {

// Calls move(here, remote, len) (a system call's result: bytes moved, or -1
// and errno) until all len bytes moved, resuming after a partial transfer
// or an interruption. 0 moved: nothing mapped there, or the task has gone.
template <typename Move>
int move_all(void* local, std::uint64_t remote, std::size_t len, Move move) {
  auto* here = static_cast<std::byte*>(local);
  while (len > 0) {
    const ssize_t n = move(here, remote, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EFAULT;
    here += n;
    remote += static_cast<std::uint64_t>(n);
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

int cma_copy(std::uint32_t pid, void* local, std::uint64_t remote, std::size_t len, bool write) {
  return move_all(local, remote, len, [&](std::byte* here, std::uint64_t there, std::size_t n) {
    iovec l{here, n};
    iovec r{reinterpret_cast<void*>(there), n};
    return write ? process_vm_writev(static_cast<pid_t>(pid), &l, 1, &r, 1, 0)
                 : process_vm_readv(static_cast<pid_t>(pid), &l, 1, &r, 1, 0);
  });
}

ProcMem::~ProcMem() { close_file(); }

ProcMem& ProcMem::operator=(ProcMem&& other) noexcept {
  if (this != &other) {
    close_file();
    fd_ = other.fd_;
    other.fd_ = kUnopened;
  }
  return *this;
}

void ProcMem::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = kUnopened;
}

int ProcMem::copy(std::uint32_t pid, void* local, std::uint64_t remote, std::size_t len,
                  bool write) {
  if (len > kMaxBytes || fd_ == kUnavailable) return cma_copy(pid, local, remote, len, write);
  if (fd_ == kUnopened) {
    char path[32];
    std::snprintf(path, sizeof path, "/proc/%u/mem", pid);
    // The file holds on to the task it named: a pid used again later by
    // another process cannot redirect these transfers.
    fd_ = ::open(path, O_RDWR | O_CLOEXEC);
    if (fd_ < 0) {
      fd_ = kUnavailable;
      return cma_copy(pid, local, remote, len, write);
    }
  }
  return move_all(local, remote, len, [&](std::byte* here, std::uint64_t there, std::size_t n) {
    const auto at = static_cast<off_t>(there);
    return write ? ::pwrite(fd_, here, n, at) : ::pread(fd_, here, n, at);
  });
}

}  // namespace lapi::internal
