// Which path each peer is reached by, for LAPIS_VERBOSE=1: "self" (this task), "shm" (same
// host: the shared-memory ring, and split copy where "+split"), "ucx" (the rings off or unusable:
// every message through UCX, over the transport it picks), "ucx/tcp" (LAPIS_TRANSPORTS=tcp or a
// LAPIS_PATHS rule: every message through UCX over TCP); "+links:N" where large Amsends are
// striped over N links (LAPIS_LINKS).
#include <cstdio>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lapi/internal/engine.hpp"

namespace lapi {

std::string_view to_string(Path path) {
  switch (path) {
    case Path::self: return "self";
    case Path::shm: return "shm";
    case Path::ucx: return "ucx";
  }
  return "?";
}

PathInfo Context::Impl::path_info(TaskId t) const {
  const internal::Peer& peer = peers_[t];
  return {peer.path, peer.split, peer.over_tcp, peer.stripes ? links_.link_count(t) : 0,
          !peer.other_host && !peer.joined};
}

Status Context::path_of(TaskId task, PathInfo& out) const {
  if (task >= impl_->npeers()) {
    return fail(Errc::tgt, "path_of: task={} is not a task (0..{})", task, impl_->npeers() - 1);
  }
  out = impl_->path_info(task);
  return Errc::success;
}

void Context::Impl::report_paths() const {
  std::string line = fmt::format("lapis[{}] on {}: paths:", me_, peers_[me_].host);
  for (std::uint32_t t = 0; t < ntasks_; ++t) {
    const PathInfo p = path_info(t);
    line += fmt::format(" {}={}{}{}", t, to_string(p.path), p.split ? "+split" : "",
                        p.tcp ? "/tcp" : "");
    if (p.links > 0) line += fmt::format("+links:{}", p.links);
  }
  if (split_.cma_copy_ratio > 0) {
    line += fmt::format("; split copy from {} B (a 16 KiB cross-memory read costs {:.1f} copies)",
                        split_threshold(), split_.cma_copy_ratio);
  }
  line += '\n';
  std::fputs(line.c_str(), stderr);
}

}  // namespace lapi
