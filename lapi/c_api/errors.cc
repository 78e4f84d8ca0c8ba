#include "lapi/c_api/errors.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "lapi/lapi.h"

namespace lapi::c_api {
namespace {

// The header's numbers are the core's: the C API returns Errc values as is.
static_assert(LAPI_SUCCESS == static_cast<int>(Errc::success));
static_assert(LAPI_ERR_UNKNOWN == static_cast<int>(Errc::unknown));
static_assert(LAPI_ERR_ALL_HNDL_IN_USE == static_cast<int>(Errc::all_hndl_in_use));
static_assert(LAPI_ERR_INFO_NULL == static_cast<int>(Errc::info_null));
static_assert(LAPI_ERR_HDR_HNDLR_NULL == static_cast<int>(Errc::hdr_hndlr_null));
static_assert(LAPI_WARN_PARM_NULL == static_cast<int>(Errc::parm_null));
static_assert(LAPI_ERR_TIMEOUT == static_cast<int>(Errc::timeout));
static_assert(LAPI_ERR_HNDL_INVALID == static_cast<int>(Errc::hndl_invalid));
static_assert(LAPI_ERR_RET_PTR_NULL == static_cast<int>(Errc::ret_ptr_null));
static_assert(LAPI_ERR_ADDR_HNDL_RANGE == static_cast<int>(Errc::addr_hndl_range));
static_assert(LAPI_ERR_TGT_PURGED == static_cast<int>(Errc::tgt_purged));
static_assert(LAPI_ERR_MEMORY_EXHAUSTED == static_cast<int>(Errc::memory_exhausted));
static_assert(LAPI_ERR_INFO_NONZERO == static_cast<int>(Errc::info_nonzero));
static_assert(LAPI_ERR_ORG_ADDR_NULL == static_cast<int>(Errc::org_addr_null));
static_assert(LAPI_ERR_TGT_ADDR_NULL == static_cast<int>(Errc::tgt_addr_null));
static_assert(LAPI_ERR_DATA_LEN == static_cast<int>(Errc::data_len));
static_assert(LAPI_ERR_TGT == static_cast<int>(Errc::tgt));
static_assert(LAPI_ERR_UHDR_NULL == static_cast<int>(Errc::uhdr_null));
static_assert(LAPI_ERR_UHDR_LEN == static_cast<int>(Errc::uhdr_len));
static_assert(LAPI_ERR_HDR_LEN == static_cast<int>(Errc::hdr_len));
static_assert(LAPI_ERR_NO_CONNECTIVITY == static_cast<int>(Errc::no_connectivity));
static_assert(LAPI_ERR_CNTR_NULL == static_cast<int>(Errc::cntr_null));
static_assert(LAPI_ERR_CNTR_VAL == static_cast<int>(Errc::cntr_val));
static_assert(LAPI_ERR_QUERY_TYPE == static_cast<int>(Errc::query_type));
static_assert(LAPI_ERR_IN_VAL_NULL == static_cast<int>(Errc::in_val_null));
static_assert(LAPI_ERR_RMW_OP == static_cast<int>(Errc::rmw_op));
static_assert(LAPI_ERR_TGT_VAR_NULL == static_cast<int>(Errc::tgt_var_null));
static_assert(LAPI_ERR_SET_VAL == static_cast<int>(Errc::set_val));
static_assert(LAPI_ERR_OP_SZ == static_cast<int>(Errc::op_sz));
static_assert(LAPI_ERR_NO_CALLBACK_REG == static_cast<int>(Errc::no_callback_reg));
static_assert(LAPI_ERR_NO_CNTR_REG == static_cast<int>(Errc::no_cntr_reg));
static_assert(LAPIS_ERR_IN_HEADER_HANDLER == static_cast<int>(Errc::in_header_handler));
static_assert(LAPIS_ERR_NOT_REGISTERED == static_cast<int>(Errc::not_registered));
static_assert(LAPIS_ERR_REMOTE_REFUSED == static_cast<int>(Errc::remote_refused));
static_assert(LAPIS_ERR_BOOTSTRAP == static_cast<int>(Errc::bootstrap));
static_assert(LAPIS_ERR_TRANSPORT == static_cast<int>(Errc::transport));
static_assert(LAPIS_ERR_TERMINATED == static_cast<int>(Errc::terminated));
static_assert(LAPIS_ERR_DATA_CORRUPT == static_cast<int>(Errc::data_corrupt));

struct CodeEntry {
  int code;
  CodeText text;
};

// Every code lapi.h defines. 420, 519 and 537 are C-API-only (no Errc value).
constexpr std::array kCodes{
    CodeEntry{LAPI_SUCCESS, {"LAPI_SUCCESS", "no error"}},
    CodeEntry{LAPI_ERR_UNKNOWN, {"LAPI_ERR_UNKNOWN", "internal or asynchronous error"}},
    CodeEntry{LAPI_ERR_ALL_HNDL_IN_USE, {"LAPI_ERR_ALL_HNDL_IN_USE", "all LAPI handles are in use"}},
    CodeEntry{LAPI_ERR_INFO_NULL, {"LAPI_ERR_INFO_NULL", "lapi_info pointer is NULL"}},
    CodeEntry{LAPI_ERR_HDR_HNDLR_NULL, {"LAPI_ERR_HDR_HNDLR_NULL", "header handler is NULL or unknown"}},
    CodeEntry{LAPI_WARN_PARM_NULL, {"LAPI_WARN_PARM_NULL", "a required pointer is NULL"}},
    CodeEntry{LAPI_ERR_TIMEOUT, {"LAPI_ERR_TIMEOUT", "communication timed out"}},
    CodeEntry{LAPI_ERR_HNDL_INVALID, {"LAPI_ERR_HNDL_INVALID", "handle is not valid or was terminated"}},
    CodeEntry{LAPI_ERR_RET_PTR_NULL, {"LAPI_ERR_RET_PTR_NULL", "output pointer is NULL"}},
    CodeEntry{LAPI_ERR_ADDR_HNDL_RANGE, {"LAPI_ERR_ADDR_HNDL_RANGE", "address handle out of range"}},
    CodeEntry{LAPI_ERR_ADDR_TBL_NULL, {"LAPI_ERR_ADDR_TBL_NULL", "address table pointer is NULL"}},
    CodeEntry{LAPI_ERR_TGT_PURGED, {"LAPI_ERR_TGT_PURGED", "target task is gone"}},
    CodeEntry{LAPI_ERR_MEMORY_EXHAUSTED, {"LAPI_ERR_MEMORY_EXHAUSTED", "out of memory"}},
    CodeEntry{LAPI_ERR_INFO_NONZERO, {"LAPI_ERR_INFO_NONZERO", "unused lapi_info_t fields must be zero"}},
    CodeEntry{LAPI_ERR_ORG_ADDR_NULL, {"LAPI_ERR_ORG_ADDR_NULL", "origin address is NULL"}},
    CodeEntry{LAPI_ERR_TGT_ADDR_NULL, {"LAPI_ERR_TGT_ADDR_NULL", "target address is NULL"}},
    CodeEntry{LAPI_ERR_DATA_LEN, {"LAPI_ERR_DATA_LEN", "length is too big"}},
    CodeEntry{LAPI_ERR_TGT, {"LAPI_ERR_TGT", "target task is not valid"}},
    CodeEntry{LAPI_ERR_UHDR_NULL, {"LAPI_ERR_UHDR_NULL", "uhdr is NULL but uhdr_len > 0"}},
    CodeEntry{LAPI_ERR_UHDR_LEN, {"LAPI_ERR_UHDR_LEN", "uhdr_len is too big"}},
    CodeEntry{LAPI_ERR_HDR_LEN, {"LAPI_ERR_HDR_LEN", "uhdr_len is not word aligned"}},
    CodeEntry{LAPI_ERR_NO_CONNECTIVITY, {"LAPI_ERR_NO_CONNECTIVITY", "no connection to the task"}},
    CodeEntry{LAPI_ERR_CNTR_NULL, {"LAPI_ERR_CNTR_NULL", "counter pointer is NULL"}},
    CodeEntry{LAPI_ERR_CNTR_VAL, {"LAPI_ERR_CNTR_VAL", "counter value is below zero"}},
    CodeEntry{LAPI_ERR_QUERY_TYPE, {"LAPI_ERR_QUERY_TYPE", "query is not valid here"}},
    CodeEntry{LAPI_ERR_IN_VAL_NULL, {"LAPI_ERR_IN_VAL_NULL", "Rmw in_val is NULL"}},
    CodeEntry{LAPI_ERR_RMW_OP, {"LAPI_ERR_RMW_OP", "Rmw operation is not valid"}},
    CodeEntry{LAPI_ERR_TGT_VAR_NULL, {"LAPI_ERR_TGT_VAR_NULL", "Rmw tgt_var is NULL"}},
    CodeEntry{LAPI_ERR_SET_VAL, {"LAPI_ERR_SET_VAL", "Senv value is not valid"}},
    CodeEntry{LAPI_ERR_OP_SZ, {"LAPI_ERR_OP_SZ", "Rmw operand size is not 32 or 64"}},
    CodeEntry{LAPI_ERR_NO_CALLBACK_REG, {"LAPI_ERR_NO_CALLBACK_REG", "handler not registered at the target"}},
    CodeEntry{LAPI_ERR_NO_CNTR_REG, {"LAPI_ERR_NO_CNTR_REG", "counter not registered at the target"}},
    CodeEntry{LAPI_ERR_CODE_UNKNOWN, {"LAPI_ERR_CODE_UNKNOWN", "error code is unknown"}},
    CodeEntry{LAPIS_ERR_IN_HEADER_HANDLER,
              {"LAPIS_ERR_IN_HEADER_HANDLER", "communication call inside a header handler"}},
    CodeEntry{LAPIS_ERR_NOT_REGISTERED, {"LAPIS_ERR_NOT_REGISTERED", "remote memory is not registered"}},
    CodeEntry{LAPIS_ERR_REMOTE_REFUSED, {"LAPIS_ERR_REMOTE_REFUSED", "the target refused the request"}},
    CodeEntry{LAPIS_ERR_BOOTSTRAP, {"LAPIS_ERR_BOOTSTRAP", "address exchange with the launcher failed"}},
    CodeEntry{LAPIS_ERR_TRANSPORT, {"LAPIS_ERR_TRANSPORT", "the transport (UCX) reported an error"}},
    CodeEntry{LAPIS_ERR_TERMINATED, {"LAPIS_ERR_TERMINATED", "use after LAPI_Term"}},
    CodeEntry{LAPIS_ERR_DATA_CORRUPT,
              {"LAPIS_ERR_DATA_CORRUPT", "data damaged after every retransmission"}},
    CodeEntry{LAPIS_ERR_CNTR_UNSET,
              {"LAPIS_ERR_CNTR_UNSET", "counter was never set with LAPI_Setcntr (nor zero-filled)"}},
};

// This thread's most recent failure. Fixed-size: recording must not allocate
// beyond the formatting that produced the text, and Msg_string truncates anyway.
struct LastFailure {
  int code = LAPI_SUCCESS;
  std::size_t len = 0;
  std::array<char, LAPI_MAX_ERR_STRING> detail{};
};
thread_local LastFailure tl_last;

}  // namespace

CodeText code_text(int code) {
  const auto* it = std::find_if(kCodes.begin(), kCodes.end(),
                                [code](const CodeEntry& e) { return e.code == code; });
  return it == kCodes.end() ? CodeText{} : it->text;
}

int record_failure(int code, std::string_view detail) {
  tl_last.code = code;
  tl_last.len = std::min(detail.size(), tl_last.detail.size());
  std::memcpy(tl_last.detail.data(), detail.data(), tl_last.len);
  return code;
}

int from_status(const char* function, Status status) {
  if (status.ok()) return LAPI_SUCCESS;
  std::string_view core_detail = last_error_detail();
  int rc = core_detail.empty()
               ? record_failure(status.value(), function)
               : record_failure(status.value(), fmt::format("{}: {}", function, core_detail));
  // Consumed: a later failure the core reports without detail must not show this one.
  set_error_detail({});
  return rc;
}

int write_message(int code, char* buf) {
  CodeText text = code_text(code);
  std::string line;
  int rc = LAPI_SUCCESS;
  if (text.name.empty()) {
    line = fmt::format("LAPI_ERR_CODE_UNKNOWN ({}): {} is not a LAPI error code", LAPI_ERR_CODE_UNKNOWN, code);
    rc = LAPI_ERR_CODE_UNKNOWN;
  } else if (code != LAPI_SUCCESS && tl_last.code == code && tl_last.len > 0) {
    line = fmt::format("{} ({}): {}: {}", text.name, code, text.meaning,
                       std::string_view(tl_last.detail.data(), tl_last.len));
  } else {
    line = fmt::format("{} ({}): {}", text.name, code, text.meaning);
  }
  std::size_t n = std::min(line.size(), std::size_t{LAPI_MAX_ERR_STRING - 1});
  std::memcpy(buf, line.data(), n);
  buf[n] = '\0';
  return rc;
}

}  // namespace lapi::c_api
