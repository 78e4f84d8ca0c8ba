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

// 32 hex digits from the kernel's random source.
std::string make_job_secret();

// Constant-time comparison, so the time to refuse says nothing about the secret.
bool same_secret(std::string_view a, std::string_view b);

}  // namespace lapis::runtime::internal
