// Remote faults: a target never executes a request it cannot validate. It
// counts the refusal and tells the origin, which fails the completion
// counter named by the request (if any) and calls the user's error handler.

#include <cstring>

#include "lapi/internal/engine.hpp"

namespace lapi {

using namespace internal;

namespace {
constexpr std::size_t kMaxFaultText = 200;
}

void Context::Impl::refuse_locked(std::uint32_t src, Errc code, std::uint64_t cookie,
                                  std::string detail) {
  faults_.refused_here.fetch_add(1, std::memory_order_relaxed);
  if (std::getenv("LAPIS_DEBUG")) {
    fmt::print(stderr, "lapis[{}]: refused request from task {}: {}\n", me_, src, detail);
  }
  if (src >= peers_.size() || peers_[src].ep == nullptr) return;  // nobody we could tell
  if (detail.size() > kMaxFaultText) detail.resize(kMaxFaultText);
  const FaultWire fault{me_, static_cast<std::int32_t>(code), cookie};
  SendOp* op = send_pool_.acquire();
  std::memcpy(op->header, &fault, sizeof fault);
  std::memcpy(op->header + sizeof fault, detail.data(), detail.size());
  op->header_len = static_cast<std::uint32_t>(sizeof fault + detail.size());
  (void)post_op_locked(op, src, Proto::fault, nullptr, 0, UCP_AM_SEND_FLAG_EAGER, nullptr);
}

void Context::Impl::on_fault_bytes_locked(const FaultWire& msg, const void* text,
                                          std::size_t len) {
  faults_.reported_to_me.fetch_add(1, std::memory_order_relaxed);
  const std::string detail(static_cast<const char*>(text), std::min(len, kMaxFaultText));
  if (msg.cookie != 0) {
    if (auto counter = completions_.take(msg.cookie)) (*counter)->set_error(msg.code);
  }
  if (!faults_.tell_handler(owner_, msg.src, static_cast<Errc>(msg.code), detail) &&
      std::getenv("LAPIS_DEBUG")) {
    fmt::print(stderr, "lapis[{}]: task {} refused our request: {}\n", me_, msg.src, detail);
  }
}

}  // namespace lapi
