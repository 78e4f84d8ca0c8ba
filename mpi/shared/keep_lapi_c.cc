// liblapi.so is linked from //lapi:lapi_c, whose objects a shared library
// would drop as unreferenced. Naming every function of lapi.h here keeps
// them all. (If lapi_c becomes alwayslink, this file can go.)
#include "lapi/lapi.h"

extern "C" {

__attribute__((used, visibility("default"))) void* const lapis_lapi_c_functions[] = {
    reinterpret_cast<void*>(&LAPI_Init),    reinterpret_cast<void*>(&LAPI_Term),
    reinterpret_cast<void*>(&LAPI_Qenv),    reinterpret_cast<void*>(&LAPI_Senv),
    reinterpret_cast<void*>(&LAPI_Amsend),  reinterpret_cast<void*>(&LAPI_Put),
    reinterpret_cast<void*>(&LAPI_Get),     reinterpret_cast<void*>(&LAPI_Rmw),
    reinterpret_cast<void*>(&LAPI_Fence),   reinterpret_cast<void*>(&LAPI_Gfence),
    reinterpret_cast<void*>(&LAPI_Probe),   reinterpret_cast<void*>(&LAPI_Getcntr),
    reinterpret_cast<void*>(&LAPI_Setcntr), reinterpret_cast<void*>(&LAPI_Waitcntr),
    reinterpret_cast<void*>(&LAPI_Address), reinterpret_cast<void*>(&LAPI_Address_init),
    reinterpret_cast<void*>(&LAPI_Addr_get), reinterpret_cast<void*>(&LAPI_Addr_set),
    reinterpret_cast<void*>(&LAPI_Msg_string),
};

}  // extern "C"
