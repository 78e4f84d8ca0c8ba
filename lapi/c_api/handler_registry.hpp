#pragma once
// Which function addresses a task accepts as an Amsend header handler.
//
// IBM LAPI lets hdr_hdl be a plain function address. A target must never
// jump to an address a peer sent unless it vouched for that function itself,
// so each handle keeps the handlers its task made known (LAPI_Addr_set,
// LAPIS_Hdr_hndlr_register, or a code address given to LAPI_Address_init),
// under two keys:
//   - the address in this process (an origin that learnt it through
//     LAPI_Address_init sends exactly this, as in IBM LAPI);
//   - (module, offset): the function's offset in its executable or shared
//     library plus a hash of that object's path. Tasks running the same
//     binary agree on it even though ASLR loads them at different bases, so
//     an origin may also pass its own address of the function.

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "lapi/lapi.h"

namespace lapi::c_api {

// Where a code address sits: hash of the loaded object's path and the offset
// from its load base. {0, 0} when the address is in no loaded object.
struct ModuleRef {
  std::uint64_t module = 0;
  std::uint64_t offset = 0;
  friend bool operator<(const ModuleRef& a, const ModuleRef& b) {
    return std::pair(a.module, a.offset) < std::pair(b.module, b.offset);
  }
};

// Cached per address (dladdr is slow): cheap on the Amsend path.
ModuleRef module_ref(const void* addr);

// True if addr lies in an executable segment of a loaded object, i.e. it can
// be a function address rather than data.
bool is_code_address(const void* addr);

class HandlerRegistry {
 public:
  void publish(hdr_hndlr_t* fn);
  // The handler a peer named by (address, module ref); nullptr if unknown.
  hdr_hndlr_t* resolve(std::uint64_t addr, ModuleRef ref) const;

 private:
  mutable std::mutex mu_;  // guards both maps; taken in header handlers (short)
  std::unordered_map<std::uint64_t, hdr_hndlr_t*> by_addr_;
  std::map<ModuleRef, hdr_hndlr_t*> by_module_;
};

}  // namespace lapi::c_api
