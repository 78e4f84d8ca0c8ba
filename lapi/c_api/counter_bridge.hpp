#pragma once
// lapi_cntr_t <-> lapi::Counter.
//
// A lapi_cntr_t's storage holds a lapi::Counter at offset 0, so
//   - the C `cntr` member overlays the Counter's value (its first member);
//   - the RemoteCounter handle of a target counter is the address of the
//     lapi_cntr_t at the target: the core's register_counter hands out
//     exactly reinterpret_cast<uint64_t>(&counter), so an origin turns the
//     target address it learnt through LAPI_Address_init into the handle
//     without asking the target.
// LAPI_Setcntr constructs the Counter in place (user storage may hold
// garbage, e.g. an uninitialized stack counter) and stamps the last 8 bytes.
// Zero-filled storage is a valid Counter at 0 without construction: both its
// members are atomic ints. Anything else was never set: its "error" member
// would be garbage, so the C API refuses it (counter_usable).

#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "counters/counter.hpp"
#include "lapi/context.hpp"
#include "lapi/lapi.h"

namespace lapi::c_api {

static_assert(sizeof(Counter) <= sizeof(lapi_cntr_t), "lapi_cntr_t too small for lapi::Counter");
static_assert(alignof(Counter) <= alignof(lapi_cntr_t), "lapi_cntr_t under-aligned for lapi::Counter");
static_assert(std::is_standard_layout_v<Counter>, "cntr overlay needs a standard-layout Counter");
static_assert(std::is_trivially_destructible_v<Counter>,
              "user storage is never destroyed: Counter must not need a destructor");

inline constexpr std::size_t kStampOffset = sizeof(lapi_cntr_t) - sizeof(std::uint64_t);
inline constexpr std::uint64_t kSetStamp = 0x544e43534950414cULL;  // "LAPISCNT"
static_assert(sizeof(Counter) <= kStampOffset, "the stamp must not overlap the Counter");

// Set with LAPI_Setcntr, or still all zero (a static or calloc'd counter).
inline bool counter_usable(const lapi_cntr_t* c) {
  std::uint64_t stamp;
  std::memcpy(&stamp, c->lapis_opaque + kStampOffset, sizeof stamp);
  if (stamp == kSetStamp) return true;
  for (unsigned char b : c->lapis_opaque) {
    if (b != 0) return false;
  }
  return true;
}

// The Counter living in `c` (c non-null).
inline Counter* counter_of(lapi_cntr_t* c) {
  return std::launder(reinterpret_cast<Counter*>(c));
}

inline Counter* counter_or_null(lapi_cntr_t* c) { return c ? counter_of(c) : nullptr; }

// (Re)creates the Counter in `c` with value v; wakes any waiter.
inline Counter* construct_counter(lapi_cntr_t* c, int v) {
  Counter* counter = ::new (static_cast<void*>(c)) Counter(v);
  counter->set(v);
  std::memcpy(c->lapis_opaque + kStampOffset, &kSetStamp, sizeof kSetStamp);
  return counter;
}

// Handle naming a counter whose address AT THE TARGET is `tgt_cntr`.
inline RemoteCounter remote_counter(const lapi_cntr_t* tgt_cntr) {
  return RemoteCounter{static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tgt_cntr))};
}

}  // namespace lapi::c_api
