// LAPI_Qenv and LAPI_Senv: IBM's queries mapped onto the core's, plus the
// Lapis queries after LAST_QUERY.

#include <array>
#include <climits>
#include <cstdint>
#include <string_view>

#include "lapi/c_api/errors.hpp"
#include "lapi/c_api/handles.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

constexpr std::array<std::string_view, LAPIS_LAST_QUERY> kQueryNames{
    "TASK_ID", "NUM_TASKS", "MAX_UHDR_SZ", "MAX_DATA_SZ", "ERROR_CHK", "TIMEOUT", "MIN_TIMEOUT",
    "MAX_TIMEOUT", "INTERRUPT_SET", "MAX_PORTS", "MAX_PKT_SZ", "NUM_REX_BUFS", "REX_BUF_SZ",
    "LOC_ADDRTBL_SZ", "EPOCH_NUM", "USE_THRESH", "RCV_FIFO_SIZE", "MAX_ATOM_SIZE", "BUF_CP_SIZE",
    "MAX_PKTS_OUT", "ACK_THRESHOLD", "QUERY_SHM_ENABLED", "QUERY_SHM_NUM_TASKS", "QUERY_SHM_TASKS",
    "QUERY_STATISTICS", "PRINT_STATISTICS", "QUERY_SHM_STATISTICS", "QUERY_LOCAL_SEND_STATISTICS",
    "BULK_XFER", "BULK_MIN_MSG_SIZE", "RDMA_REMOTE_RCXT_AVAIL", "RDMA_REMOTE_RCXT_TOTAL",
    "RC_MAX_QP", "RC_QP_IN_USE", "RC_QP_USE_LRU", "RC_QP_USE_LMC", "RC_QP_INIT_SETUP", "LAST_QUERY",
    "LAPIS_COMPLETION_POLICY", "LAPIS_EAGER_LIMIT", "LAPIS_FAULTS_REFUSED", "LAPIS_FAULTS_REPORTED"};
static_assert(kQueryNames[RC_QP_INIT_SETUP] == "RC_QP_INIT_SETUP");
static_assert(kQueryNames[LAPIS_FAULTS_REPORTED] == "LAPIS_FAULTS_REPORTED");

constexpr int kMaxAckThreshold = 30;

bool is_query(int q) { return q >= 0 && q < LAPIS_LAST_QUERY && q != LAST_QUERY; }

int clamp_to_int(std::int64_t v) {
  return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : static_cast<int>(v);
}

int query_core(HandleState& state, Query q, int* out) {
  std::int64_t v = 0;
  if (int rc = from_status("LAPI_Qenv", state.ctx->qenv(q, v)); rc != LAPI_SUCCESS) return rc;
  *out = clamp_to_int(v);
  return LAPI_SUCCESS;
}

int set_core(HandleState& state, Query q, int value) {
  return from_status("LAPI_Senv", state.ctx->senv(q, value));
}

int bad_query(const char* fn, int q, std::string_view why) {
  if (!is_query(q)) return reject(LAPI_ERR_QUERY_TYPE, fn, "query={} is not a lapi_query_t value", q);
  return reject(LAPI_ERR_QUERY_TYPE, fn, "query {} ({}) {}", kQueryNames[q], q, why);
}

int bad_value(int q, int value, std::string_view allowed) {
  return reject(LAPI_ERR_SET_VAL, "LAPI_Senv", "{}={} is not {}", kQueryNames[q], value, allowed);
}

