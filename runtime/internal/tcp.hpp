#pragma once
// The rendezvous over TCP, for jobs that span hosts: "tcp:ADDRESS:PORT" endpoints (IPv4), the
// per-job secret every connection proves, and the local interface a connection leaves by.
#include <string>
#include <string_view>

#include "runtime/internal/fd.hpp"

namespace lapis::runtime::internal {

inline constexpr std::string_view kTcpPrefix = "tcp:";
// The variable that carries the job's secret to every rank.
inline constexpr const char* kJobSecretVariable = "LAPIS_JOB_SECRET";

// A listening socket bound to `address` (an IPv4 literal of this host) on a free port; `spec`
// receives "tcp:ADDRESS:PORT". Throws std::runtime_error naming the address.
UniqueFd listen_tcp(const std::string& address, std::string& spec);

// Connects to "tcp:ADDRESS:PORT" (blocking). Throws std::runtime_error naming the endpoint.
UniqueFd connect_tcp(const std::string& spec);

// The address of this host that packets to `host` leave from (resolved; a UDP socket is
// "connected" to learn the route, nothing is sent). Throws std::runtime_error naming the host.
std::string local_address_towards(const std::string& host);

// The name of the interface holding the local address of connected socket `fd` ("" if none).
std::string interface_of_socket(int fd);
// The name of the interface holding IPv4 address `ipv4` ("" if none, or not an address).
std::string interface_of_address(const std::string& ipv4);

// Lost links. A rendezvous connection across hosts is the launcher's only word from a remote
// rank, and a dead link (a cable pulled, an interface gone) sends no FIN: without help the
// kernel would retransmit for minutes. detect_dead_link() makes the kernel itself probe an idle
// connection every second (TCP keepalive) and give up once nothing has come back for
// `timeout_ms` (TCP_USER_TIMEOUT, which also bounds unacknowledged data): poll() then reports
// an error on the socket and read() fails with ETIMEDOUT. The peer's kernel answers the probes,
// so a rank busy computing, outside the library, is never taken for dead.
inline constexpr const char* kLinkTimeoutVariable = "LAPIS_LINK_TIMEOUT";
inline constexpr int kDefaultLinkTimeoutMs = 2000;
void detect_dead_link(int fd, int timeout_ms);
// LAPIS_LINK_TIMEOUT in milliseconds (seconds in the variable, 1 to 3600; default 2).
// Throws std::runtime_error naming the variable and the value.
int link_timeout_ms();

// 32 hex digits from the kernel's random source.
std::string make_job_secret();

// Constant-time comparison, so the time to refuse says nothing about the secret.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace lapis::runtime::internal
