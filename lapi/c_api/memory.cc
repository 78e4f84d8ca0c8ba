// Lapis extensions for registered memory: remote Put/Get/Rmw may touch only
// memory registered (or allocated) here.

#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPIS_Register_mem(lapi_handle_t hndl, void* addr, unsigned long len) {
  return guarded("LAPIS_Register_mem", [&] {
    constexpr const char* fn = "LAPIS_Register_mem";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (addr == nullptr) return reject(LAPI_WARN_PARM_NULL, fn, "addr is NULL");
    if (len == 0) return reject(LAPI_ERR_DATA_LEN, fn, "len is 0");
    return from_status(fn, state->ctx->register_memory(addr, len));
  });
}

extern "C" int LAPIS_Deregister_mem(lapi_handle_t hndl, void* addr) {
  return guarded("LAPIS_Deregister_mem", [&] {
    constexpr const char* fn = "LAPIS_Deregister_mem";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (addr == nullptr) return reject(LAPI_WARN_PARM_NULL, fn, "addr is NULL");
    return from_status(fn, state->ctx->deregister_memory(addr));
  });
}

extern "C" int LAPIS_Alloc_mem(lapi_handle_t hndl, unsigned long len, void** addr) {
  return guarded("LAPIS_Alloc_mem", [&] {
    constexpr const char* fn = "LAPIS_Alloc_mem";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (addr == nullptr) return reject(LAPI_ERR_RET_PTR_NULL, fn, "addr is NULL");
    if (len == 0) return reject(LAPI_ERR_DATA_LEN, fn, "len is 0");
    *addr = nullptr;
    return from_status(fn, state->ctx->alloc_registered(len, *addr));
  });
}

extern "C" int LAPIS_Free_mem(lapi_handle_t hndl, void* addr) {
  return guarded("LAPIS_Free_mem", [&] {
    constexpr const char* fn = "LAPIS_Free_mem";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (addr == nullptr) return reject(LAPI_WARN_PARM_NULL, fn, "addr is NULL");
    return from_status(fn, state->ctx->free_registered(addr));
  });
}
