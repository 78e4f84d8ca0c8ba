#pragma once
// What lapirun needs to start ranks on the test hosts (tests/support/test_hosts.hpp): the agent
// that enters them, their map, and the rendezvous on the first host's address.
#include "tests/runtime/subprocess.hpp"
#include "tests/support/test_hosts.hpp"

namespace lapis::runtime::testing {

inline Command::EnvChanges lapirun_env(const lapis::testing::TestHosts& hosts) {
  return {{"LAPIS_LAUNCH_AGENT", lapis::testing::TestHosts::agent_path()},
          {"TEST_HOSTS_MAP", hosts.hosts_variable()},
          {"LAPIS_RENDEZVOUS_ADDR", hosts.address(0)}};
}

}  // namespace lapis::runtime::testing
