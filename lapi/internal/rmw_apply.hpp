#pragma once
// Rmw carried out by this task's CPU: on its own memory (UCX 1.13's self
// endpoint loses fetch-and-or results) and, with LAPIS_CHECKSUM=crc32c, for
// a checked request from a peer. CPU atomics are atomic with respect to the
// transport's own atomics on the same word (on these transports those are
// CPU atomics too).

#include <atomic>
#include <cstdint>
#include <cstring>

#include "lapi/context.hpp"

namespace lapi::internal {

template <typename T>
T apply_rmw(RmwOp op, T* target, T operand, T compare) {
  std::atomic_ref<T> ref(*target);
  switch (op) {
    case RmwOp::fetch_and_add: return ref.fetch_add(operand);
    case RmwOp::fetch_and_or: return ref.fetch_or(operand);
    case RmwOp::swap: return ref.exchange(operand);
    case RmwOp::compare_and_swap: {
      T expected = compare;
      ref.compare_exchange_strong(expected, operand);
      return expected;  // the old value either way
    }
  }
  return T{};
}

// Applies `op` to the `width`-byte (4 or 8) word at `addr`, an aligned
// address the caller checked; returns the old value in the low bytes.
inline std::uint64_t apply_rmw_at(RmwOp op, std::uint64_t addr, unsigned width,
                                  std::int64_t operand, std::int64_t compare) {
  std::uint64_t out = 0;
  if (width == 4) {
    const auto old = apply_rmw<std::int32_t>(op, reinterpret_cast<std::int32_t*>(addr),
                                             static_cast<std::int32_t>(operand),
                                             static_cast<std::int32_t>(compare));
    std::memcpy(&out, &old, 4);
  } else {
    const auto old = apply_rmw<std::int64_t>(op, reinterpret_cast<std::int64_t*>(addr), operand, compare);
    std::memcpy(&out, &old, 8);
  }
  return out;
}

}  // namespace lapi::internal
