#include "runtime/internal/process_tree.hpp"

#include <dirent.h>

#include <cctype>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <string>

namespace lapis::runtime::internal {
namespace {

std::string comm_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

struct ProcStat {
  char state = 0;  // 0: no such process
  pid_t parent = -1;
};

// State and parent from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold spaces and
// parentheses, so the fields are counted from the last ')').
ProcStat stat_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string stat;
  std::getline(in, stat);
  const std::size_t close = stat.rfind(')');
  ProcStat result;
  long ppid = -1;
  if (close == std::string::npos ||
      std::sscanf(stat.c_str() + close + 1, " %c %ld", &result.state, &ppid) != 2) {
    return {};
  }
  result.parent = static_cast<pid_t>(ppid);
  return result;
}

// Every process's children, by parent pid.
std::multimap<pid_t, pid_t> children_by_parent() {
  std::multimap<pid_t, pid_t> children;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const pid_t parent = stat_of(name).parent;  // a process that ended meanwhile reads as -1
    if (parent > 0) children.emplace(parent, static_cast<pid_t>(std::stol(name)));
  }
  ::closedir(proc);
  return children;
}

}  // namespace

std::vector<pid_t> descendant_launchers(const std::vector<pid_t>& roots) {
  const std::string self = comm_of("self");
  const std::multimap<pid_t, pid_t> children = children_by_parent();
  std::vector<pid_t> found;
  std::deque<pid_t> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    const pid_t parent = todo.front();
    todo.pop_front();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (!self.empty() && comm_of(std::to_string(it->second)) == self) {
        found.push_back(it->second);
      } else {
        todo.push_back(it->second);
      }
    }
  }
  return found;
}

bool process_running(pid_t pid) {
  const char state = stat_of(std::to_string(pid)).state;
  return state != 0 && state != 'Z' && state != 'X';
}

}  // namespace lapis::runtime::internal
