// LAPI_Init, LAPI_Term, LAPI_Msg_string, LAPI_Address.

#include <algorithm>
#include <cstdint>
#include <memory>

#include "lapi/c_api/am_bridge.hpp"
#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/config.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

constexpr unsigned kKnownProtocolFlags = LAPI_SHARE_PROTOCOL | LAPI_INTERRUPT_OFF;
constexpr unsigned kMaxInstance = 16;

// IBM's rule: every lapi_info_t field Lapis does not use must be zero.
int check_info(const lapi_info_t& info) {
  constexpr const char* fn = "LAPI_Init";
  if ((info.protocol & ~kKnownProtocolFlags) != 0) {
    return reject(LAPI_ERR_INFO_NONZERO, fn,
                  "lapi_info.protocol={:#x} has bits other than LAPI_INTERRUPT_OFF and LAPI_SHARE_PROTOCOL",
                  info.protocol);
  }
  if (int lib = raw_enum(info.lib_vers); lib < L1_LIB || lib >= LAST_LIB) {
    return reject(LAPI_ERR_INFO_NONZERO, fn, "lapi_info.lib_vers={} is not L1_LIB..L4_LIB", lib);
  }
  if (info.epoch_num != 0) {
    return reject(LAPI_ERR_INFO_NONZERO, fn, "lapi_info.epoch_num={} must be 0", info.epoch_num);
  }
  if (info.num_compl_hndlr_thr != 0) {
    return reject(LAPI_ERR_INFO_NONZERO, fn,
                  "lapi_info.num_compl_hndlr_thr={} must be 0 (use LAPIS_COMPLETION_POLICY)",
                  info.num_compl_hndlr_thr);
  }
  if (info.instance_no > kMaxInstance) {
    return reject(LAPI_ERR_INFO_NONZERO, fn, "lapi_info.instance_no={} is not 0..{}",
                  info.instance_no, kMaxInstance);
  }
  if (info.info6 != 0) {
    return reject(LAPI_ERR_INFO_NONZERO, fn, "lapi_info.info6={} must be 0", info.info6);
  }
  if (info.lapi_thread_attr != nullptr) {
    return reject(LAPI_ERR_INFO_NONZERO, fn, "lapi_info.lapi_thread_attr must be NULL (unsupported)");
  }
  if (info.add_info != nullptr) {
    return reject(LAPI_ERR_INFO_NONZERO, fn, "lapi_info.add_info must be NULL (UDP is unsupported)");
  }
  return LAPI_SUCCESS;
}

// The C API defaults to interrupt mode (IBM's default); LAPIS_* variables
// override that, and LAPI_INTERRUPT_OFF in the program overrides both.
int make_config(const lapi_info_t& info, Config& config) {
  config.mode = ProgressMode::interrupt;
  config.leave_call = "LAPI_Term";
  if (int rc = from_status("LAPI_Init", Config::from_env(config)); rc != LAPI_SUCCESS) return rc;
  if ((info.protocol & LAPI_INTERRUPT_OFF) != 0) config.mode = ProgressMode::polling;
  return LAPI_SUCCESS;
}

lapi_err_t error_type_of(Errc code) {
  switch (code) {
    case Errc::timeout:
      return TMR_ERR;
    case Errc::hdr_hndlr_null:
    case Errc::no_callback_reg:
    case Errc::uhdr_len:
    case Errc::hdr_len:
      return AM_ERR;
    case Errc::rmw_op:
    case Errc::op_sz:
      return RMW_ERR;
    default:
      return INT_ERR;  // the core does not say which operation was refused
  }
}

void remote_error_bridge(Context&, TaskId target, Errc code, const char* detail, void* arg) {
  report_async(*static_cast<HandleState*>(arg), static_cast<int>(code), error_type_of(code),
               static_cast<int>(target), detail ? detail : "");
}

