// LAPI_Amsend, LAPI_Put, LAPI_Get: validate the C arguments, translate
// counters (counter_bridge.hpp) and hand over to the core.

#include <cstdint>
#include <cstring>

#include "lapi/c_api/counter_bridge.hpp"
#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handler_registry.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

int check_target(const char* fn, const HandleState& state, unsigned tgt) {
  if (tgt < state.ntasks) return LAPI_SUCCESS;
  return reject(LAPI_ERR_TGT, fn, "tgt={} is not a task (0..{})", tgt, state.ntasks - 1);
}

Counters counters_of(lapi_cntr_t* tgt_cntr, lapi_cntr_t* org_cntr, lapi_cntr_t* cmpl_cntr) {
  Counters counters;
  if (tgt_cntr != nullptr) counters.target = remote_counter(tgt_cntr);
  counters.origin = counter_or_null(org_cntr);
  counters.completion = counter_or_null(cmpl_cntr);
  return counters;
}

int check_amsend(const HandleState& state, unsigned tgt, const void* hdr_hdl, const void* uhdr,
                 unsigned uhdr_len, const void* udata, unsigned long udata_len) {
  constexpr const char* fn = "LAPI_Amsend";
  if (int rc = check_target(fn, state, tgt); rc != LAPI_SUCCESS) return rc;
  if (hdr_hdl == nullptr) return reject(LAPI_ERR_HDR_HNDLR_NULL, fn, "hdr_hdl is NULL");
  if (uhdr == nullptr && uhdr_len > 0) {
    return reject(LAPI_ERR_UHDR_NULL, fn, "uhdr is NULL but uhdr_len={}", uhdr_len);
  }
  if (uhdr_len % 4 != 0) {
    return reject(LAPI_ERR_HDR_LEN, fn, "uhdr_len={} is not a multiple of 4", uhdr_len);
  }
  if (uhdr_len > state.max_uhdr) {
    return reject(LAPI_ERR_UHDR_LEN, fn, "uhdr_len={} is above MAX_UHDR_SZ={}", uhdr_len,
                  state.max_uhdr);
  }
  if (udata == nullptr && udata_len > 0) {
    return reject(LAPI_ERR_ORG_ADDR_NULL, fn, "udata is NULL but udata_len={}", udata_len);
  }
  return LAPI_SUCCESS;
}

// hdr_hdl is a function address: send it (and where it sits in this task's
// binary) ahead of the user header; the target's raw_header_handler resolves it.
Status amsend_by_address(HandleState& state, unsigned tgt, const void* hdr_hdl, const void* uhdr,
                         unsigned uhdr_len, const void* udata, unsigned long udata_len,
                         const Counters& counters) {
  alignas(8) unsigned char framed[sizeof(RawHandlerPrefix) + kMaxCUhdr];
  RawHandlerPrefix prefix{static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(hdr_hdl)),
                          module_ref(hdr_hdl)};
  std::memcpy(framed, &prefix, sizeof prefix);
  if (uhdr_len > 0) std::memcpy(framed + sizeof prefix, uhdr, uhdr_len);
  return state.ctx->amsend(tgt, kRawHandlerId, framed, sizeof prefix + uhdr_len, udata, udata_len,
                           counters);
}

}  // namespace
}  // namespace lapi::c_api

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPI_Amsend(lapi_handle_t hndl, unsigned int tgt, void* hdr_hdl, void* uhdr,
                           unsigned int uhdr_len, void* udata, unsigned long udata_len,
                           lapi_cntr_t* tgt_cntr, lapi_cntr_t* org_cntr, lapi_cntr_t* cmpl_cntr) {
  return guarded("LAPI_Amsend", [&] {
    constexpr const char* fn = "LAPI_Amsend";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (int rc = check_amsend(*state, tgt, hdr_hdl, uhdr, uhdr_len, udata, udata_len);
        rc != LAPI_SUCCESS) {
      return rc;
    }
    lapi::Counters counters = counters_of(tgt_cntr, org_cntr, cmpl_cntr);
    auto index = reinterpret_cast<std::uintptr_t>(hdr_hdl);
    if (index < static_cast<std::uintptr_t>(kAddrTableSize)) {
      return from_status(fn, state->ctx->amsend(tgt, static_cast<lapi::HandlerId>(index), uhdr,
                                                uhdr_len, udata, udata_len, counters));
    }
    return from_status(fn, amsend_by_address(*state, tgt, hdr_hdl, uhdr, uhdr_len, udata,
                                             udata_len, counters));
  });
}

extern "C" int LAPI_Put(lapi_handle_t hndl, unsigned int tgt, unsigned long len, void* tgt_addr,
                        void* org_addr, lapi_cntr_t* tgt_cntr, lapi_cntr_t* org_cntr,
                        lapi_cntr_t* cmpl_cntr) {
  return guarded("LAPI_Put", [&] {
    constexpr const char* fn = "LAPI_Put";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (int rc = check_target(fn, *state, tgt); rc != LAPI_SUCCESS) return rc;
    if (tgt_addr == nullptr && len > 0) {
      return reject(LAPI_ERR_TGT_ADDR_NULL, fn, "tgt_addr is NULL but len={}", len);
    }
    if (org_addr == nullptr && len > 0) {
      return reject(LAPI_ERR_ORG_ADDR_NULL, fn, "org_addr is NULL but len={}", len);
    }
    auto remote = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tgt_addr));
    return from_status(fn, state->ctx->put(tgt, len, remote, org_addr,
                                           counters_of(tgt_cntr, org_cntr, cmpl_cntr)));
  });
}

extern "C" int LAPI_Get(lapi_handle_t hndl, unsigned int tgt, unsigned long len, void* tgt_addr,
                        void* org_addr, lapi_cntr_t* tgt_cntr, lapi_cntr_t* org_cntr) {
  return guarded("LAPI_Get", [&] {
    constexpr const char* fn = "LAPI_Get";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (int rc = check_target(fn, *state, tgt); rc != LAPI_SUCCESS) return rc;
    if (tgt_addr == nullptr && len > 0) {
      return reject(LAPI_ERR_TGT_ADDR_NULL, fn, "tgt_addr is NULL but len={}", len);
    }
    if (org_addr == nullptr && len > 0) {
      return reject(LAPI_ERR_ORG_ADDR_NULL, fn, "org_addr is NULL but len={}", len);
    }
    auto remote = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tgt_addr));
    lapi::RemoteCounter target = tgt_cntr != nullptr ? remote_counter(tgt_cntr) : lapi::RemoteCounter{};
    return from_status(fn, state->ctx->get(tgt, len, remote, org_addr, target, counter_or_null(org_cntr)));
  });
}
