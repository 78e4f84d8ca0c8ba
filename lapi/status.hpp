#pragma once
// Status codes of the one-sided core. Numbers 400+ follow IBM LAPI's lapi.h so
// that the C API can return them unchanged; codes from 530 up are Lapis'.

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace lapi {

enum class Errc : int {
  success = 0,
  unknown = 400,
  all_hndl_in_use = 401,
  info_null = 405,
  hdr_hndlr_null = 409,
  parm_null = 411,
  timeout = 413,
  hndl_invalid = 417,
  ret_ptr_null = 418,
  addr_hndl_range = 419,
  tgt_purged = 421,
  memory_exhausted = 423,
  info_nonzero = 424,
  org_addr_null = 425,
  tgt_addr_null = 426,
  data_len = 427,
  tgt = 428,
  uhdr_null = 429,
  uhdr_len = 430,
  hdr_len = 431,
  no_connectivity = 434,
  cntr_null = 458,
  cntr_val = 459,
  query_type = 460,
  in_val_null = 461,
  rmw_op = 462,
  tgt_var_null = 463,
  set_val = 464,
  op_sz = 474,
  no_callback_reg = 511,  // unknown handler id
  no_cntr_reg = 512,      // target counter handle not registered at the target
  // Lapis additions.
  in_header_handler = 530,  // communication call made from inside a header handler
  not_registered = 531,     // remote range is not registered memory at the target
  remote_refused = 532,     // the target refused the request (see message)
  bootstrap = 533,          // address exchange with the launcher failed
  transport = 534,          // UCX reported an error
  terminated = 535,         // use after Term
  data_corrupt = 536,       // data arrived damaged after every retransmission (LAPIS_CHECKSUM)
};

// Name such as "LAPI_ERR_TGT"; "LAPI_SUCCESS" for success.
std::string_view errc_name(Errc code);

// Fixed one-line description of a code (what LAPI_Msg_string prints).
std::string_view errc_description(Errc code);

// Result of every core call. Cheap to return: an error's detail text (naming
// the bad argument) lives in a thread-local slot, read back with message()
// before the next failing call on the same thread.
class [[nodiscard]] Status {
 public:
  constexpr Status() = default;
  constexpr Status(Errc code) : code_(code) {}  // NOLINT: implicit on purpose

  constexpr bool ok() const { return code_ == Errc::success; }
  constexpr explicit operator bool() const { return ok(); }
  constexpr Errc code() const { return code_; }
  constexpr int value() const { return static_cast<int>(code_); }

  // "LAPI_ERR_TGT (428): LAPI_Amsend: tgt=9 is not a task (0..3)".
  std::string message() const;

 private:
  Errc code_ = Errc::success;
};

// The detail recorded by the most recent fail() on this thread.
std::string_view last_error_detail();

void set_error_detail(std::string detail);

// Records the detail text and returns the error. The text should name the
// function and the argument: fail(Errc::tgt, "amsend: tgt={} not in 0..{}", t, n-1).
template <typename... Args>
[[gnu::cold, gnu::noinline]] Status fail(Errc code, fmt::format_string<Args...> format, Args&&... args) {
  set_error_detail(fmt::format(format, std::forward<Args>(args)...));
  return Status(code);
}

}  // namespace lapi
