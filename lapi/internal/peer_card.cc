#include "lapi/internal/peer_card.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace lapi::internal {
namespace {

constexpr std::uint64_t kCardMagic = 0x6c61706973636433;  // "lapiscd3"

struct CardHead {
  std::uint64_t magic = kCardMagic;
  std::uint32_t ucx_len = 0;
  std::uint32_t net_len = 0;
  std::uint32_t host_len = 0;
  std::uint32_t links = 0;
  std::uint64_t uid = 0;
  std::uint32_t watch_ip = 0;
  std::uint32_t watch_port = 0;
  SplitAddress split;
  ShmAddress shm;
};

}  // namespace

std::vector<std::byte> pack_card(const PeerCard& card) {
  CardHead head;
  head.ucx_len = static_cast<std::uint32_t>(card.ucx_address.size());
  head.net_len = static_cast<std::uint32_t>(card.ucx_net_address.size());
  head.host_len = static_cast<std::uint32_t>(card.host.size());
  head.links = static_cast<std::uint32_t>(std::min(card.links.size(), kMaxLinks));
  head.uid = card.uid;
  head.watch_ip = card.watch_ip;
  head.watch_port = card.watch_port;
  head.split = card.split;
  head.shm = card.shm;
  const std::size_t links_len = head.links * sizeof(LinkAddress);
  std::vector<std::byte> blob(sizeof head + head.ucx_len + head.net_len + head.host_len + links_len);
  std::byte* at = blob.data();
  auto put = [&at](const void* p, std::size_t n) {
    if (n) std::memcpy(at, p, n);
    at += n;
  };
  put(&head, sizeof head);
  put(card.ucx_address.data(), head.ucx_len);
  put(card.ucx_net_address.data(), head.net_len);
  put(card.host.data(), head.host_len);
  put(card.links.data(), links_len);
  return blob;
}

bool unpack_card(std::span<const std::byte> blob, PeerCard& out) {
  CardHead head;
  if (blob.size() < sizeof head) return false;
  std::memcpy(&head, blob.data(), sizeof head);
  if (head.links > kMaxLinks) return false;
  const std::size_t links_len = head.links * sizeof(LinkAddress);
  const std::size_t body = std::size_t{head.ucx_len} + head.net_len + head.host_len + links_len;
  if (head.magic != kCardMagic || blob.size() != sizeof head + body) return false;
  const std::byte* at = blob.data() + sizeof head;
  out.ucx_address.assign(at, at + head.ucx_len);
  at += head.ucx_len;
  out.ucx_net_address.assign(at, at + head.net_len);
  at += head.net_len;
  out.host.assign(reinterpret_cast<const char*>(at), head.host_len);
  at += head.host_len;
  out.links.resize(head.links);
  if (links_len) std::memcpy(out.links.data(), at, links_len);
  out.uid = head.uid;
  out.watch_ip = head.watch_ip;
  out.watch_port = static_cast<std::uint16_t>(head.watch_port);
  out.split = head.split;
  out.shm = head.shm;
  return true;
}

// This worker's UCX address, with every transport or (net_only) the network ones.
Status worker_address(ucp_worker_h worker, bool net_only, std::vector<std::byte>& out) {
  ucp_worker_attr_t attr{};
  attr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS;
  attr.address_flags = net_only ? UCP_WORKER_ADDRESS_FLAG_NET_ONLY : 0;
  if (ucs_status_t st = ucp_worker_query(worker, &attr); st != UCS_OK) {
    return fail(Errc::transport, "init: ucp_worker_query: {}", ucs_status_string(st));
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(attr.address);
  out.assign(bytes, bytes + attr.address_length);
  ucp_worker_release_address(worker, attr.address);
  return Errc::success;
}


}  // namespace lapi::internal
