// lapis_names: the name service of jobs that connect (lapi/names.hpp), as Open MPI's
// ompi-server. Prints one line, LAPIS_NAME_SERVER=<port>, then answers MPI_Publish_name,
// MPI_Lookup_name and MPI_Unpublish_name until SIGINT or SIGTERM. Jobs that set
// LAPIS_NAME_SERVER to that port share its names; the port's secret keeps everyone else out.
//
//   lapis_names [--interface IF]   listen on IF's IPv4 address (default: loopback, this host)
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "lapi/link.hpp"
#include "lapi/names.hpp"

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

int usage() {
  std::fprintf(stderr, "usage: lapis_names [--interface IF]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string interface;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--interface") == 0 && i + 1 < argc) {
      interface = argv[++i];
    } else {
      return usage();
    }
  }
  std::string port;
  if (lapi::Status s = lapi::PortTable::open(interface, port); !s.ok()) {
    std::fprintf(stderr, "lapis_names: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  std::printf("LAPIS_NAME_SERVER=%s\n", port.c_str());
  std::fflush(stdout);
  constexpr int kStopCheckMs = 200;  // a signal just before the wait is seen this late at most
  if (lapi::Status s = lapi::names::serve(port, g_stop, kStopCheckMs); !s.ok()) {
    std::fprintf(stderr, "lapis_names: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  (void)lapi::PortTable::close(port);
  return 0;
}
