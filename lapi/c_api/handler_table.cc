// LAPI_Addr_set, LAPI_Addr_get, LAPIS_Hdr_hndlr_register: the header handlers
// a task accepts (see lapi.h and handler_registry.hpp).

#include <mutex>

#include "lapi/c_api/am_bridge.hpp"
#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

int check_index(const char* fn, int addr_hndl) {
  if (addr_hndl >= 1 && addr_hndl < kAddrTableSize) return LAPI_SUCCESS;
  return reject(LAPI_ERR_ADDR_HNDL_RANGE, fn, "addr_hndl={} is not in 1..{}", addr_hndl,
                kAddrTableSize - 1);
}

// Installs the core handler for slot.index once; later Addr_set calls only
// swap the function the slot points to.
int ensure_core_handler(HandleState& state, AddrSlot& slot) {
  std::lock_guard lock(state.addr_mu);
  if (slot.core_registered) return LAPI_SUCCESS;
  Status s = state.ctx->register_handler(static_cast<HandlerId>(slot.index), index_header_handler, &slot);
  if (int rc = from_status("LAPI_Addr_set", s); rc != LAPI_SUCCESS) return rc;
  slot.core_registered = true;
  return LAPI_SUCCESS;
}

}  // namespace
}  // namespace lapi::c_api

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPI_Addr_set(lapi_handle_t hndl, void* addr, int addr_hndl) {
  return guarded("LAPI_Addr_set", [&] {
    constexpr const char* fn = "LAPI_Addr_set";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (int rc = check_index(fn, addr_hndl); rc != LAPI_SUCCESS) return rc;
    if (state->ctx->in_header_handler()) {
      return reject(LAPIS_ERR_IN_HEADER_HANDLER, fn, "called inside a header handler");
    }
    AddrSlot& slot = state->addr_table[addr_hndl];
    if (int rc = ensure_core_handler(*state, slot); rc != LAPI_SUCCESS) return rc;
    // Only code is ever called: a data address stays retrievable with
    // LAPI_Addr_get, but Amsends naming this index are then dropped.
    auto* handler = addr != nullptr && is_code_address(addr) ? reinterpret_cast<hdr_hndlr_t*>(addr) : nullptr;
    if (handler != nullptr) state->handlers.publish(handler);
    slot.addr.store(addr, std::memory_order_release);
    slot.handler.store(handler, std::memory_order_release);
    return LAPI_SUCCESS;
  });
}

extern "C" int LAPI_Addr_get(lapi_handle_t hndl, void** addr, int addr_hndl) {
  return guarded("LAPI_Addr_get", [&] {
    constexpr const char* fn = "LAPI_Addr_get";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (addr == nullptr) return reject(LAPI_ERR_RET_PTR_NULL, fn, "addr is NULL");
    if (int rc = check_index(fn, addr_hndl); rc != LAPI_SUCCESS) return rc;
    *addr = state->addr_table[addr_hndl].addr.load(std::memory_order_acquire);
    return LAPI_SUCCESS;
  });
}

extern "C" int LAPIS_Hdr_hndlr_register(lapi_handle_t hndl, hdr_hndlr_t* hdr_hdl) {
  return guarded("LAPIS_Hdr_hndlr_register", [&] {
    constexpr const char* fn = "LAPIS_Hdr_hndlr_register";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (hdr_hdl == nullptr) return reject(LAPI_ERR_HDR_HNDLR_NULL, fn, "hdr_hdl is NULL");
    if (!is_code_address(reinterpret_cast<const void*>(hdr_hdl))) {
      return reject(LAPI_ERR_HDR_HNDLR_NULL, fn, "hdr_hdl={} is not a function address",
                    reinterpret_cast<const void*>(hdr_hdl));
    }
    state->handlers.publish(hdr_hdl);
    return LAPI_SUCCESS;
  });
}
