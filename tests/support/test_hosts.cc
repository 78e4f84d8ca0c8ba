#include "tests/support/test_hosts.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "tests/support/launch.hpp"

namespace lapis::testing {

namespace {

// "lapis<pid>x<random>": the pid alone repeats across Bazel's sandboxes (each has a pid namespace).
std::string job_prefix() {
  std::random_device random;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "x%04x", random() & 0xffff);
  return "lapis" + std::to_string(::getpid()) + suffix;
}

}  // namespace

TestHosts::TestHosts(int n, int links) {
  const std::string prefix = job_prefix();
  switch_ = start_holder(prefix + "-switch");
  if (!available()) return;
  const std::string sw = "nsenter -t " + std::to_string(switch_) + " -n ";
  if (!sh(sw + "ip link set lo up")) return;
  for (int link = 0; link < links && available(); ++link) {
    const std::string bridge = "br" + std::to_string(link);
    (void)(sh(sw + "ip link add " + bridge + " type bridge") && sh(sw + "ip link set " + bridge + " up"));
  }
  for (int i = 0; i < n && available(); ++i) {
    const std::string name = prefix + "-h" + std::to_string(i);
    const pid_t pid = start_holder(name);
    if (!available()) return;
    names_.push_back(name);
    holders_.push_back(pid);
    const std::string host = "nsenter -t " + std::to_string(pid) + " -n ";
    if (!sh(host + "ip link set lo up")) return;
    for (int link = 0; link < links && available(); ++link) {
      const std::string port = "p" + std::to_string(link) + "x" + std::to_string(i);
      const std::string dev = "lapis" + std::to_string(link);
      // The veth is made in the switch's namespace, its far end moved straight into the host's.
      (void)(sh(sw + "ip link add " + port + " type veth peer name " + dev + " netns " + std::to_string(pid)) &&
             sh(sw + "ip link set " + port + " master br" + std::to_string(link) + " up") &&
             sh(host + "ip addr add " + address(i, link) + "/24 dev " + dev) && sh(host + "ip link set " + dev + " up"));
    }
  }
  if (available()) {
    std::fprintf(stderr, "TEST HOSTS: %d namespaces up, %d link%s each (", n, links, links == 1 ? "" : "s");
    for (int i = 0; i < n; ++i) std::fprintf(stderr, "%s%s=%s", i ? ", " : "", name(i).c_str(), address(i).c_str());
    std::fprintf(stderr, ")\n");
  }
}

bool TestHosts::cut_link(int i, int link) {
  return sh("nsenter -t " + std::to_string(holder(i)) + " -n ip link del lapis" + std::to_string(link));
}

bool TestHosts::limit_rate(int i, int link, const std::string& rate) {
  // A burst of 64 KiB and at most 50 ms of queue: the rate holds from the first packet.
  return sh("nsenter -t " + std::to_string(holder(i)) + " -n tc qdisc replace dev lapis" + std::to_string(link) +
            " root tbf rate " + rate + " burst 64kb latency 50ms");
}

TestHosts::~TestHosts() {
  std::vector<pid_t> all = holders_;
  if (switch_ > 0) all.push_back(switch_);
  for (pid_t pid : all) ::kill(pid, SIGKILL);
  for (pid_t pid : all) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

pid_t TestHosts::start_holder(const std::string& hostname) {
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    why_not_ = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the test: its namespaces go with it
    if (::getppid() != parent) ::_exit(1);
    int error = 0;
    // A mount namespace too, only to mount a sysfs of this network namespace on /sys: UCX finds
    // network devices in /sys/class/net, which otherwise lists the machine's. Everything else
    // (/tmp, /dev/shm) stays shared, as on one machine.
    if (::unshare(CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWNS) != 0 ||
        ::sethostname(hostname.c_str(), hostname.size()) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) {
      error = errno;
    }
    (void)!::write(ready[1], &error, sizeof error);
    if (error != 0) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  int error = -1;
  const ssize_t got = pid > 0 ? ::read(ready[0], &error, sizeof error) : -1;
  ::close(ready[0]);
  if (pid < 0 || got != sizeof error || error != 0) {
    why_not_ = std::string("cannot make a network, UTS and mount namespace (unshare: ") +
               std::strerror(error > 0 ? error : errno) + "; root needed)";
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    return -1;
  }
  return pid;
}

bool TestHosts::sh(const std::string& command) {
  const LaunchResult r = run_shell(command + " 2>&1");
  if (r.status == 0) return true;
  why_not_ = "'" + command + "' failed (status " + std::to_string(r.status) + "): " + r.output;
  return false;
}

std::vector<pid_t> TestHosts::processes_inside() const {
  auto net_ns = [](pid_t pid) {
    char link[128] = {};
    const std::string path = "/proc/" + std::to_string(pid) + "/ns/net";
    return ::readlink(path.c_str(), link, sizeof link - 1) > 0 ? std::string(link) : std::string();
  };
  std::vector<std::string> ours;
  for (pid_t pid : holders_) ours.push_back(net_ns(pid));
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (std::find(holders_.begin(), holders_.end(), pid) != holders_.end()) continue;
    const std::string ns = net_ns(pid);
    if (!ns.empty() && std::find(ours.begin(), ours.end(), ns) != ours.end()) found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> TestHosts::left_after(double seconds) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<pid_t> left = processes_inside();
  while (!left.empty() && std::chrono::steady_clock::now() < deadline) {
    // Wait for the first one to end (a pidfd becomes readable then), at most until the deadline.
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, left.front(), 0));
    if (fd >= 0) {
      pollfd p{fd, POLLIN, 0};
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      (void)::poll(&p, 1, static_cast<int>(std::max<long long>(ms.count(), 0)));
      ::close(fd);
    }
    left = processes_inside();
  }
  return left;
}

std::vector<std::string> TestHosts::enter(int i) const {
  return {"nsenter", "-t", std::to_string(holder(i)), "-n", "-u", "-m", "--"};
}

std::string TestHosts::agent_path() { return runfile("tests/support/test_host_agent.sh"); }

std::string TestHosts::hosts_variable() const {
  std::string value;
  for (int i = 0; i < size(); ++i) value += (i ? "," : "") + name(i) + "=" + std::to_string(holder(i));
  return value;
}

bool TestHosts::skip_if_unavailable(const char* test) const {
  if (available()) {
    std::fprintf(stderr, "TEST HOSTS: RUNNING %s across %d test hosts\n", test, size());
    return false;
  }
  const char* required = std::getenv("LAPIS_REQUIRE_TEST_HOSTS");
  const bool must = required != nullptr && std::strcmp(required, "1") == 0;
  std::fprintf(stderr, "\n*** TEST HOSTS: %s %s: %s ***\n\n", must ? "FAILED" : "SKIPPED", test, why_not_.c_str());
  if (must) std::abort();
  return true;
}

}  // namespace lapis::testing
