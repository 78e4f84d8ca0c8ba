#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lapi {

// Striping (LAPIS_LINKS): large Amsends to tasks on other hosts spread over
// several network links, resent over the others when one fails.
struct LinkStats {
  struct Link {
    std::string interface;    // this task's interface (LAPIS_LINKS order)
    std::uint64_t bytes_sent = 0;  // data bytes of fragments written to it, every peer
    std::uint64_t fragments_sent = 0;
    std::uint32_t failed = 0;      // connections over it declared dead
  };
  std::vector<Link> links;
  std::uint64_t stripes_sent = 0;
  std::uint64_t stripes_received = 0;
  std::uint64_t fragments_resent = 0;    // written again after their link failed
  std::uint64_t fragments_over_ucx = 0;  // sent through UCX: no link to the peer was left
  std::uint32_t peers = 0;               // tasks reached by striping
};

}  // namespace lapi
