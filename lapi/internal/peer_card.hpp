#pragma once
// What each task publishes at init, through the bootstrap's allgather, for
// the others to choose their path to it once (Context::Impl::start): its
// UCX worker address with every transport and with the network ones only
// (a LAPIS_PATHS rule asking tcp connects to that one), its split-copy
// probe, its shared-memory inbox, its host name (for LAPIS_PATHS) and its links (LAPIS_LINKS).

#include <ucp/api/ucp.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "lapi/internal/links.hpp"
#include "lapi/internal/shm_channel.hpp"
#include "lapi/status.hpp"
#include "lapi/internal/wire.hpp"

namespace lapi::internal {

struct PeerCard {
  std::vector<std::byte> ucx_address;      // every transport
  std::vector<std::byte> ucx_net_address;  // network transports only (may be empty)
  SplitAddress split;
  ShmAddress shm;
  std::string host;
  std::uint64_t uid = 0;  // the task's identity (Context::task_uid)
  std::vector<LinkAddress> links;  // at most kMaxLinks
  // Its link watch's listener (link_watch.hpp), under PMIx; 0: none.
  std::uint32_t watch_ip = 0;
  std::uint16_t watch_port = 0;
};

std::vector<std::byte> pack_card(const PeerCard& card);
// This worker's UCX address, with every transport or (net_only) the network ones only.
Status worker_address(ucp_worker_h worker, bool net_only, std::vector<std::byte>& out);
// False when `blob` is not a whole card.
bool unpack_card(std::span<const std::byte> blob, PeerCard& out);

}  // namespace lapi::internal
