// Which path each peer is reached by, for LAPIS_VERBOSE=1: "self" (this task), "shm" (same
// host: the shared-memory ring, and split copy where "+split"), "ucx" (another host, or shared
// memory unusable: every message through UCX, over whatever transport UCX found).
#include <unistd.h>

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "lapi/internal/engine.hpp"

namespace lapi {

void Context::Impl::report_paths() const {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  std::string line = fmt::format("lapis[{}] on {}: paths:", me_, host);
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    const char* path = t == me_ ? "self" : shm_.reaches(t) ? (split_reaches(t) ? "shm+split" : "shm") : "ucx";
    line += fmt::format(" {}={}", t, path);
  }
  line += '\n';
  std::fputs(line.c_str(), stderr);
}

}  // namespace lapi
