// LAPI_Rmw and LAPI_Rmw64.
//
// FETCH_AND_ADD, FETCH_AND_OR and SWAP go straight to the core, which writes
// the old value to *prev_tgt_val before org_cntr moves. COMPARE_AND_SWAP
// must report a boolean (LAPI's convention) while the core reports the old
// value, and the core offers no hook to convert it when the operation
// completes; so the C API waits for the CAS itself, then writes TRUE/FALSE
// and bumps org_cntr. LAPI only promises the call does not block; finishing
// early keeps that promise.

#include <cstdint>
#include <memory>
#include <type_traits>

#include "lapi/c_api/counter_bridge.hpp"
#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

static_assert(static_cast<int>(RmwOp::fetch_and_add) == FETCH_AND_ADD);
static_assert(static_cast<int>(RmwOp::fetch_and_or) == FETCH_AND_OR);
static_assert(static_cast<int>(RmwOp::swap) == SWAP);
static_assert(static_cast<int>(RmwOp::compare_and_swap) == COMPARE_AND_SWAP);
static_assert(sizeof(long long) == sizeof(std::int64_t) && sizeof(int) == sizeof(std::int32_t));

// The core's integer type for a C operand type.
template <typename T>
using CoreInt = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;

template <typename T>
Status core_rmw(Context& ctx, RmwOp op, unsigned tgt, std::uint64_t addr, T operand, T compare,
                T* prev, Counter* org) {
  // The core writes *prev later, through its own type: same size and
  // representation (long long vs int64_t's long), asserted above.
  auto* core_prev = reinterpret_cast<CoreInt<T>*>(prev);
  if constexpr (sizeof(T) == 4) return ctx.rmw32(op, tgt, addr, operand, compare, core_prev, org);
  else return ctx.rmw64(op, tgt, addr, operand, compare, core_prev, org);
}

template <typename T>
int compare_and_swap(const char* fn, HandleState& state, unsigned tgt, std::uint64_t addr,
                     const T* in_val, T* prev_tgt_val, lapi_cntr_t* org_cntr) {
  struct Pending {
    Counter done;
    T old = 0;
  };
  auto pending = std::make_unique<Pending>();
  const T compare = in_val[0];
  Status s = core_rmw<T>(*state.ctx, RmwOp::compare_and_swap, tgt, addr, in_val[1], compare,
                         &pending->old, &pending->done);
  if (int rc = from_status(fn, s); rc != LAPI_SUCCESS) return rc;
  Status waited = state.ctx->waitcntr(pending->done, 1);
  if (!waited.ok()) {
    // A refused CAS is finished (its error is on the counter); otherwise the
    // core may still write into `pending`: leak it rather than free it.
    if (pending->done.error() == 0) static_cast<void>(pending.release());
    return from_status(fn, waited);
  }
  if (prev_tgt_val != nullptr) *prev_tgt_val = pending->old == compare ? 1 : 0;
  if (org_cntr != nullptr) counter_of(org_cntr)->add(1);
  return LAPI_SUCCESS;
}

template <typename T>
int rmw(const char* fn, lapi_handle_t hndl, int op_value, unsigned tgt, T* tgt_var, T* in_val,
        T* prev_tgt_val, lapi_cntr_t* org_cntr) {
  HandleState* state = find_handle(hndl);
  if (state == nullptr) return bad_handle(fn, hndl);
  if (op_value < FETCH_AND_ADD || op_value > COMPARE_AND_SWAP) {
    return reject(LAPI_ERR_RMW_OP, fn,
                  "op={} is not FETCH_AND_ADD, FETCH_AND_OR, SWAP or COMPARE_AND_SWAP", op_value);
  }
  if (tgt >= state->ntasks) {
    return reject(LAPI_ERR_TGT, fn, "tgt={} is not a task (0..{})", tgt, state->ntasks - 1);
  }
  if (tgt_var == nullptr) return reject(LAPI_ERR_TGT_VAR_NULL, fn, "tgt_var is NULL");
  if (in_val == nullptr) return reject(LAPI_ERR_IN_VAL_NULL, fn, "in_val is NULL");
  auto addr = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tgt_var));
  if (op_value == COMPARE_AND_SWAP) {
    return compare_and_swap<T>(fn, *state, tgt, addr, in_val, prev_tgt_val, org_cntr);
  }
  Status s = core_rmw<T>(*state->ctx, static_cast<RmwOp>(op_value), tgt, addr, *in_val, T{0},
                         prev_tgt_val, counter_or_null(org_cntr));
  return from_status(fn, s);
}

}  // namespace
}  // namespace lapi::c_api

extern "C" int LAPI_Rmw(lapi_handle_t hndl, RMW_ops_t op, unsigned int tgt, int* tgt_var,
                        int* in_val, int* prev_tgt_val, lapi_cntr_t* org_cntr) {
  return lapi::c_api::guarded("LAPI_Rmw", [&] {
    return lapi::c_api::rmw<int>("LAPI_Rmw", hndl, lapi::c_api::raw_enum(op), tgt, tgt_var, in_val,
                                 prev_tgt_val, org_cntr);
  });
}

extern "C" int LAPI_Rmw64(lapi_handle_t hndl, RMW_ops_t op, unsigned int tgt, long long* tgt_var,
                          long long* in_val, long long* prev_tgt_val, lapi_cntr_t* org_cntr) {
  return lapi::c_api::guarded("LAPI_Rmw64", [&] {
    return lapi::c_api::rmw<long long>("LAPI_Rmw64", hndl, lapi::c_api::raw_enum(op), tgt, tgt_var,
                                       in_val, prev_tgt_val, org_cntr);
  });
}
