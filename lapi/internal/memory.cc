// Registered memory. Local regions are what peers may touch with Put, Get
// and Rmw; a peer learns a region's rkey by asking us for the region that
// covers an address (one round trip per region, then cached), so a request
// for unregistered memory is refused here, never executed.

#include <sys/sysinfo.h>

#include <algorithm>
#include <cstring>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {

// RAM plus swap: more than this can never be allocated. UCX would not say
// so: it tries a POSIX shared-memory file first and fills /dev/shm with
// zeros for as long as it takes (a file a killed process leaves behind).
std::uint64_t machine_memory_bytes() {
  struct sysinfo info {};
  if (::sysinfo(&info) != 0) return UINT64_MAX;
  return (std::uint64_t{info.totalram} + info.totalswap) * info.mem_unit;
}

}  // namespace

Status Context::Impl::register_memory(void* addr, std::size_t len, bool allocate, void** out) {
  if (len == 0) return fail(Errc::data_len, "register_memory: len is 0");
  if (!allocate && addr == nullptr) return fail(Errc::org_addr_null, "register_memory: addr is null");
  if (allocate && len > machine_memory_bytes()) {
    return fail(Errc::memory_exhausted,
                "alloc_registered: len={} bytes is more than this machine's RAM and swap ({} bytes)",
                len, machine_memory_bytes());
  }
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  mp.length = len;
  if (allocate) {
    mp.flags = UCP_MEM_MAP_ALLOCATE;
  } else {
    mp.field_mask |= UCP_MEM_MAP_PARAM_FIELD_ADDRESS;
    mp.address = addr;
  }
  Guard guard(lock_);
  Region region;
  region.len = len;
  region.allocated = allocate;
  ucs_status_t st = ucp_mem_map(ucp_, &mp, &region.memh);
  if (st != UCS_OK) {
    return fail(Errc::memory_exhausted, "register_memory: ucp_mem_map of {} bytes: {}", len,
                ucs_status_string(st));
  }
  ucp_mem_attr_t attr{};
  attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
  (void)ucp_mem_query(region.memh, &attr);
  void* packed = nullptr;
  std::size_t packed_len = 0;
  st = ucp_rkey_pack(ucp_, region.memh, &packed, &packed_len);
  if (st != UCS_OK) {
    ucp_mem_unmap(ucp_, region.memh);
    return fail(Errc::transport, "register_memory: ucp_rkey_pack: {}", ucs_status_string(st));
  }
  const auto* p = static_cast<const std::byte*>(packed);
  region.packed_rkey.assign(p, p + packed_len);
  ucp_rkey_buffer_release(packed);
  // Register exactly what the user asked for (UCX may round the mapping up).
  const std::uint64_t base =
      allocate ? reinterpret_cast<std::uint64_t>(attr.address) : reinterpret_cast<std::uint64_t>(addr);
  if (regions_.by_base.count(base)) {
    ucp_mem_unmap(ucp_, region.memh);
    return fail(Errc::set_val, "register_memory: {:#x} is already registered", base);
  }
  regions_.by_base.emplace(base, std::move(region));
  if (out) *out = reinterpret_cast<void*>(base);
  return Errc::success;
}

