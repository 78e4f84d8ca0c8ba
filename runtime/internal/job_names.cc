#include "runtime/internal/job_names.hpp"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "lapi/link.hpp"
#include "lapi/names.hpp"
#include "runtime/internal/tcp.hpp"

namespace lapis::runtime::internal {

JobNames::JobNames(const std::optional<std::string>& address) {
  const std::string interface = address ? interface_of_address(*address) : std::string();
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
