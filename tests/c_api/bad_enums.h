/* Out-of-range enum arguments as a C caller can pass them. C enums are plain
 * ints; C++ may not even form such values, so the C++ tests call these. */
#ifndef LAPIS_TESTS_C_API_BAD_ENUMS_H_
#define LAPIS_TESTS_C_API_BAD_ENUMS_H_

#include "lapi/lapi.h"

#ifdef __cplusplus
extern "C" {
#endif

int qenv_raw(lapi_handle_t hndl, int query, int *ret_val);
int senv_raw(lapi_handle_t hndl, int query, int set_val);
int rmw_raw(lapi_handle_t hndl, int op, unsigned int tgt, int *tgt_var, int *in_val, int *prev_tgt_val);
void set_lib_vers_raw(lapi_info_t *info, int lib_vers);

#ifdef __cplusplus
}
#endif

#endif /* LAPIS_TESTS_C_API_BAD_ENUMS_H_ */
