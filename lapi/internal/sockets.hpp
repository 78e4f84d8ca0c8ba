#pragma once
// IPv4 TCP sockets for the links (links.hpp) and their watch (link_watch.hpp): finding an
// interface's address, listening on it, connecting from it. Addresses and ports are in network
// byte order, as the cards carry them.

#include <cstdint>
#include <string>

namespace lapi::internal {

struct InterfaceAddress {
  std::uint32_t ip = 0;  // 0: no such interface, or it has no IPv4 address or is down
  std::uint32_t mask = 0;
};

// `name`'s IPv4 address; an empty name: the first interface that is up and not loopback.
InterfaceAddress interface_ipv4(const std::string& name);

// A non-blocking listener on `ip`, on a free port (written to `port`). -1 with errno set.
int listen_ipv4(std::uint32_t ip, std::uint16_t& port);

// A non-blocking connection to ip:port, leaving from `from` (0: as routed), with TCP_NODELAY;
// it may still be under way (poll for POLLOUT, then SO_ERROR). -1 with errno set.
int connect_ipv4(std::uint32_t ip, std::uint16_t port, std::uint32_t from);

std::string ip_text(std::uint32_t ip);

}  // namespace lapi::internal
