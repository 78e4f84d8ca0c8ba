#pragma once
// Names of the shared-memory files a rank creates (the core's inbox in
// /dev/shm). They start with the job's id and the creating process's id, so
// the launcher can remove what a rank left behind once that rank has ended:
// a rank killed before its Init finished never unlinks its own. The job id
// keeps jobs apart where process ids are not unique (PID namespaces, e.g.
// sandboxes or containers sharing /dev/shm).
#include <sys/types.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace lapis::runtime {

// Set by lapirun in every rank's environment: a random id of the job.
inline constexpr const char* kJobIdVariable = "LAPIS_JOB_ID";

// "lapis-<job>-<pid>-": every such file of process `pid` begins with this
// (in /dev/shm; shm_open takes it with a leading '/').
// Only letters and digits of `job` are used (it comes from the environment).
inline std::string rank_shm_prefix(std::string_view job, pid_t pid) {
  std::string name = "lapis-";
  for (char c : job.substr(0, 32)) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) name += c;
  }
  return name + "-" + std::to_string(pid) + "-";
}

// The prefix for this process, in the job its environment names.
inline std::string own_shm_prefix(pid_t pid) {
  const char* job = std::getenv(kJobIdVariable);
  return rank_shm_prefix(job ? job : "", pid);
}

}  // namespace lapis::runtime
