/* Compiled with -std=c11 -pedantic-errors: lapi.h must stay strict ISO C. */
#include "lapi/lapi.h"

int lapi_h_c11_check(void) {
  lapi_cntr_t counter;
  lapi_info_t info = {0};
  lapi_return_info_t ret = {0};
  RMW_ops_t op = COMPARE_AND_SWAP;
  lapi_query_t query = LAPIS_EAGER_LIMIT;
  counter.cntr = 0;
  ret.ctl_flags = LAPI_BURY_MSG;
  return counter.cntr + (int)info.protocol + (int)ret.msg_len + (int)op + (int)query -
         (int)COMPARE_AND_SWAP - (int)LAPIS_EAGER_LIMIT;
}
