#pragma once
// Jobs that connect (IMPI's heir; MPI_Open_port, MPI_Comm_accept/connect, MPI_Comm_join): the
// slow channel two independently started jobs meet over before their tasks join each other's
// contexts (Context::join_tasks).
//
// A port is a TCP listener opened by one task, named by a string another job is handed (a file,
// the command line, MPI_Publish_name). The name carries a 128-bit secret: a connection must
// prove it before anything else is read, so the listener serves only whoever was given the
// name. It listens on the interface the job's traffic uses (LAPIS_NET_IF, or the one lapirun
// chose across hosts), else on loopback only: a job on one host never listens outside it.
//
// A Link is one connected channel: each side hands the other whole messages (exchange). Slow
// and out of band, like the launcher's bootstrap: it carries cards, not data.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lapi/status.hpp"

namespace lapi {

class Link {
 public:
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // MPI_Comm_join: the two ends of a connected stream socket, one in each job. The fd stays the
  // caller's (it is duplicated). Both sides call it; who speaks first is settled between them.
  static Status over_socket(int fd, std::unique_ptr<Link>& out);

  // Sends `mine` and receives the other side's message (any lengths, up to 64 MiB). Errc::bootstrap
  // naming what failed when the other side went away.
  Status exchange(std::span<const std::byte> mine, std::vector<std::byte>& theirs);
  // One message each way, for a side that knows its turn (a server answering a request).
  Status send(std::span<const std::byte> bytes);
  Status receive(std::vector<std::byte>& bytes);

 private:
  friend class PortTable;
  Link(int fd, bool speaks_first) : fd_(fd), speaks_first_(speaks_first) {}
  int fd_ = -1;
  bool speaks_first_ = false;  // the connecting side; the other reads first
};

// The ports this process opened. Thread-safe.
class PortTable {
 public:
  // Opens a port listening on `interface` (empty: loopback) and names it.
  static Status open(const std::string& interface, std::string& name);
  // Stops listening; later connects to the name are refused. Errc::set_val for a name not open here.
  static Status close(std::string_view name);
  // Waits for a connection to the port `name` (opened here) that proves its secret; connections
  // that do not are dropped and the wait goes on. `idle` (optional) runs between waits of
  // `idle_ms` milliseconds (the caller's progress engine; -1: only when a signal interrupts the
  // wait); when it returns false the wait ends with Errc::timeout.
  static Status accept(std::string_view name, bool (*idle)(void*), void* idle_arg,
                       std::unique_ptr<Link>& out, int idle_ms = 10);
  // Ends a wait in accept on `name` from another thread (the port stops listening: the accept
  // returns Errc::no_connectivity); close it afterwards. Errc::set_val for a name not open here.
  static Status wake(std::string_view name);
  // Connects to the port `name` (opened by any job) and proves its secret. Errc::set_val for a
  // name that is not a port's; Errc::no_connectivity when nothing listens there (the port was
  // closed, or its job ended) or it refused the secret.
  static Status connect(std::string_view name, std::unique_ptr<Link>& out);
};

}  // namespace lapi
