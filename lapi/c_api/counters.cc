// LAPI_Setcntr, LAPI_Getcntr, LAPI_Waitcntr, LAPIS_Unregister_cntr.
//
// Each of the first three registers the counter with the handle's context on
// first use, so it can serve as a target counter (counter_bridge.hpp).

#include <cstdint>
#include <mutex>

#include "lapi/c_api/counter_bridge.hpp"
#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

int ensure_registered(const char* fn, HandleState& state, lapi_cntr_t* cntr) {
  Counter& counter = *counter_of(cntr);
  {
    std::lock_guard lock(state.counters_mu);
    if (state.registered_counters.contains(&counter)) return LAPI_SUCCESS;
  }
  if (!counter_usable(cntr)) {
    return reject(LAPIS_ERR_CNTR_UNSET, fn,
                  "cntr {} was never set with LAPI_Setcntr and is not zero-filled",
                  static_cast<const void*>(cntr));
  }
  // Registering inside a header handler would re-enter the core; the next
  // use outside one registers the counter.
  if (state.ctx->in_header_handler()) return LAPI_SUCCESS;
  RemoteCounter handle;
  if (int rc = from_status(fn, state.ctx->register_counter(counter, handle)); rc != LAPI_SUCCESS) {
    return rc;
  }
  if (handle.handle != reinterpret_cast<std::uintptr_t>(&counter)) {
    return reject(LAPI_ERR_UNKNOWN, fn,
                  "the core named counter {} {:#x}; the C API needs handle == address",
                  static_cast<const void*>(&counter), handle.handle);
  }
  std::lock_guard lock(state.counters_mu);
  state.registered_counters.insert(&counter);
  return LAPI_SUCCESS;
}

// Polling mode: a LAPI_Getcntr loop must move the library forward.
int progress_if_polling(const char* fn, HandleState& state) {
  if (state.ctx->in_header_handler()) return LAPI_SUCCESS;
  std::int64_t interrupt = 0;
  if (int rc = from_status(fn, state.ctx->qenv(Query::interrupt_mode, interrupt)); rc != LAPI_SUCCESS) {
    return rc;
  }
  return interrupt != 0 ? LAPI_SUCCESS : from_status(fn, state.ctx->probe());
}

int counter_failed(const char* fn, int code) {
  return reject(code, fn, "an operation that named this counter failed (the err_hndlr, if any, "
                          "was told which task refused it)");
}

}  // namespace
}  // namespace lapi::c_api

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPI_Setcntr(lapi_handle_t hndl, lapi_cntr_t* cntr, int val) {
  return guarded("LAPI_Setcntr", [&] {
    constexpr const char* fn = "LAPI_Setcntr";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (cntr == nullptr) return reject(LAPI_ERR_CNTR_NULL, fn, "cntr is NULL");
    if (val < 0) return reject(LAPI_ERR_CNTR_VAL, fn, "val={} is below zero", val);
    construct_counter(cntr, val);
    return ensure_registered(fn, *state, cntr);
  });
}

extern "C" int LAPI_Getcntr(lapi_handle_t hndl, lapi_cntr_t* cntr, int* val) {
  return guarded("LAPI_Getcntr", [&] {
    constexpr const char* fn = "LAPI_Getcntr";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (cntr == nullptr) return reject(LAPI_ERR_CNTR_NULL, fn, "cntr is NULL");
    if (val == nullptr) return reject(LAPI_ERR_RET_PTR_NULL, fn, "val is NULL");
    if (int rc = ensure_registered(fn, *state, cntr); rc != LAPI_SUCCESS) return rc;
    lapi::Counter& counter = *counter_of(cntr);
    if (int rc = progress_if_polling(fn, *state); rc != LAPI_SUCCESS) return rc;
    *val = counter.get();
    if (int code = counter.error(); code != 0) return counter_failed(fn, code);
    return LAPI_SUCCESS;
  });
}

extern "C" int LAPI_Waitcntr(lapi_handle_t hndl, lapi_cntr_t* cntr, int val, int* cur_cntr_val) {
  return guarded("LAPI_Waitcntr", [&] {
    constexpr const char* fn = "LAPI_Waitcntr";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (cntr == nullptr) return reject(LAPI_ERR_CNTR_NULL, fn, "cntr is NULL");
    if (val < 0) return reject(LAPI_ERR_CNTR_VAL, fn, "val={} is below zero", val);
    if (int rc = ensure_registered(fn, *state, cntr); rc != LAPI_SUCCESS) return rc;
    lapi::Counter& counter = *counter_of(cntr);
    return from_status(fn, state->ctx->waitcntr(counter, val, cur_cntr_val));
  });
}

extern "C" int LAPIS_Unregister_cntr(lapi_handle_t hndl, lapi_cntr_t* cntr) {
  return guarded("LAPIS_Unregister_cntr", [&] {
    constexpr const char* fn = "LAPIS_Unregister_cntr";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (cntr == nullptr) return reject(LAPI_ERR_CNTR_NULL, fn, "cntr is NULL");
    lapi::Counter& counter = *counter_of(cntr);
    {
      std::lock_guard lock(state->counters_mu);
      if (state->registered_counters.erase(&counter) == 0) return LAPI_SUCCESS;  // never registered
    }
    return from_status(fn, state->ctx->unregister_counter(counter));
  });
}
