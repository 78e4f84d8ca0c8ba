// LAPI_Probe, LAPI_Fence, LAPI_Gfence, LAPI_Address_init(64).

#include <cstdint>
#include <vector>

#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handler_registry.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

// IBM programs exchange header-handler addresses with LAPI_Address_init and
// then name them in LAPI_Amsend: a code address given here is published as
// a handler before any peer can learn it (the exchange below completes
// only after every task entered it).
void publish_if_code(HandleState& state, std::uint64_t my_addr) {
  const void* addr = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(my_addr));
  if (addr != nullptr && is_code_address(addr)) {
    state.handlers.publish(reinterpret_cast<hdr_hndlr_t*>(const_cast<void*>(addr)));
  }
}

int address_init(const char* fn, HandleState& state, std::uint64_t mine, std::vector<std::uint64_t>& all) {
  publish_if_code(state, mine);
  all.assign(state.ntasks, 0);
  return from_status(fn, state.ctx->address_init(mine, all));
}

template <typename Call>
int simple_call(const char* fn, lapi_handle_t hndl, Call call) {
  return guarded(fn, [&] {
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    return from_status(fn, call(*state->ctx));
  });
}

}  // namespace
}  // namespace lapi::c_api

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPI_Probe(lapi_handle_t hndl) {
  return simple_call("LAPI_Probe", hndl, [](lapi::Context& ctx) { return ctx.probe(); });
}

extern "C" int LAPI_Fence(lapi_handle_t hndl) {
  return simple_call("LAPI_Fence", hndl, [](lapi::Context& ctx) { return ctx.fence(); });
}

extern "C" int LAPI_Gfence(lapi_handle_t hndl) {
  return simple_call("LAPI_Gfence", hndl, [](lapi::Context& ctx) { return ctx.gfence(); });
}

extern "C" int LAPI_Address_init(lapi_handle_t hndl, void* my_addr, void* add_tab[]) {
  return guarded("LAPI_Address_init", [&] {
    constexpr const char* fn = "LAPI_Address_init";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (add_tab == nullptr) return reject(LAPI_ERR_ADDR_TBL_NULL, fn, "add_tab is NULL");
    std::vector<std::uint64_t> all;
    auto mine = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(my_addr));
    if (int rc = address_init(fn, *state, mine, all); rc != LAPI_SUCCESS) return rc;
    for (std::size_t i = 0; i < all.size(); ++i) {
      add_tab[i] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(all[i]));
    }
    return LAPI_SUCCESS;
  });
}

extern "C" int LAPI_Address_init64(lapi_handle_t hndl, lapi_long_t my_addr, lapi_long_t* add_tab) {
  return guarded("LAPI_Address_init64", [&] {
    constexpr const char* fn = "LAPI_Address_init64";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (add_tab == nullptr) return reject(LAPI_ERR_ADDR_TBL_NULL, fn, "add_tab is NULL");
    std::vector<std::uint64_t> all;
    if (int rc = address_init(fn, *state, my_addr, all); rc != LAPI_SUCCESS) return rc;
    for (std::size_t i = 0; i < all.size(); ++i) add_tab[i] = all[i];
    return LAPI_SUCCESS;
  });
}
