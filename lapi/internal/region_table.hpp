#pragma once
// This task's registered memory (memory.cc): the regions peers may reach
// with Put, Get and Rmw, by base address, with their packed rkeys and who
// fetched them; the rkey fetches this task waits for; and the deregistrations
// waiting for peers to drop a key. Everything here is guarded by the
// engine's lock_ (the calling thread and the UCX callbacks on_rkey_*).
// Regions are unmapped at shutdown(). Peers' regions are per peer (peer.hpp).

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "handlers/handler.hpp"
#include "lapi/status.hpp"

namespace lapi::internal {

// The region in `m` (keyed by base, with a `len`) that covers
// [addr, addr+len), if any; m.end() otherwise. For this task's regions and
// for a peer's (Peer::remote_regions).
template <typename Map>
auto covering(Map& m, std::uint64_t addr, std::uint64_t len) -> decltype(m.begin()) {
  auto it = m.upper_bound(addr);
  if (it == m.begin()) return m.end();
  --it;
  const std::uint64_t base = it->first;
  const std::uint64_t size = it->second.len;
  if (addr - base > size || len > size - (addr - base)) return m.end();
  return it;
}

struct Region {
  std::size_t len = 0;
  ucp_mem_h memh = nullptr;
  std::vector<std::byte> packed_rkey;
  bool allocated = false;
  std::vector<bool> fetched_by;  // peers that hold our rkey and must drop it
};

// An rkey fetch (remote_key) until the target's reply.
struct RkeyWait {
  bool done = false;
  Errc code = Errc::success;
};

struct RegionTable {
  std::map<std::uint64_t, Region> by_base;
  std::uint64_t next_token = 1;  // rkey fetches and drop rounds; never reused
  std::unordered_map<std::uint64_t, RkeyWait> rkey_waits;
  std::unordered_map<std::uint64_t, std::vector<TaskId>> drops_pending;  // token -> peers to answer

  // Whether [addr, addr + len) is registered here.
  bool covers(std::uint64_t addr, std::uint64_t len) const {
    return covering(by_base, addr, len) != by_base.end();
  }
};

}  // namespace lapi::internal
