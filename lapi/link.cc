// Ports and links between jobs (link.hpp). Plain blocking TCP: this runs a few times per
// connection of two jobs, never per message.
#include "lapi/link.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

namespace lapi {
namespace {

constexpr std::string_view kPrefix = "lapis-port:v1:";
constexpr std::array<char, 8> kMagic = {'L', 'A', 'P', 'I', 'S', 'L', 'N', 'K'};
constexpr std::size_t kSecretBytes = 16;
constexpr std::uint64_t kMaxMessage = std::uint64_t{64} << 20;
// A connection that has not proved the secret by then is dropped (accept goes on waiting).
constexpr int kHandshakeTimeoutMs = 5000;

using Secret = std::array<unsigned char, kSecretBytes>;

struct PortName {
  in_addr addr{};
  std::uint16_t port = 0;
  Secret secret{};
};

std::string hex(const Secret& s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string format_name(const PortName& p) {
  char ip[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &p.addr, ip, sizeof ip);
  return fmt::format("{}{}:{}:{}", kPrefix, ip, p.port, hex(p.secret));
}

// A name without the whitespace that may trail it: programs that hand names through a file
// read them back with fgets, newline and all (MPICH's tests do), and a port name holds none.
std::string_view trimmed(std::string_view name) {
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' ' || name.back() == '\t')) {
    name.remove_suffix(1);
  }
  return name;
}

// "lapis-port:v1:IP:PORT:SECRET". Errc::set_val naming what is wrong.
Status parse_name(std::string_view name, PortName& out) {
  name = trimmed(name);
  auto bad = [&](std::string_view what) {
    return fail(Errc::set_val, "port name '{}' is not a Lapis port ({})", name, what);
  };
  if (!name.starts_with(kPrefix)) return bad(fmt::format("it does not start with '{}'", kPrefix));
  std::string_view rest = name.substr(kPrefix.size());
  const std::size_t c1 = rest.find(':');
  const std::size_t c2 = c1 == std::string_view::npos ? c1 : rest.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return bad("expected IP:PORT:SECRET after the prefix");
  const std::string ip(rest.substr(0, c1));
  if (::inet_pton(AF_INET, ip.c_str(), &out.addr) != 1) return bad("bad IPv4 address");
  const std::string_view port = rest.substr(c1 + 1, c2 - c1 - 1);
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535) {
    return bad("bad TCP port");
  }
  out.port = static_cast<std::uint16_t>(value);
  const std::string_view secret = rest.substr(c2 + 1);
  if (secret.size() != 2 * kSecretBytes) return bad("the secret is not 32 hex digits");
  for (std::size_t i = 0; i < kSecretBytes; ++i) {
    unsigned byte = 0;
    const auto [e, err] = std::from_chars(secret.data() + 2 * i, secret.data() + 2 * i + 2, byte, 16);
    if (err != std::errc{} || e != secret.data() + 2 * i + 2) return bad("the secret is not 32 hex digits");
    out.secret[i] = static_cast<unsigned char>(byte);
  }
  return Errc::success;
}

