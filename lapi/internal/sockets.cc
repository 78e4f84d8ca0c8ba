#include "lapi/internal/sockets.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace lapi::internal {

InterfaceAddress interface_ipv4(const std::string& name) {
  InterfaceAddress found;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return found;
  for (const ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET || (it->ifa_flags & IFF_UP) == 0) continue;
    if (name.empty() ? (it->ifa_flags & IFF_LOOPBACK) != 0 : name != it->ifa_name) continue;
    found.ip = reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr.s_addr;
    found.mask = reinterpret_cast<const sockaddr_in*>(it->ifa_netmask)->sin_addr.s_addr;
    break;
  }
  ::freeifaddrs(list);
  return found;
}

int listen_ipv4(std::uint32_t ip, std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = ip;
  socklen_t len = sizeof at;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&at), &len) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    errno = e;
    return -1;
  }
  port = at.sin_port;
  return fd;
}

int connect_ipv4(std::uint32_t ip, std::uint16_t port, std::uint32_t from) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int on = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  sockaddr_in here{};
  here.sin_family = AF_INET;
  here.sin_addr.s_addr = from;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = ip;
  to.sin_port = port;
  if ((from != 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&here), sizeof here) != 0) ||
      (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

std::string ip_text(std::uint32_t ip) {
  char text[INET_ADDRSTRLEN] = {};
  in_addr a{ip};
  ::inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

}  // namespace lapi::internal
