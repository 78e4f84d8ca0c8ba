// Host lists, host files and rank placement (runtime/hosts.hpp), the agent's command line
// (runtime/internal/remote_command.hpp), and lapirun's errors for bad host input.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "runtime/hosts.hpp"
#include "runtime/internal/remote_command.hpp"
#include "tests/runtime/subprocess.hpp"

using namespace lapis::runtime;
using internal::remote_rank_argv;
using internal::remote_rank_env;
using internal::split_agent;

namespace {

std::string error_of(const std::variant<std::vector<HostSlots>, HostError>& parsed) {
  const auto* error = std::get_if<HostError>(&parsed);
  return error ? error->message : "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("-H lists: host[:N], comma-separated") {
  const auto parsed = parse_host_list("a:2,b,c.example:3");
  REQUIRE(std::holds_alternative<std::vector<HostSlots>>(parsed));
  CHECK(std::get<std::vector<HostSlots>>(parsed) ==
        std::vector<HostSlots>{{"a", 2}, {"b", 1}, {"c.example", 3}});
  CHECK(error_of(parse_host_list("a:0")) == "invalid host list 'a:0': invalid slot count in 'a:0': expected host:N "
                                           "with N from 1 to 65536");
  CHECK(contains(error_of(parse_host_list("a,,b")), "invalid host name ''"));
  CHECK(contains(error_of(parse_host_list("a:x")), "invalid slot count in 'a:x'"));
  CHECK(contains(error_of(parse_host_list("-a")), "invalid host name '-a'"));
  CHECK(contains(error_of(parse_host_list("a;rm")), "invalid host name 'a;rm'"));
}

TEST_CASE("host files: both formats, comments, blank lines; bad lines named by number") {
  const auto parsed = parse_hostfile("# cluster\n\nn1 slots=4\n  n2:2   # two\nn3\nn4 slots=2 max_slots=8\r\n", "hf");
  REQUIRE(std::holds_alternative<std::vector<HostSlots>>(parsed));
  CHECK(std::get<std::vector<HostSlots>>(parsed) ==
        std::vector<HostSlots>{{"n1", 4}, {"n2", 2}, {"n3", 1}, {"n4", 2}});
  CHECK(error_of(parse_hostfile("n1\nn2 cpus=4\n", "hf")) ==
        "hostfile hf line 2: unexpected 'cpus=4': expected 'host', 'host slots=N' or 'host:N'");
  CHECK(error_of(parse_hostfile("n1 slots=zero\n", "hf")) ==
        "hostfile hf line 1: invalid 'slots=zero': expected slots=N with N from 1 to 65536");
  CHECK(error_of(parse_hostfile("# nothing\n\n", "hf")) == "hostfile hf names no host");
}

TEST_CASE("placement: fill slots in order, or -ppn per host; too many ranks is an error") {
  const std::vector<HostSlots> hosts = {{"a", 2}, {"b", 1}};
  using Places = std::vector<std::string>;
  CHECK(std::get<Places>(place_ranks(hosts, 0, 0)) == Places{"a", "a", "b"});
  CHECK(std::get<Places>(place_ranks(hosts, 2, 0)) == Places{"a", "a"});
  CHECK(std::get<Places>(place_ranks(hosts, 0, 3)) == Places{"a", "a", "a", "b", "b", "b"});
  const auto too_many = place_ranks(hosts, 4, 0);
  REQUIRE(std::holds_alternative<HostError>(too_many));
  CHECK(std::get<HostError>(too_many).message ==
        "4 ranks requested but the hosts offer only 3 places (add slots, hosts or -ppn)");
}

TEST_CASE("local host names") {
  CHECK(is_local_host("localhost", "node7.example"));
  CHECK(is_local_host("node7.example", "node7.example"));
  CHECK(is_local_host("node7", "node7.example"));
  CHECK_FALSE(is_local_host("node8", "node7.example"));
  CHECK_FALSE(is_local_host("node", "node7"));
}

TEST_CASE("the agent's command line carries the rank's variables; ssh gets shell quoting") {
  CHECK(split_agent("") == std::vector<std::string>{"ssh"});
  CHECK(split_agent(" ssh  -o BatchMode=yes ") == std::vector<std::string>{"ssh", "-o", "BatchMode=yes"});
  const std::vector<std::string> rank_env = {"PATH=/bin", "LAPIS_RENDEZVOUS=tcp:198.18.0.1:5", "LAPIS_JOB_SECRET=ab",
                                             "LAPIS_LAUNCH_AGENT=x", "UCX_TLS=tcp", "OMP_NUM_THREADS=2"};
  const auto env = remote_rank_env(rank_env, {"OMP_NUM_THREADS"}, 3, 4);
  CHECK(env == std::vector<std::string>{"LAPIS_RENDEZVOUS=tcp:198.18.0.1:5", "LAPIS_JOB_SECRET=ab",
                                        "OMP_NUM_THREADS=2", "LAPIS_RANK=3", "LAPIS_SIZE=4"});
  CHECK(remote_rank_argv({"/usr/bin/ssh"}, "h1", {"A=a b"}, "/p", {"it's"}) ==
        std::vector<std::string>{"/usr/bin/ssh", "h1", "env", "'A=a b'", "/p", "'it'\\''s'"});
  CHECK(remote_rank_argv({"/t/agent.sh"}, "h1", {"A=a b"}, "/p", {"x y"}) ==
        std::vector<std::string>{"/t/agent.sh", "h1", "env", "A=a b", "/p", "x y"});
}

TEST_CASE("lapirun: a bad host file line, a missing file, an unknown agent are clear errors") {
  using namespace lapis::runtime::testing;
  const std::string file = "/tmp/lapis-hosts-test-" + std::to_string(::getpid());
  std::ofstream(file) << "n1 slots=2\nn2 slot=2\n";
  Outcome bad = run(Command({lapirun_path(), "--hostfile", file, probe_path(), "sleep"}));
  INFO(describe(bad));
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "lapirun: hostfile " + file + " line 2: unexpected 'slot=2'"));
  std::remove(file.c_str());
  Outcome missing = run(Command({lapirun_path(), "--hostfile", file, probe_path(), "sleep"}));
  INFO(describe(missing));
  CHECK(missing.status == 2);
  CHECK(contains(missing.err, "lapirun: cannot read hostfile '" + file + "': No such file or directory"));
  Outcome agent = run(Command({lapirun_path(), "-H", "localhost:1,198.18.0.9:1", probe_path(), "sleep"},
                              {{"LAPIS_LAUNCH_AGENT", "no-such-agent-program"}, {"LAPIS_RENDEZVOUS_ADDR", "127.0.0.1"}}));
  INFO(describe(agent));
  CHECK(agent.status == 1);
  CHECK(contains(agent.err, "launch agent (LAPIS_LAUNCH_AGENT): program 'no-such-agent-program' not found in PATH"));
  Outcome ppn = run(Command({lapirun_path(), "-ppn", "2", probe_path(), "sleep"}));
  CHECK(ppn.status == 2);
  CHECK(contains(ppn.err, "-ppn needs hosts"));
}
