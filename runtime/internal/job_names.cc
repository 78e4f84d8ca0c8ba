#include "runtime/internal/job_names.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "lapi/link.hpp"
#include "lapi/names.hpp"

namespace lapis::runtime::internal {
namespace {

// The name of the interface that holds IPv4 `address` ("" when none does: loopback).
std::string interface_holding(const std::string& address) {
  in_addr want{};
  if (::inet_pton(AF_INET, address.c_str(), &want) != 1) return {};
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::string found;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if (reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr == want.s_addr) {
      found = i->ifa_name;
      break;
    }
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace

JobNames::JobNames(const std::optional<std::string>& address) {
  const std::string interface = address ? interface_holding(*address) : std::string();
  if (lapi::Status s = lapi::PortTable::open(interface, port_); !s.ok()) {
    throw std::runtime_error("the job's name service: " + std::string(s.message()));
  }
  // The launcher takes its signals through a signalfd: the thread must never be the one they
  // are delivered to, so it starts with every signal blocked.
  sigset_t all, before;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  thread_ = std::thread([this] {
    if (lapi::Status s = lapi::names::serve(port_, stop_); !s.ok()) {
      std::fprintf(stderr, "lapirun: the job's name service stopped: %s\n", std::string(s.message()).c_str());
    }
  });
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

JobNames::~JobNames() {
  stop_.store(true);
  (void)lapi::PortTable::wake(port_);
  thread_.join();
  (void)lapi::PortTable::close(port_);
}

}  // namespace lapis::runtime::internal