// Creates the context and installs the C API's handlers on it.
int start_context(HandleState& state, const Config& config, LAPI_err_hndlr* err_hndlr) {
  constexpr const char* fn = "LAPI_Init";
  if (int rc = from_status(fn, Context::init(config, state.ctx)); rc != LAPI_SUCCESS) return rc;
  Context& ctx = *state.ctx;
  state.me = ctx.task_id();
  state.ntasks = ctx.num_tasks();
  std::int64_t core_max_uhdr = 0;
  if (int rc = from_status(fn, ctx.qenv(Query::max_uhdr_size, core_max_uhdr)); rc != LAPI_SUCCESS) {
    return rc;
  }
  // One limit for both Amsend paths: the raw-address path spends a prefix.
  auto room = static_cast<std::size_t>(std::max<std::int64_t>(core_max_uhdr, 0));
  room = room > sizeof(RawHandlerPrefix) ? room - sizeof(RawHandlerPrefix) : 0;
  state.max_uhdr = std::min(room, kMaxCUhdr) & ~std::size_t{3};

  for (int i = 0; i < kAddrTableSize; ++i) {
    state.addr_table[i].owner = &state;
    state.addr_table[i].index = i;
  }
  state.err_hndlr = err_hndlr;
  if (int rc = from_status(fn, ctx.register_handler(kRawHandlerId, raw_header_handler, &state));
      rc != LAPI_SUCCESS) {
    return rc;
  }
  if (err_hndlr != nullptr) ctx.set_remote_error_handler(remote_error_bridge, &state);
  return LAPI_SUCCESS;
}

}  // namespace
}  // namespace lapi::c_api

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPI_Init(lapi_handle_t* hndl, lapi_info_t* lapi_info) {
  return guarded("LAPI_Init", [&] {
    constexpr const char* fn = "LAPI_Init";
    if (hndl == nullptr) return reject(LAPI_ERR_RET_PTR_NULL, fn, "hndl is NULL");
    if (lapi_info == nullptr) return reject(LAPI_ERR_INFO_NULL, fn, "lapi_info is NULL");
    if (int rc = check_info(*lapi_info); rc != LAPI_SUCCESS) return rc;
    lapi::Config config;
    if (int rc = make_config(*lapi_info, config); rc != LAPI_SUCCESS) return rc;

    auto state = std::make_unique<HandleState>();
    if (!reserve_handle(*state)) {
      return reject(LAPI_ERR_ALL_HNDL_IN_USE, fn, "all {} handles are in use", kMaxHandles);
    }
    int rc = start_context(*state, config, lapi_info->err_hndlr);
    if (rc == LAPI_SUCCESS) {
      publish_handle(state.get());
      // Peers may send as soon as their LAPI_Init returns: every task must
      // have its handlers installed first.
      rc = from_status(fn, state->ctx->barrier());
      if (rc != LAPI_SUCCESS) release_handle(*state);
    } else {
      release_handle(*state);
    }
    if (rc != LAPI_SUCCESS) return rc;
    *hndl = state.release()->handle;  // owned by the handle table until LAPI_Term
    return LAPI_SUCCESS;
  });
}

extern "C" int LAPI_Term(lapi_handle_t hndl) {
  return guarded("LAPI_Term", [&] {
    constexpr const char* fn = "LAPI_Term";
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle(fn, hndl);
    if (state->ctx->in_header_handler()) {
      return reject(LAPIS_ERR_IN_HEADER_HANDLER, fn, "called inside a header handler");
    }
    int rc = from_status(fn, state->ctx->term());
    // Even a failed term (a peer died) ends this handle: nothing can use it now.
    release_handle(*state);
    delete state;
    return rc;
  });
}

extern "C" int LAPI_Msg_string(int error_code, void* buf) {
  return guarded("LAPI_Msg_string", [&] {
    if (buf == nullptr) return reject(LAPI_ERR_RET_PTR_NULL, "LAPI_Msg_string", "buf is NULL");
    return write_message(error_code, static_cast<char*>(buf));
  });
}

extern "C" int LAPI_Address(void* my_addr, unsigned long* ret_addr) {
  if (ret_addr == nullptr) return record_failure(LAPI_ERR_RET_PTR_NULL, "LAPI_Address: ret_addr is NULL");
  *ret_addr = static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(my_addr));
  return LAPI_SUCCESS;
}
