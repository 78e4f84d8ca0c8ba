// Watching the links to tasks on other hosts under PMIx (link_watch.hpp says why and how).
#include "lapi/internal/link_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "lapi/internal/sockets.hpp"
#include "runtime/internal/tcp.hpp"

namespace lapi::internal {

namespace {

constexpr std::uint64_t kHelloMagic = 0x6c61706973776131;  // "lapiswa1"
constexpr char kGoodbye = 'B';
// Making the connections at init: the tasks leave the card exchange together, so this is a
// bound for a loaded host, not a wait.
constexpr int kSetupMs = 20000;

using Clock = std::chrono::steady_clock;

int ms_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(left, 0));
}

// Reads exactly `len` bytes from non-blocking `fd` before `deadline`.
bool read_all(int fd, void* to, std::size_t len, Clock::time_point deadline) {
  auto* at = static_cast<char*>(to);
  while (len > 0) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms_until(deadline)) <= 0) return false;
    const ssize_t r = ::recv(fd, at, len, 0);
    if (r <= 0) return false;
    at += r;
    len -= static_cast<std::size_t>(r);
  }
  return true;
}

int connect_before(std::uint32_t ip, std::uint16_t port, Clock::time_point deadline) {
  const int fd = connect_ipv4(ip, port, 0);
  if (fd < 0) return -1;
  pollfd p{fd, POLLOUT, 0};
  int error = 0;
  socklen_t len = sizeof error;
  if (::poll(&p, 1, ms_until(deadline)) <= 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 ||
      error != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

Status LinkWatch::listen(const std::string& interface) {
  ip_ = interface_ipv4(interface).ip;
  if (ip_ == 0) return Errc::success;  // nothing to watch with: UCX's word only
  listen_fd_ = listen_ipv4(ip_, port_);
  if (listen_fd_ < 0) {
    const int e = errno;
    const std::string where = ip_text(ip_);
    ip_ = 0;
    return fail(Errc::no_connectivity, "init: watching links to other hosts: cannot listen on {}: {}", where,
                std::strerror(e));
  }
  return Errc::success;
}

Status LinkWatch::start(TaskId me, std::uint64_t uid, const std::vector<Peer>& peers, int timeout_ms,
                        Report report) {
  report_ = std::move(report);
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(kSetupMs);
  std::vector<TaskId> missing;
  std::size_t lower = 0;
  for (const Peer& p : peers) {
    if (p.task < me) {
      ++lower;
      continue;
    }
    const int fd = connect_before(p.ip, p.port, deadline);
    const std::uint64_t hello[2] = {kHelloMagic, uid};
    if (fd < 0 || ::send(fd, hello, sizeof hello, MSG_NOSIGNAL) != sizeof hello) {
      if (fd >= 0) ::close(fd);
      missing.push_back(p.task);
      continue;
    }
    conns_.push_back(Conn{fd, p.task});
  }
  // The lower tasks connect to us; a stranger's connection is dropped.
  for (std::size_t accepted = 0; accepted < lower && listen_fd_ >= 0;) {
    pollfd l{listen_fd_, POLLIN, 0};
    if (::poll(&l, 1, ms_until(deadline)) <= 0) break;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::uint64_t hello[2] = {};
    // A stranger who says nothing holds the rest up for a second at most.
    const auto said = std::min(deadline, Clock::now() + std::chrono::seconds(1));
    const auto from = read_all(fd, hello, sizeof hello, said) && hello[0] == kHelloMagic
                          ? std::find_if(peers.begin(), peers.end(), [&](const Peer& p) { return p.uid == hello[1] && p.task < me; })
                          : peers.end();
    const bool known = from != peers.end() &&
                       std::none_of(conns_.begin(), conns_.end(), [&](const Conn& c) { return c.task == from->task; });
    if (!known) {
      ::close(fd);
      continue;
    }
    conns_.push_back(Conn{fd, from->task});
    ++accepted;
  }
  for (const Peer& p : peers) {
    if (p.task < me && std::none_of(conns_.begin(), conns_.end(), [&](const Conn& c) { return c.task == p.task; })) {
      missing.push_back(p.task);
    }
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
  for (TaskId t : missing) {
    fmt::print(stderr, "lapis[{}]: warning: cannot watch the link to task {}; its failure is left to UCX\n", me, t);
  }
  for (const Conn& c : conns_) lapis::runtime::internal::detect_dead_link(c.fd, timeout_ms);
  if (conns_.empty()) return Errc::success;
  if (::pipe2(wake_, O_CLOEXEC) != 0) return fail(Errc::no_connectivity, "init: link watch: pipe: {}", std::strerror(errno));
  thread_ = std::thread([this] { watch(); });
  return Errc::success;
}

void LinkWatch::watch() {
  std::vector<pollfd> fds;
  std::vector<bool> done(conns_.size());
  for (;;) {
    fds.assign(1, pollfd{wake_[0], POLLIN, 0});
    for (const Conn& c : conns_) fds.push_back(pollfd{c.fd, POLLIN, 0});
    for (std::size_t i = 0; i < conns_.size(); ++i) {
      if (done[i]) fds[i + 1].fd = -1;  // poll() skips it
    }
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) return;  // stop()
    for (std::size_t i = 0; i < conns_.size(); ++i) {
      if (done[i] || fds[i + 1].revents == 0) continue;
      char byte = 0;
      const ssize_t r = ::recv(conns_[i].fd, &byte, 1, MSG_DONTWAIT);
      if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      done[i] = true;
      if (r == 1 && byte == kGoodbye) continue;  // it left in order
      report_(conns_[i].task, r == 0 ? std::string("its connection to this task closed without a goodbye")
                                     : fmt::format("the link to its host failed ({})",
                                                   r < 0 ? std::strerror(errno) : "unexpected data"));
    }
  }
}

void LinkWatch::stop(bool goodbye) {
  if (thread_.joinable()) {
    const char wake = 1;
    (void)!::write(wake_[1], &wake, 1);
    thread_.join();
  }
  for (const Conn& c : conns_) {
    if (goodbye) (void)::send(c.fd, &kGoodbye, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    ::close(c.fd);
  }
  conns_.clear();
  for (int& fd : wake_) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

}  // namespace lapi::internal
