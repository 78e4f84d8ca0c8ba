#include <stddef.h>

#include "tests/c_api/bad_enums.h"

int qenv_raw(lapi_handle_t hndl, int query, int *ret_val) {
  return LAPI_Qenv(hndl, (lapi_query_t)query, ret_val);
}

int senv_raw(lapi_handle_t hndl, int query, int set_val) {
  return LAPI_Senv(hndl, (lapi_query_t)query, set_val);
}

int rmw_raw(lapi_handle_t hndl, int op, unsigned int tgt, int *tgt_var, int *in_val, int *prev_tgt_val) {
  return LAPI_Rmw(hndl, (RMW_ops_t)op, tgt, tgt_var, in_val, prev_tgt_val, NULL);
}

void set_lib_vers_raw(lapi_info_t *info, int lib_vers) { info->lib_vers = (lapi_lib_t)lib_vers; }
