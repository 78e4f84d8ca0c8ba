#include "lapi/status.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace lapi {

namespace {

struct ErrcText {
  Errc code;
  std::string_view name;
  std::string_view description;
};

constexpr ErrcText kTexts[] = {
    {Errc::success, "LAPI_SUCCESS", "Successful completion"},
    {Errc::unknown, "LAPI_ERR_UNKNOWN", "Unknown error"},
    {Errc::all_hndl_in_use, "LAPI_ERR_ALL_HNDL_IN_USE", "All LAPI handles are in use"},
    {Errc::info_null, "LAPI_ERR_INFO_NULL", "The lapi_info_t pointer is NULL"},
    {Errc::hdr_hndlr_null, "LAPI_ERR_HDR_HNDLR_NULL", "The header handler is NULL or not registered"},
    {Errc::parm_null, "LAPI_ERR_PARM_NULL", "A required pointer parameter is NULL"},
    {Errc::timeout, "LAPI_ERR_TIMEOUT", "The operation timed out"},
    {Errc::hndl_invalid, "LAPI_ERR_HNDL_INVALID", "The LAPI handle is not valid"},
    {Errc::ret_ptr_null, "LAPI_ERR_RET_PTR_NULL", "The pointer for the returned value is NULL"},
    {Errc::addr_hndl_range, "LAPI_ERR_ADDR_HNDL_RANGE", "The address-table index is out of range"},
    {Errc::tgt_purged, "LAPI_ERR_TGT_PURGED", "The target task was purged"},
    {Errc::memory_exhausted, "LAPI_ERR_MEMORY_EXHAUSTED", "Out of memory"},
    {Errc::info_nonzero, "LAPI_ERR_INFO_NONZERO", "lapi_info_t was not zeroed before use"},
    {Errc::org_addr_null, "LAPI_ERR_ORG_ADDR_NULL", "The origin address is NULL but the length is not 0"},
    {Errc::tgt_addr_null, "LAPI_ERR_TGT_ADDR_NULL", "The target address is NULL but the length is not 0"},
    {Errc::data_len, "LAPI_ERR_DATA_LEN", "The data length is too large"},
    {Errc::tgt, "LAPI_ERR_TGT", "The target task is not valid"},
    {Errc::uhdr_null, "LAPI_ERR_UHDR_NULL", "The user header is NULL but its length is not 0"},
    {Errc::uhdr_len, "LAPI_ERR_UHDR_LEN", "The user header is larger than MAX_UHDR_SZ"},
    {Errc::hdr_len, "LAPI_ERR_HDR_LEN", "The header length is not valid"},
    {Errc::no_connectivity, "LAPI_ERR_NO_CONNECTIVITY", "No connection to the target task"},
    {Errc::cntr_null, "LAPI_ERR_CNTR_NULL", "The counter pointer is NULL"},
    {Errc::cntr_val, "LAPI_ERR_CNTR_VAL", "The counter value is not valid"},
    {Errc::query_type, "LAPI_ERR_QUERY_TYPE", "The query type is not valid"},
    {Errc::in_val_null, "LAPI_ERR_IN_VAL_NULL", "The input value pointer is NULL"},
    {Errc::rmw_op, "LAPI_ERR_RMW_OP", "The read-modify-write operation is not valid"},
    {Errc::tgt_var_null, "LAPI_ERR_TGT_VAR_NULL", "The target variable address is NULL"},
    {Errc::set_val, "LAPI_ERR_SET_VAL", "The value to set is not valid"},
    {Errc::op_sz, "LAPI_ERR_OP_SZ", "The operand size must be 32 or 64 bits"},
    {Errc::no_callback_reg, "LAPI_ERR_NO_CALLBACK_REG", "No handler is registered under that id"},
    {Errc::no_cntr_reg, "LAPI_ERR_NO_CNTR_REG", "The target counter is not registered at the target"},
    {Errc::in_header_handler, "LAPIS_ERR_IN_HEADER_HANDLER",
     "Communication calls are not allowed inside a header handler"},
    {Errc::not_registered, "LAPIS_ERR_NOT_REGISTERED", "The remote range is not registered memory"},
    {Errc::remote_refused, "LAPIS_ERR_REMOTE_REFUSED", "The target refused the request"},
    {Errc::bootstrap, "LAPIS_ERR_BOOTSTRAP", "The address exchange with the launcher failed"},
    {Errc::transport, "LAPIS_ERR_TRANSPORT", "The UCX transport reported an error"},
    {Errc::terminated, "LAPIS_ERR_TERMINATED", "The context was already terminated"},
    {Errc::data_corrupt, "LAPIS_ERR_DATA_CORRUPT",
     "The data arrived damaged (checksum mismatch) after every retransmission"},
};

const ErrcText* find(Errc code) {
  for (const auto& t : kTexts) {
    if (t.code == code) return &t;
  }
  return nullptr;
}

// A fixed, trivially destructible buffer: calls that fail during process
// exit (after this thread's non-trivial thread_locals are destroyed) must
// still be able to record their detail.
constexpr std::size_t kDetailCapacity = 512;
thread_local char tl_detail_buf[kDetailCapacity];
thread_local std::size_t tl_detail_len = 0;

std::string_view detail() { return {tl_detail_buf, tl_detail_len}; }

}  // namespace

std::string_view errc_name(Errc code) {
  const ErrcText* t = find(code);
  return t ? t->name : "LAPI_ERR_UNKNOWN_CODE";
}

std::string_view errc_description(Errc code) {
  const ErrcText* t = find(code);
  return t ? t->description : "Unrecognised error code";
}

std::string Status::message() const {
  if (ok()) return std::string(errc_name(code_));
  if (tl_detail_len == 0) {
    return fmt::format("{} ({}): {}", errc_name(code_), value(), errc_description(code_));
  }
  return fmt::format("{} ({}): {}", errc_name(code_), value(), detail());
}

std::string_view last_error_detail() { return detail(); }

void set_error_detail(std::string text) {
  tl_detail_len = std::min(text.size(), kDetailCapacity);
  std::memcpy(tl_detail_buf, text.data(), tl_detail_len);
}

}  // namespace lapi
