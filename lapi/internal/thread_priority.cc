// Scheduling attributes of the engine's own threads (thread_priority.hpp).

#include "lapi/internal/thread_priority.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace lapi::internal {

namespace {

// On Linux a thread id names one thread to {get,set}priority (POSIX would
// take the whole process).
id_t this_thread_id() { return static_cast<id_t>(::syscall(SYS_gettid)); }

int thread_nice() {
  errno = 0;
  const int nice = ::getpriority(PRIO_PROCESS, this_thread_id());
  return errno == 0 ? nice : 0;
}

// The lowest nice value this process may take: RLIMIT_NICE's ceiling is
// 20 - limit (getrlimit(2)).
int lowest_permitted_nice() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NICE, &limit) != 0) return 19;
  if (limit.rlim_cur == RLIM_INFINITY) return -20;
  return 20 - static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 40));
}

}  // namespace

int set_thread_nice(int nice) {
  const int current = thread_nice();
  if (nice == current) return current;
  if (::setpriority(PRIO_PROCESS, this_thread_id(), nice) == 0) return nice;
  // Refused (EACCES/EPERM without CAP_SYS_NICE): as far as RLIMIT_NICE goes.
  const int fallback = std::max(nice, lowest_permitted_nice());
  if (fallback < current) (void)::setpriority(PRIO_PROCESS, this_thread_id(), fallback);
  return thread_nice();
}

void name_thread(const char* name) { (void)::pthread_setname_np(::pthread_self(), name); }

}  // namespace lapi::internal
