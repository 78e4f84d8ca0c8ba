#include "runtime/internal/tcp.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace lapis::runtime::internal {
namespace {

sockaddr_in parse_ipv4(const std::string& address, int port, const std::string& what) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    throw std::runtime_error(what + ": '" + address + "' is not an IPv4 address");
  }
  return addr;
}

std::string address_text(const in_addr& addr) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &addr, text, sizeof text);
  return text;
}

}  // namespace

UniqueFd listen_tcp(const std::string& address, std::string& spec) {
  sockaddr_in addr = parse_ipv4(address, 0, "rendezvous address");
  // Never every interface: the rendezvous listens only where the other hosts reach it.
  if (addr.sin_addr.s_addr == htonl(INADDR_ANY)) {
    throw std::runtime_error("rendezvous address 0.0.0.0 would listen on every interface: name one address");
  }
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw std::runtime_error(errno_message("socket"));
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    throw std::runtime_error(errno_message(("cannot listen on rendezvous address " + address +
                                            " (not an address of this host?)").c_str()));
  }
  if (::listen(fd.get(), SOMAXCONN) != 0) throw std::runtime_error(errno_message("listen"));
  socklen_t len = sizeof addr;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  spec = std::string(kTcpPrefix) + address + ":" + std::to_string(ntohs(addr.sin_port));
  return fd;
}

UniqueFd connect_tcp(const std::string& spec) {
  const std::string rest = spec.substr(kTcpPrefix.size());
  const auto colon = rest.rfind(':');
  int port = 0;
  if (colon != std::string::npos) port = std::atoi(rest.c_str() + colon + 1);
  if (colon == std::string::npos || port <= 0 || port > 65535) {
    throw std::runtime_error("malformed rendezvous endpoint '" + spec + "': expected tcp:ADDRESS:PORT");
  }
  const sockaddr_in addr = parse_ipv4(rest.substr(0, colon), port, "rendezvous endpoint " + spec);
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw std::runtime_error(errno_message("socket"));
  int rc;
  do {
    rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    throw std::runtime_error(errno_message(("cannot connect to " + spec + " (launcher gone, or unreachable?)").c_str()));
  }
  const int one = 1;  // collectives are small request/reply exchanges
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

std::string local_address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), "9", &hints, &found); rc != 0 || found == nullptr) {
    throw std::runtime_error("cannot resolve host '" + host + "' to find the rendezvous address (" +
                             ::gai_strerror(rc) + "); set LAPIS_RENDEZVOUS_ADDR to this host's address " +
                             "the other hosts reach");
  }
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  const int rc = fd.valid() ? ::connect(fd.get(), found->ai_addr, found->ai_addrlen) : -1;
  ::freeaddrinfo(found);
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (rc != 0 || ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0) {
    throw std::runtime_error(errno_message(("no route to host '" + host + "'").c_str()));
  }
  return address_text(local.sin_addr);
}

namespace {

std::string interface_holding(in_addr address) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::string name;
  for (const ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    if (reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr.s_addr == address.s_addr) {
      name = it->ifa_name;
      break;
    }
  }
  ::freeifaddrs(list);
  return name;
}

}  // namespace

std::string interface_of_socket(int fd) {
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0 || local.sin_family != AF_INET) return {};
  return interface_holding(local.sin_addr);
}

std::string interface_of_address(const std::string& ipv4) {
  in_addr address{};
  if (::inet_pton(AF_INET, ipv4.c_str(), &address) != 1) return {};
  return interface_holding(address);
}

void detect_dead_link(int fd, int timeout_ms) {
  // Probes start after a second of silence and repeat every second; the count is a backstop
  // for kernels that ignore TCP_USER_TIMEOUT during keepalive.
  const int on = 1;
  const int second = 1;
  const int probes = std::max(1, (timeout_ms + 999) / 1000);
  const unsigned int user_timeout = static_cast<unsigned int>(timeout_ms);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &second, sizeof second);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &second, sizeof second);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout);
}

int link_timeout_ms() {
  const char* text = std::getenv(kLinkTimeoutVariable);
  if (text == nullptr || *text == '\0') return kDefaultLinkTimeoutMs;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds >= 1) || seconds > 3600) {
    throw std::runtime_error(std::string(kLinkTimeoutVariable) + " must be a number of seconds from 1 to 3600, got '" +
                             text + "'");
  }
  return static_cast<int>(std::lround(seconds * 1000));
}

std::string make_job_secret() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(errno_message("getrandom"));
    got += static_cast<std::size_t>(n);
  }
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (unsigned char b : bytes) {
    text += digits[b >> 4];
    text += digits[b & 15];
  }
  return text;
}

bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

}  // namespace lapis::runtime::internal
