#pragma once
// The table of live LAPI handles and what the C API keeps per handle.
//
// A handle value encodes (generation, slot): a terminated handle, or one that
// was never returned by LAPI_Init, never matches a live slot, so every call
// can answer LAPI_ERR_HNDL_INVALID instead of touching freed state.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/c_api/handler_registry.hpp"
#include "lapi/context.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {

inline constexpr unsigned kMaxHandles = 16;  // IBM LAPI: instances 1..16
inline constexpr int kAddrTableSize = LAPIS_ADDRTBL_SZ;
// Core handler ids: 1..kAddrTableSize-1 are LAPI_Addr_set indices (same id on
// the wire as the index); kRawHandlerId carries Amsends naming a function
// address (RawHandlerPrefix, then the user header).
inline constexpr HandlerId kRawHandlerId = kMaxUserHandlers - 1;
static_assert(kAddrTableSize <= static_cast<int>(kRawHandlerId));

struct RawHandlerPrefix {
  std::uint64_t addr;    // hdr_hdl as the origin passed it
  ModuleRef where;       // hdr_hdl's module and offset in the ORIGIN's address space
};
static_assert(sizeof(RawHandlerPrefix) == 24 && sizeof(RawHandlerPrefix) % 4 == 0);

// Largest user header the C API accepts; the target copies it into an
// aligned stack buffer of this size before calling the C header handler.
inline constexpr std::size_t kMaxCUhdr = 1024;

struct HandleState;

// One LAPI_Addr_set entry. Registered with the core as handler id `index` on
// first LAPI_Addr_set, with this slot as handler_arg, so the header handler
// finds both the handle and the current function.
struct AddrSlot {
  HandleState* owner = nullptr;
  int index = 0;
  std::atomic<void*> addr{nullptr};             // what LAPI_Addr_get returns
  std::atomic<hdr_hndlr_t*> handler{nullptr};   // addr if it is code, else null
  bool core_registered = false;                 // guarded by owner->addr_mu
};

struct HandleState {
  lapi_handle_t handle = 0;
  std::unique_ptr<Context> ctx;
  TaskId me = 0;
  std::uint32_t ntasks = 0;
  std::size_t max_uhdr = 0;  // MAX_UHDR_SZ: multiple of 4, fits both Amsend paths
  LAPI_err_hndlr* err_hndlr = nullptr;
  std::array<AddrSlot, kAddrTableSize> addr_table{};
  HandlerRegistry handlers;

  // Lock rules (header handlers run with the core's lock held, so a thread
  // holding one of these while it waits for the core must never be waited
  // for by a header handler): addr_mu is held across register_handler and is
  // never taken in a header handler (LAPI_Addr_set refuses to run there);
  // counters_mu may be taken in a header handler (LAPI_Setcntr) and is never
  // held across a call into the core.
  std::mutex addr_mu;      // guards addr_table[].core_registered
  std::mutex counters_mu;  // guards registered_counters
  std::unordered_set<const Counter*> registered_counters;

  // Accepted for IBM compatibility; no effect.
  std::atomic<int> timeout{900};
  std::atomic<int> ack_threshold{30};
};

// The live state for h, or nullptr.
HandleState* find_handle(lapi_handle_t h);
// Handle whose context is ctx (completion handlers learn only the Context).
lapi_handle_t handle_of(const Context& ctx);

// Takes a free slot and assigns state->handle; false if all are in use. The
// handle becomes visible to find_handle only after publish_handle.
bool reserve_handle(HandleState& state);
void publish_handle(HandleState* state);
// Makes state->handle invalid and frees its slot (caller destroys the state).
void release_handle(const HandleState& state);

// Records LAPI_ERR_HNDL_INVALID for `function`.
int bad_handle(const char* function, lapi_handle_t h);

}  // namespace lapi::c_api