// Whole writes and reads, retried on EINTR; false when the peer went away (or timed out).
bool write_all(int fd, const void* data, std::size_t len) {
  const auto* p = static_cast<const char*>(data);
  while (len > 0) {
    const ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t len) {
  auto* p = static_cast<char*>(data);
  while (len > 0) {
    const ssize_t n = ::recv(fd, p, len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return true;
}

void set_receive_timeout(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

bool same_secret(const Secret& a, const unsigned char* b) {
  unsigned char diff = 0;  // constant time: the comparison does not tell how much matched
  for (std::size_t i = 0; i < kSecretBytes; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The IPv4 address of `interface` (empty: loopback).
Status interface_address(const std::string& interface, in_addr& out) {
  if (interface.empty()) {
    out.s_addr = htonl(INADDR_LOOPBACK);
    return Errc::success;
  }
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return fail(Errc::no_connectivity, "open_port: getifaddrs: {}", std::strerror(errno));
  bool found = false;
  for (ifaddrs* i = all; i != nullptr && !found; i = i->ifa_next) {
    if (i->ifa_addr != nullptr && i->ifa_addr->sa_family == AF_INET && interface == i->ifa_name) {
      out = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr;
      found = true;
    }
  }
  ::freeifaddrs(all);
  if (!found) return fail(Errc::no_connectivity, "open_port: interface {} has no IPv4 address", interface);
  return Errc::success;
}

struct OpenPort {
  int fd = -1;
  Secret secret{};
};

std::mutex g_ports_mutex;
std::map<std::string, OpenPort, std::less<>> g_ports;  // by name

}  // namespace

Link::~Link() {
  if (fd_ >= 0) ::close(fd_);
}

Status Link::send(std::span<const std::byte> bytes) {
  const std::uint64_t len = bytes.size();
  if (!write_all(fd_, &len, sizeof len) || !write_all(fd_, bytes.data(), bytes.size())) {
    return fail(Errc::bootstrap, "link to the other job: send failed: {}",
                errno != 0 ? std::strerror(errno) : "connection closed");
  }
  return Errc::success;
}

Status Link::receive(std::vector<std::byte>& bytes) {
  std::uint64_t len = 0;
  errno = 0;
  if (!read_all(fd_, &len, sizeof len)) {
    return fail(Errc::bootstrap, "link to the other job: it closed the connection (its job ended?)");
  }
  if (len > kMaxMessage) {
    return fail(Errc::bootstrap, "link to the other job: a message of {} bytes (at most {})", len, kMaxMessage);
  }
  bytes.resize(len);
  if (!read_all(fd_, bytes.data(), len)) {
    return fail(Errc::bootstrap, "link to the other job: it closed the connection mid-message");
  }
  return Errc::success;
}

Status Link::exchange(std::span<const std::byte> mine, std::vector<std::byte>& theirs) {
  // One side reads first, so two large messages never wait on each other's full socket buffers.
  if (speaks_first_) {
    if (Status s = send(mine); !s.ok()) return s;
    return receive(theirs);
  }
  if (Status s = receive(theirs); !s.ok()) return s;
  return send(mine);
}

Status Link::over_socket(int fd, std::unique_ptr<Link>& out) {
  if (fd < 0) return fail(Errc::set_val, "join: fd={} is not a socket", fd);
  const int mine = ::dup(fd);
  if (mine < 0) return fail(Errc::set_val, "join: fd={}: {}", fd, std::strerror(errno));
  std::unique_ptr<Link> link(new Link(mine, false));
  // Both sides send a random draw at once (small enough never to block); the lower speaks first.
  std::array<unsigned char, 16> draw{}, theirs{};
  if (::getrandom(draw.data(), draw.size(), 0) != static_cast<ssize_t>(draw.size())) {
    return fail(Errc::unknown, "join: getrandom: {}", std::strerror(errno));
  }
  if (!write_all(mine, draw.data(), draw.size()) || !read_all(mine, theirs.data(), theirs.size())) {
    return fail(Errc::no_connectivity, "join: fd={}: the other side did not answer", fd);
  }
  if (draw == theirs) return fail(Errc::no_connectivity, "join: fd={} is connected to itself", fd);
  link->speaks_first_ = draw < theirs;
  out = std::move(link);
  return Errc::success;
}

Status PortTable::open(const std::string& interface, std::string& name) {
  PortName p;
  if (Status s = interface_address(interface, p.addr); !s.ok()) return s;
  if (::getrandom(p.secret.data(), p.secret.size(), 0) != static_cast<ssize_t>(p.secret.size())) {
    return fail(Errc::unknown, "open_port: getrandom: {}", std::strerror(errno));
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(Errc::no_connectivity, "open_port: socket: {}", std::strerror(errno));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr = p.addr;
  socklen_t sl = sizeof sa;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &sl) != 0) {
    const int e = errno;
    ::close(fd);
    return fail(Errc::no_connectivity, "open_port: cannot listen: {}", std::strerror(e));
  }
  p.port = ntohs(sa.sin_port);
  name = format_name(p);
  std::lock_guard<std::mutex> g(g_ports_mutex);
  g_ports[name] = OpenPort{fd, p.secret};
  return Errc::success;
}

Status PortTable::close(std::string_view name) {
  name = trimmed(name);
  std::lock_guard<std::mutex> g(g_ports_mutex);
  auto it = g_ports.find(name);
  if (it == g_ports.end()) return fail(Errc::set_val, "close_port: '{}' is not a port opened by this process", name);
  ::close(it->second.fd);
  g_ports.erase(it);
  return Errc::success;
}

Status PortTable::wake(std::string_view name) {
  name = trimmed(name);
  std::lock_guard<std::mutex> g(g_ports_mutex);
  auto it = g_ports.find(name);
  if (it == g_ports.end()) return fail(Errc::set_val, "wake: '{}' is not a port opened by this process", name);
  // Linux wakes a poll or accept on a listening socket that is shut down (closing it would not).
  (void)::shutdown(it->second.fd, SHUT_RDWR);
  return Errc::success;
}

Status PortTable::accept(std::string_view name, bool (*idle)(void*), void* idle_arg,
                         std::unique_ptr<Link>& out, int idle_ms) {
  OpenPort port;
  name = trimmed(name);
  {
    std::lock_guard<std::mutex> g(g_ports_mutex);
    auto it = g_ports.find(name);
    if (it == g_ports.end()) return fail(Errc::set_val, "accept: '{}' is not a port opened by this process", name);
    port = it->second;
  }
  for (;;) {
    pollfd pfd{port.fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, idle_ms);
    if (ready < 0 && errno != EINTR) return fail(Errc::no_connectivity, "accept: poll: {}", std::strerror(errno));
    if (ready <= 0) {
      if (idle != nullptr && !idle(idle_arg)) return fail(Errc::timeout, "accept: stopped waiting");
      continue;
    }
    const int fd = ::accept4(port.fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
      return fail(Errc::no_connectivity, "accept: {} (was the port closed?)", std::strerror(errno));
    }
    set_receive_timeout(fd, kHandshakeTimeoutMs);
    std::array<unsigned char, kMagic.size() + kSecretBytes> hello{};
    const bool proved = read_all(fd, hello.data(), hello.size()) &&
                        std::memcmp(hello.data(), kMagic.data(), kMagic.size()) == 0 &&
                        same_secret(port.secret, hello.data() + kMagic.size());
    const char yes = 'Y';
    if (!proved || !write_all(fd, &yes, 1)) {
      ::close(fd);  // a stranger, or the wrong secret: the connector hears only a closed socket
      continue;
    }
    set_receive_timeout(fd, 0);
    const int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    out.reset(new Link(fd, false));
    return Errc::success;
  }
}

Status PortTable::connect(std::string_view name, std::unique_ptr<Link>& out) {
  PortName p;
  if (Status s = parse_name(name, p); !s.ok()) return s;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(Errc::no_connectivity, "connect: socket: {}", std::strerror(errno));
  std::unique_ptr<Link> link(new Link(fd, true));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr = p.addr;
  sa.sin_port = htons(p.port);
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    return fail(Errc::no_connectivity, "connect: nothing listens at port '{}' ({}): closed, or its job ended",
                name, std::strerror(errno));
  }
  std::array<unsigned char, kMagic.size() + kSecretBytes> hello{};
  std::memcpy(hello.data(), kMagic.data(), kMagic.size());
  std::memcpy(hello.data() + kMagic.size(), p.secret.data(), kSecretBytes);
  char answer = 0;
  // Blocks until the other job accepts (MPI_Comm_connect's semantics).
  if (!write_all(fd, hello.data(), hello.size()) || !read_all(fd, &answer, 1) || answer != 'Y') {
    return fail(Errc::no_connectivity,
                "connect: port '{}' closed the connection: it refused the secret, or was closed "
                "before accepting",
                name);
  }
  const int one = 1;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  out = std::move(link);
  return Errc::success;
}

}  // namespace lapi
