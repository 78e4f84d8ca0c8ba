#include "lapi/c_api/am_bridge.hpp"

#include <cstring>

#include "lapi/c_api/errors.hpp"

namespace lapi::c_api {
namespace {

void completion_trampoline(Context& ctx, void* user_info, void* completion_arg) {
  auto* fn = reinterpret_cast<compl_hndlr_t*>(completion_arg);
  lapi_handle_t h = handle_of(ctx);
  fn(&h, user_info);
}

// A message no handler here will take: refuse it. The core counts the
// refusal (LAPIS_FAULTS_REFUSED) and tells the origin, whose counters fail
// with LAPI_ERR_HDR_HNDLR_NULL and whose err_hndlr runs; the detail stays
// here for Msg_string.
Landing drop(std::string_view why) {
  record_failure(LAPI_ERR_HDR_HNDLR_NULL, why);
  Landing refused;
  refused.refuse = static_cast<int>(Errc::hdr_hndlr_null);
  return refused;
}

Landing run_c_handler(HandleState& state, hdr_hndlr_t* fn, const AmHeaderInfo& info,
                      const unsigned char* uhdr, std::size_t uhdr_len) {
  // The transport's header bytes are unaligned and read-only; C handlers
  // cast uhdr to their own structs.
  alignas(std::max_align_t) unsigned char uhdr_copy[kMaxCUhdr];
  if (uhdr_len > 0) std::memcpy(uhdr_copy, uhdr, uhdr_len);

  lapi_return_info_t ret{};
  ret.msg_len = info.data_len;
  ret.MAGIC = LAPIS_RETURN_INFO_MAGIC;
  ret.ret_flags = LAPI_NORMAL;
  ret.ctl_flags = LAPI_DELIVER_MSG;
  ret.bytes = info.data_len;
  ret.src = static_cast<int>(info.src);

  lapi_handle_t h = state.handle;
  auto c_uhdr_len = static_cast<unsigned int>(uhdr_len);
  compl_hndlr_t* on_complete = nullptr;
  void* uinfo = nullptr;
  void* buffer = fn(&h, uhdr_len > 0 ? uhdr_copy : nullptr, &c_uhdr_len,
                    reinterpret_cast<unsigned long*>(&ret), &on_complete, &uinfo);
  if (ret.ctl_flags != LAPI_DELIVER_MSG) return Landing{};  // LAPI_BURY_MSG / LAPI_DROP_PKT

  Landing landing;
  landing.buffer = buffer;
  if (on_complete != nullptr) {
    landing.on_complete = completion_trampoline;
    landing.user_info = uinfo;
    landing.completion_arg = reinterpret_cast<void*>(on_complete);
  }
  return landing;
}

}  // namespace

Landing index_header_handler(Context&, const AmHeaderInfo& info) {
  auto* slot = static_cast<AddrSlot*>(info.handler_arg);
  HandleState& state = *slot->owner;
  hdr_hndlr_t* fn = slot->handler.load(std::memory_order_acquire);
  if (fn == nullptr) {
    return drop(fmt::format("Amsend from task {}: LAPI_Addr_set index {} holds no function",
                            info.src, slot->index));
  }
  if (info.uhdr_len > kMaxCUhdr) {
    return drop(fmt::format("Amsend from task {}: uhdr_len {} above {}", info.src,
                            info.uhdr_len, kMaxCUhdr));
  }
  return run_c_handler(state, fn, info, static_cast<const unsigned char*>(info.uhdr), info.uhdr_len);
}

Landing raw_header_handler(Context&, const AmHeaderInfo& info) {
  auto& state = *static_cast<HandleState*>(info.handler_arg);
  if (info.uhdr_len < sizeof(RawHandlerPrefix) ||
      info.uhdr_len > kMaxCUhdr + sizeof(RawHandlerPrefix)) {
    return drop(fmt::format("Amsend from task {}: malformed handler prefix ({} bytes)",
                            info.src, info.uhdr_len));
  }
  RawHandlerPrefix prefix;
  std::memcpy(&prefix, info.uhdr, sizeof prefix);
  hdr_hndlr_t* fn = state.handlers.resolve(prefix.addr, prefix.where);
  if (fn == nullptr) {
    return drop(fmt::format("Amsend from task {}: hdr_hdl {:#x} is not a header handler this task "
                            "made known (LAPI_Addr_set, LAPIS_Hdr_hndlr_register, LAPI_Address_init)",
                            info.src, prefix.addr));
  }
  const auto* bytes = static_cast<const unsigned char*>(info.uhdr);
  return run_c_handler(state, fn, info, bytes + sizeof prefix, info.uhdr_len - sizeof prefix);
}

void report_async(HandleState& state, int code, lapi_err_t type, int src, std::string_view detail) {
  record_failure(code, detail);  // so Msg_string inside err_hndlr shows it
  if (state.err_hndlr == nullptr) return;
  lapi_handle_t h = state.handle;
  int task = static_cast<int>(state.me);
  state.err_hndlr(&h, &code, &type, &task, &src);
}

}  // namespace lapi::c_api
