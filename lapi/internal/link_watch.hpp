#pragma once
// Watching the links to tasks on other hosts where no launcher does (a job under PMIx: under
// lapirun the launcher's connection to each rank's host is the watch). One TCP connection per
// pair of tasks on different hosts, the lower task connecting, each with keepalive and
// TCP_USER_TIMEOUT (detect_dead_link, LAPIS_LINK_TIMEOUT), and a thread of its own asleep in
// poll() on them: an error or an end without goodbye (a cut link, a crashed host, a task that
// exited) is that task's failure, reported like UCX's endpoint errors. An orderly term() says
// goodbye first. Nothing on the message path; UCX's own keepalive took 18 s or more to notice
// a deleted interface between two test hosts, when it noticed at all.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lapi/context.hpp"
#include "lapi/status.hpp"

namespace lapi::internal {

class LinkWatch {
 public:
  struct Peer {
    TaskId task;
    std::uint64_t uid;    // what its hello carries
    std::uint32_t ip;     // its listener, network byte order
    std::uint16_t port;
  };
  // Called on the watch thread, once per task.
  using Report = std::function<void(TaskId task, const std::string& why)>;

  LinkWatch() = default;
  LinkWatch(const LinkWatch&) = delete;
  LinkWatch& operator=(const LinkWatch&) = delete;
  ~LinkWatch() { stop(false); }

  // A listener on `interface`'s IPv4 address (empty: the first interface that is up and not
  // loopback). Its address and port go in this task's card.
  Status listen(const std::string& interface);
  std::uint32_t ip() const { return ip_; }
  std::uint16_t port() const { return port_; }

  // Connects to the peers with higher ids than `me`, accepts the lower ones (at most
  // `timeout_ms` for all), then watches every connection on a thread of its own.
  Status start(TaskId me, std::uint64_t uid, const std::vector<Peer>& peers, int timeout_ms, Report report);
  // Ends the watch: with `goodbye`, each peer hears that this task leaves in order.
  void stop(bool goodbye);

 private:
  void watch();

  int listen_fd_ = -1;
  std::uint32_t ip_ = 0;
  std::uint16_t port_ = 0;
  struct Conn {
    int fd;
    TaskId task;
  };
  std::vector<Conn> conns_;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  Report report_;
};

}  // namespace lapi::internal