Status Context::Impl::deregister_memory(void* addr, bool allocated) {
  const std::uint64_t base = reinterpret_cast<std::uint64_t>(addr);
  std::uint64_t token = 0;
  {
    Guard guard(lock_);
    auto it = regions_.by_base.find(base);
    if (it == regions_.by_base.end() || it->second.allocated != allocated) {
      return fail(Errc::org_addr_null, "{}: {} is not a {} region",
                  allocated ? "free_registered" : "deregister_memory", addr,
                  allocated ? "allocated" : "registered");
    }
    // Peers that cached our rkey must drop it before the memory goes: a
    // later region at the same address would otherwise be reached through
    // the stale key.
    // Count the holders first: a message to ourselves may be answered
    // before send returns (UCX's self transport runs handlers inline).
    token = regions_.next_token++;
    const auto& holders = it->second.fetched_by;
    std::vector<TaskId> asked;
    for (TaskId t = 0; t < holders.size(); ++t) {
      if (holders[t] && !failures_.failed[t].load(std::memory_order_relaxed)) asked.push_back(t);
    }
    if (!asked.empty()) regions_.drops_pending[token] = asked;
    for (TaskId t : asked) {
      const RkeyInvalidateWire msg{me_, 0, base, token};
      send_control_locked(t, Proto::rkey_invalidate, &msg, sizeof msg);
    }
  }
  // A failed holder will never answer (and cannot use the key any more).
  auto answered = [&] {
    Guard guard(lock_);
    auto pending = regions_.drops_pending.find(token);
    if (pending == regions_.drops_pending.end()) return true;
    for (TaskId t : pending->second) {
      if (!failures_.failed[t].load(std::memory_order_relaxed)) return false;
    }
    regions_.drops_pending.erase(pending);
    return true;
  };
  Status s = wait_until(answered);
  while (s.code() == Errc::tgt_purged && !answered()) s = wait_until(answered);
  if (s.code() == Errc::tgt_purged) s = Errc::success;
  Guard guard(lock_);
  auto it = regions_.by_base.find(base);
  ucp_mem_unmap(ucp_, it->second.memh);
  regions_.by_base.erase(it);
  return s;
}

void Context::Impl::on_rkey_invalidate_locked(const RkeyInvalidateWire& msg) {
  auto& peer = peers_[msg.src].remote_regions;
  if (auto it = peer.find(msg.base); it != peer.end()) {
    ucp_rkey_destroy(it->second.rkey);
    peer.erase(it);
    peers_[msg.src].rkey_hit = RkeyHit{};
  }
  const RkeyInvalidateWire ack{me_, 0, msg.base, msg.token};
  send_control_locked(msg.src, Proto::rkey_dropped, &ack, sizeof ack);
}

void Context::Impl::on_rkey_dropped_locked(const RkeyInvalidateWire& msg) {
  auto it = regions_.drops_pending.find(msg.token);
  if (it == regions_.drops_pending.end()) return;  // stale or forged
  std::erase(it->second, msg.src);
  if (it->second.empty()) regions_.drops_pending.erase(it);
}

void Context::Impl::on_rkey_request_locked(const RkeyRequestWire& req) {
  RkeyReplyWire reply{me_, static_cast<std::int32_t>(Errc::success), req.token, 0, 0};
  auto it = covering(regions_.by_base, req.addr, req.len);
  if (it == regions_.by_base.end()) {
    reply.code = static_cast<std::int32_t>(Errc::not_registered);
    faults_.refused_here.fetch_add(1, std::memory_order_relaxed);
    send_control_locked(req.src, Proto::rkey_reply, &reply, sizeof reply);
    return;
  }
  if (it->second.fetched_by.size() <= req.src) it->second.fetched_by.resize(npeers(), false);
  it->second.fetched_by[req.src] = true;
  reply.base = it->first;
  reply.len = it->second.len;
  const auto& key = it->second.packed_rkey;
  if (sizeof reply + key.size() > kSendHeaderCapacity) {
    reply.code = static_cast<std::int32_t>(Errc::transport);  // cannot happen on shm/tcp keys
    send_control_locked(req.src, Proto::rkey_reply, &reply, sizeof reply);
    return;
  }
  SendOp* op = send_pool_.acquire();
  std::memcpy(op->header, &reply, sizeof reply);
  std::memcpy(op->header + sizeof reply, key.data(), key.size());
  op->header_len = static_cast<std::uint32_t>(sizeof reply + key.size());
  (void)post_op_locked(op, req.src, Proto::rkey_reply, nullptr, 0, UCP_AM_SEND_FLAG_EAGER, nullptr);
}

