// Striping, the engine's side: a large Amsend to a task on another host with links in common
// (LAPIS_LINKS) sends split copy's frame (kSplitData, plus kStripedData) through UCX; the
// target's header handler names the buffer; stripe_go tells the origin the target's record and
// fragment layout; the fragments go over the links (links.hpp), or through UCX as stripe_frag
// messages once no link to the target is left; once every fragment is in, the target lands
// the Amsend and sends split_done, which frees the origin buffer (on_split_done_locked).

#include <cstring>
#include <memory>
#include <vector>

#include "lapi/internal/engine.hpp"
#include "runtime/internal/tcp.hpp"

namespace lapi {

using namespace internal;

namespace {

// A fragment that came by UCX rendezvous: pulled into a buffer of its own and copied into
// place only if it is still missing then, so that a copy that lost the race to a link never
// writes into a buffer already handed back to the application.
struct FragPull {
  Context::Impl* impl;
  StripeFragWire wire;
  std::unique_ptr<std::byte[]> bytes;
  std::size_t len;
};

// Copies a pulled fragment into place, if it is still missing.
void land_pulled(const FragPull& pull) {
  LinkSet& links = pull.impl->links_;
  bool valid = true;
  if (std::byte* at = links.place(pull.wire.src, pull.wire.token, pull.wire.index, pull.len, valid)) {
    std::memcpy(at, pull.bytes.get(), pull.len);
    links.fragment_landed(pull.wire.src, pull.wire.token, pull.wire.index);
  }
}

void on_frag_pulled(void* request, ucs_status_t status, std::size_t, void* user_data) {
  const std::unique_ptr<FragPull> pull(static_cast<FragPull*>(user_data));
  if (status == UCS_OK) land_pulled(*pull);
  ucp_request_free(request);
}

}  // namespace

Status Context::Impl::link_timeout(int& ms) const {
  try {
    ms = lapis::runtime::internal::link_timeout_ms();
  } catch (const std::exception& e) {
    return fail(Errc::set_val, "init: {}", e.what());
  }
  return Errc::success;
}

Status Context::Impl::open_links(std::uint64_t uid) {
  if (config_.links.empty()) return Errc::success;
  int timeout_ms = 0;
  if (Status s = link_timeout(timeout_ms); !s.ok()) return s;
  return links_.open(config_.links, me_, uid, timeout_ms,
                     LinkSet::Hooks{this, &Impl::stripe_landed, &Impl::stripe_over_ucx});
}

Status Context::Impl::amsend_striped_locked(TaskId tgt, HandlerId handler, const void* uhdr,
                                            std::size_t uhdr_len, const void* data,
                                            std::size_t data_len, const Counters& counters) {
  auto* op = new SplitSend{tgt, counters.origin, {}, true};
  const std::uint64_t id = split_.sends.insert(op);
  op->wire = SplitWire{reinterpret_cast<std::uint64_t>(data), data_len, id};
  links_.begin_send(id, tgt, data, data_len);
  // The origin counter moves at split_done, once every fragment is in.
  Counters later = counters;
  later.origin = nullptr;
  const Status s = amsend_ucx_locked(tgt, handler, kSplitData | kStripedData, uhdr, uhdr_len,
                                     &op->wire, sizeof op->wire, later);
  if (!s.ok()) {
    links_.end_send(id);
    (void)split_.sends.take(id);
    delete op;
  }
  return s;
}

void Context::Impl::land_striped_locked(TaskId src, const SplitWire& split, void* buffer,
                                        const CompletionJob& job) {
  if (split.len == 0 || buffer == nullptr) {  // nothing to move, or discarded
    release_split_locked(src, split.id, Errc::success);
    landed_locked(job);
    return;
  }
  std::uint64_t frag_bytes = 0;
  std::uint32_t frags = 0;
  const std::uint64_t token = links_.begin_recv(src, split.id, buffer, split.len, job, frag_bytes, frags);
  const SplitGoWire go{me_, 0, split.id, token, 0, frag_bytes, frags, 0};
  send_control_locked(src, Proto::stripe_go, &go, sizeof go);
}

void Context::Impl::on_stripe_go_locked(const SplitGoWire& msg) {
  SplitSend** found = split_.sends.find(msg.id);
  if (found == nullptr || !(*found)->striped || (*found)->tgt != msg.src ||
      !links_.go(msg.src, msg.id, msg.token, msg.part_bytes, msg.parts)) [[unlikely]] {
    refuse_locked(msg.src, Errc::hndl_invalid, 0,
                  fmt::format("stripe_go names no striped amsend of this task to task {} "
                              "(record {:#x}, {} fragments of {} bytes)",
                              msg.src, msg.id, msg.parts, msg.part_bytes));
  }
}

void Context::Impl::stripe_landed(void* self, TaskId src, std::uint64_t id, const CompletionJob& job) {
  auto* e = static_cast<Impl*>(self);
  e->release_split_locked(src, id, Errc::success);
  e->landed_locked(job);
}

void Context::Impl::stripe_over_ucx(void* self, TaskId tgt, std::uint64_t token, std::uint32_t index,
                                    const std::byte* data, std::size_t len) {
  auto* e = static_cast<Impl*>(self);
  const StripeFragWire wire{e->me_, index, token};
  // The data stays in the origin buffer until split_done, after every fragment is in.
  (void)e->post_send_locked(tgt, Proto::stripe_frag, &wire, sizeof wire, data, len, 0, nullptr);
}

ucs_status_t Context::Impl::on_stripe_frag(const void* header, std::size_t header_len, void* data,
                                           std::size_t length, const ucp_am_recv_param_t* param) {
  const bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  StripeFragWire wire{};
  if (header_len == sizeof wire) std::memcpy(&wire, header, sizeof wire);
  bool valid = header_len == sizeof wire && wire.src < npeers();
  std::byte* at = valid ? links_.place(wire.src, wire.token, wire.index, length, valid) : nullptr;
  if (!valid) [[unlikely]] {
    refuse_locked(header_len == sizeof wire ? wire.src : UINT32_MAX, Errc::hndl_invalid, 0,
                  fmt::format("stripe fragment of {} bytes names no stripe of this task", length));
    return rndv ? UCS_ERR_REJECTED : UCS_OK;
  }
  if (at == nullptr) return UCS_OK;  // in already (over a link): drop this copy
  if (!rndv) {
    std::memcpy(at, data, length);
    links_.fragment_landed(wire.src, wire.token, wire.index);
    return UCS_OK;
  }
  auto pull = std::make_unique<FragPull>(FragPull{this, wire, std::make_unique<std::byte[]>(length), length});
  ucp_request_param_t p;
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.recv_am = on_frag_pulled;
  p.user_data = pull.get();
  ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, data, pull->bytes.get(), length, &p);
  if (UCS_PTR_IS_ERR(r)) return UCS_OK;  // UCX failed the origin: its failure handlers say so
  if (r == nullptr) {
    land_pulled(*pull);
    return UCS_OK;
  }
  (void)pull.release();  // on_frag_pulled owns it now
  return UCS_OK;
}

LinkStats Context::Impl::link_stats() {
  Guard guard(lock_);
  return links_.stats();
}

}  // namespace lapi
