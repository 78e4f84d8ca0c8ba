#pragma once
// How a rank on another host is started: through the launch agent ($LAPIS_LAUNCH_AGENT, default
// "ssh"), as `AGENT... HOST env NAME=VALUE... PROGRAM ARGS...`. The agent forwards no
// environment (ssh does not), so everything the rank needs is on the command line.
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lapis::runtime::internal {

// The agent's words ("ssh -o BatchMode=yes" gives two); "ssh" when `agent_env` is empty or blank.
std::vector<std::string> split_agent(std::string_view agent_env);

// argv for the agent process. `env` holds NAME=VALUE entries for the rank. When the agent is
// ssh or rsh (which hand the remote shell one string), words are quoted for that shell.
std::vector<std::string> remote_rank_argv(const std::vector<std::string>& agent, const std::string& host,
                                          const std::vector<std::string>& env, const std::string& program,
                                          const std::vector<std::string>& args);

// The variables a remote rank gets, from `rank_env` (a local rank's environment, from
// build_rank_environment): every LAPIS_* (the job's rendezvous, id and secret among them) but
// the launcher's own, the variables named by -x (`x_names`), and LAPIS_RANK/LAPIS_SIZE.
std::vector<std::string> remote_rank_env(const std::vector<std::string>& rank_env,
                                         const std::set<std::string>& x_names, int rank, int size);

}  // namespace lapis::runtime::internal
