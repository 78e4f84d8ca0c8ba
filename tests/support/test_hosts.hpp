#pragma once
// N "hosts" on this machine for tests: each a network namespace with its own UTS hostname (so
// Lapis sees separate nodes), joined by veth pairs to a bridge in a namespace of its own, with
// addresses 198.18.0.1, .2, ... /24 on an interface named "lapis0". With several links, link L
// is a bridge of its own, "lapisL" in each host, 198.18.L.1, .2, ... /24. Nothing is routed
// outside and the machine's own namespace is not touched at all.
//
// Each namespace is held by a child process (unshare + pause) that dies with the test process
// (PR_SET_PDEATHSIG): when the last process in a namespace ends, the kernel removes it with its
// veth ends, so nothing is left behind even if the test crashes or is SIGKILLed. Nothing is
// named in the machine's namespace (no /run/netns entries, no links), so there is no stale state
// to sweep; the hostnames carry the test's pid and a random part ("lapis<pid>x<hex>-h<i>") so
// concurrent tests differ.
//
// Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), `ip` and `nsenter`. Where that is missing,
// available() is false and why_not() says why; tests then skip, loudly, unless
// LAPIS_REQUIRE_TEST_HOSTS=1 makes that a failure (CI sets it to prove they ran).
#include <sys/types.h>

#include <string>
#include <vector>

namespace lapis::testing {

class TestHosts {
 public:
  explicit TestHosts(int n, int links = 1);
  ~TestHosts();  // kills the holders: the namespaces and links go with them
  TestHosts(const TestHosts&) = delete;
  TestHosts& operator=(const TestHosts&) = delete;

  bool available() const { return why_not_.empty(); }
  const std::string& why_not() const { return why_not_; }
  int size() const { return static_cast<int>(names_.size()); }
  const std::string& name(int i) const { return names_[static_cast<std::size_t>(i)]; }
  std::string address(int i, int link = 0) const {
    return "198.18." + std::to_string(link) + "." + std::to_string(i + 1);
  }
  // Host i's end of link L ("lapisL"): deleted (the link goes down, both ends at once), or its
  // sending rate limited (tc's token bucket, e.g. "200mbit"). False (why_not() says why) on error.
  bool cut_link(int i, int link);
  bool limit_rate(int i, int link, const std::string& rate);
  pid_t holder(int i) const { return holders_[static_cast<std::size_t>(i)]; }

  // argv prefix that runs a command on host i: nsenter into its network, UTS and mount
  // namespaces (the last only has its own /sys).
  std::vector<std::string> enter(int i) const;
  // The launch agent for lapirun (tests/support/test_host_agent.sh) and the variable it reads:
  // TEST_HOSTS_MAP=name=pid,name=pid,...
  static std::string agent_path();
  std::string hosts_variable() const;

  // Processes inside any test host's namespace other than the holders (a finished job must
  // leave none).
  std::vector<pid_t> processes_inside() const;
  // processes_inside(), once it is empty or after `seconds` (processes killed a moment ago take a
  // little while to go): what is still there.
  std::vector<pid_t> left_after(double seconds) const;

  // Whether the test should skip: prints a loud line either way (so a CI log shows whether the
  // multi-host tests ran) and fails instead of skipping under LAPIS_REQUIRE_TEST_HOSTS=1.
  bool skip_if_unavailable(const char* test) const;

 private:
  pid_t start_holder(const std::string& hostname);
  bool sh(const std::string& command);

  std::vector<std::string> names_;
  std::vector<pid_t> holders_;
  pid_t switch_ = -1;  // holds the bridge's namespace
  std::string why_not_;
};

}  // namespace lapis::testing
