#include "runtime/internal/remote_command.hpp"

namespace lapis::runtime::internal {
namespace {

bool needs_quoting(const std::string& word) {
  if (word.empty()) return true;
  for (char c : word) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',' || c == '+';
    if (!plain) return true;
  }
  return false;
}

std::string shell_quote(const std::string& word) {
  if (!needs_quoting(word)) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool agent_uses_shell(const std::string& agent) {
  const std::string base = agent.substr(agent.rfind('/') + 1);
  return base == "ssh" || base == "rsh";
}

}  // namespace

std::vector<std::string> split_agent(std::string_view agent_env) {
  std::vector<std::string> words;
  std::string word;
  for (char c : agent_env) {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  if (words.empty()) words.push_back("ssh");
  return words;
}

std::vector<std::string> remote_rank_argv(const std::vector<std::string>& agent, const std::string& host,
                                          const std::vector<std::string>& env, const std::string& program,
                                          const std::vector<std::string>& args) {
  const bool quote = agent_uses_shell(agent.front());
  std::vector<std::string> argv = agent;
  argv.push_back(host);
  argv.push_back("env");
  auto add = [&](const std::string& word) { argv.push_back(quote ? shell_quote(word) : word); };
  for (const std::string& entry : env) add(entry);
  add(program);
  for (const std::string& arg : args) add(arg);
  return argv;
}

std::vector<std::string> remote_rank_env(const std::vector<std::string>& rank_env,
                                         const std::set<std::string>& x_names, int rank, int size) {
  const std::set<std::string> launcher_only = {"LAPIS_LAUNCH_AGENT", "LAPIS_RENDEZVOUS_ADDR", "LAPIS_RANK",
                                               "LAPIS_SIZE", "LAPIS_TIMEOUT"};
  std::vector<std::string> env;
  for (const std::string& entry : rank_env) {
    const std::string name = entry.substr(0, entry.find('='));
    if ((name.starts_with("LAPIS_") && !launcher_only.contains(name)) || x_names.contains(name)) {
      env.push_back(entry);
    }
  }
  env.push_back("LAPIS_RANK=" + std::to_string(rank));
  env.push_back("LAPIS_SIZE=" + std::to_string(size));
  return env;
}

}  // namespace lapis::runtime::internal