void Context::Impl::on_rkey_reply_bytes_locked(const RkeyReplyWire& reply, const void* key,
                                               std::size_t key_len) {
  auto wait = regions_.rkey_waits.find(reply.token);
  if (wait == regions_.rkey_waits.end()) return;  // stale or forged: nobody asked
  wait->second.done = true;
  wait->second.code = static_cast<Errc>(reply.code);
  if (reply.code != static_cast<std::int32_t>(Errc::success)) return;
  ucp_rkey_h rkey = nullptr;
  if (key_len == 0 || ucp_ep_rkey_unpack(peers_[reply.src].ep, key, &rkey) != UCS_OK) {
    wait->second.code = Errc::transport;
    return;
  }
  auto& peer = peers_[reply.src].remote_regions;
  auto old = peer.find(reply.base);
  if (old != peer.end()) {
    ucp_rkey_destroy(old->second.rkey);
    peer.erase(old);
    peers_[reply.src].rkey_hit = RkeyHit{};
  }
  peer.emplace(reply.base, RemoteRegion{reply.len, rkey});
}

Status Context::Impl::map_remote(TaskId tgt, std::uint64_t addr, std::size_t len, void*& local) {
  // The range first (a bad one is the caller's error whatever the transport).
  ucp_rkey_h rkey = nullptr;
  if (tgt == me_) {
    Guard guard(lock_);
    if (!regions_.covers(addr, len)) {
      return fail(Errc::not_registered, "map_remote: [{:#x}, +{}) is not registered here", addr,
                  len);
    }
  } else if (Status s = remote_key(tgt, addr, len, rkey); !s.ok()) {
    return s;
  }
  if (integrity_.on) {
    return fail(Errc::no_connectivity,
                "map_remote: LAPIS_CHECKSUM={} checks every byte moved, so no direct access",
                to_string(config_.checksum));
  }
  if (tgt == me_) {
    local = reinterpret_cast<void*>(addr);
    return Errc::success;
  }
  void* p = nullptr;
  ucs_status_t st;
  {
    Guard guard(lock_);
    st = ucp_rkey_ptr(rkey, addr, &p);
  }
  if (st != UCS_OK) {
    return fail(Errc::no_connectivity, "map_remote: task {}'s [{:#x}, +{}) is not mapped here ({})",
                tgt, addr, len, ucs_status_string(st));
  }
  local = p;
  return Errc::success;
}

bool Context::Impl::known_rkey_locked(TaskId tgt, std::uint64_t addr, std::size_t len,
                                      ucp_rkey_h& out) {
  RkeyHit& hit = peers_[tgt].rkey_hit;
  auto& peer = peers_[tgt].remote_regions;
  auto it = covering(peer, addr, len);
  if (it == peer.end()) return false;
  hit = RkeyHit{it->first, it->second.len, it->second.rkey};
  out = it->second.rkey;
  return true;
}

Status Context::Impl::remote_key(TaskId tgt, std::uint64_t addr, std::size_t len,
                                 ucp_rkey_h& out) {
  std::uint64_t token;
  {
    Guard guard(lock_);
    if (cached_rkey_locked(tgt, addr, len, out)) [[likely]] return Errc::success;
    token = regions_.next_token++;
    regions_.rkey_waits[token] = {};
    const RkeyRequestWire req{me_, 0, addr, len, token};
    send_control_locked(tgt, Proto::rkey_request, &req, sizeof req);
  }
  Status s = wait_until([&] {
    Guard guard(lock_);
    return regions_.rkey_waits[token].done;
  });
  Guard guard(lock_);
  const Errc code = regions_.rkey_waits[token].code;
  regions_.rkey_waits.erase(token);
  if (!s.ok()) return s;
  if (code != Errc::success) {
    return fail(code, "task {} has no registered memory covering [{:#x}, +{})", tgt, addr, len);
  }
  auto& peer = peers_[tgt].remote_regions;
  auto it = covering(peer, addr, len);
  if (it == peer.end()) {
    return fail(Errc::not_registered, "task {} region for {:#x} vanished", tgt, addr);
  }
  out = it->second.rkey;
  return Errc::success;
}

}  // namespace lapi