int query(HandleState& state, int q, int* out) {
  switch (q) {
    case TASK_ID: *out = static_cast<int>(state.me); return LAPI_SUCCESS;
    case NUM_TASKS: *out = static_cast<int>(state.ntasks); return LAPI_SUCCESS;
    case MAX_UHDR_SZ: *out = static_cast<int>(state.max_uhdr); return LAPI_SUCCESS;
    case MAX_DATA_SZ: return query_core(state, Query::max_data_size, out);
    case ERROR_CHK: return query_core(state, Query::error_checking, out);
    case TIMEOUT: *out = state.timeout.load(); return LAPI_SUCCESS;
    case MIN_TIMEOUT: *out = LAPIS_MIN_TIMEOUT; return LAPI_SUCCESS;
    case MAX_TIMEOUT: *out = LAPIS_MAX_TIMEOUT; return LAPI_SUCCESS;
    case INTERRUPT_SET: return query_core(state, Query::interrupt_mode, out);
    case MAX_PORTS: *out = 1; return LAPI_SUCCESS;
    case MAX_PKT_SZ: return query_core(state, Query::eager_limit, out);
    case NUM_REX_BUFS:  // UCX is reliable: no retransmission buffers
    case REX_BUF_SZ:
    case EPOCH_NUM: *out = 0; return LAPI_SUCCESS;
    case LOC_ADDRTBL_SZ: *out = kAddrTableSize; return LAPI_SUCCESS;
    case ACK_THRESHOLD: *out = state.ack_threshold.load(); return LAPI_SUCCESS;
    case LAPIS_COMPLETION_POLICY: return query_core(state, Query::completion_policy, out);
    case LAPIS_EAGER_LIMIT: return query_core(state, Query::eager_limit, out);
    case LAPIS_FAULTS_REFUSED:
      *out = clamp_to_int(static_cast<std::int64_t>(state.ctx->fault_stats().refused_here));
      return LAPI_SUCCESS;
    case LAPIS_FAULTS_REPORTED:
      *out = clamp_to_int(static_cast<std::int64_t>(state.ctx->fault_stats().reported_to_me));
      return LAPI_SUCCESS;
    default: return bad_query("LAPI_Qenv", q, "is not supported by Lapis");
  }
}

int set(HandleState& state, int q, int value) {
  switch (q) {
    case ERROR_CHK:
      if (value != 0 && value != 1) return bad_value(q, value, "0 or 1");
      return set_core(state, Query::error_checking, value);
    case INTERRUPT_SET:
      if (value != 0 && value != 1) return bad_value(q, value, "0 or 1");
      return set_core(state, Query::interrupt_mode, value);
    case TIMEOUT:
      if (value < LAPIS_MIN_TIMEOUT || value > LAPIS_MAX_TIMEOUT) {
        return bad_value(q, value, "in MIN_TIMEOUT..MAX_TIMEOUT (10..86400)");
      }
      state.timeout.store(value);
      return LAPI_SUCCESS;
    case ACK_THRESHOLD:
      if (value < 1 || value > kMaxAckThreshold) return bad_value(q, value, "in 1..30");
      state.ack_threshold.store(value);
      return LAPI_SUCCESS;
    case LAPIS_COMPLETION_POLICY:
      if (value < LAPIS_POLICY_INLINE || value > LAPIS_POLICY_FIBER) {
        return bad_value(q, value, "LAPIS_POLICY_INLINE, _THREAD or _FIBER (0..2)");
      }
      return set_core(state, Query::completion_policy, value);
    case LAPIS_EAGER_LIMIT:
      if (value < 0) return bad_value(q, value, "a byte count >= 0");
      return set_core(state, Query::eager_limit, value);
    default: return bad_query("LAPI_Senv", q, "cannot be set");
  }
}

}  // namespace
}  // namespace lapi::c_api

using namespace lapi::c_api;  // NOLINT: the C entry points below are the whole file's job

extern "C" int LAPI_Qenv(lapi_handle_t hndl, lapi_query_t query, int* ret_val) {
  return guarded("LAPI_Qenv", [&] {
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle("LAPI_Qenv", hndl);
    if (ret_val == nullptr) return reject(LAPI_ERR_RET_PTR_NULL, "LAPI_Qenv", "ret_val is NULL");
    return lapi::c_api::query(*state, raw_enum(query), ret_val);
  });
}

extern "C" int LAPI_Senv(lapi_handle_t hndl, lapi_query_t query, int set_val) {
  return guarded("LAPI_Senv", [&] {
    HandleState* state = find_handle(hndl);
    if (state == nullptr) return bad_handle("LAPI_Senv", hndl);
    return lapi::c_api::set(*state, raw_enum(query), set_val);
  });
}
