#pragma once
// memcpy for a length known only at run time, inline from 4 to 16 bytes (two
// overlapping loads and stores): the call into libc's memcpy and its size
// dispatch cost more instructions than moving an 8-byte message. Every other
// length goes to memcpy.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lapi/line_copy.hpp"

namespace mpcpi::detail {

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (n >= 8 && n <= 16) {
    std::uint64_t head, tail;
    std::memcpy(&head, s, 8);
    std::memcpy(&tail, s + n - 8, 8);
    std::memcpy(d, &head, 8);
    std::memcpy(d + n - 8, &tail, 8);
  } else if (n >= 4 && n < 8) {
    std::uint32_t head, tail;
    std::memcpy(&head, s, 4);
    std::memcpy(&tail, s + n - 4, 4);
    std::memcpy(d, &head, 4);
    std::memcpy(d + n - 4, &tail, 4);
  } else {
    lapi::copy_out_of_shared(d, s, n);
  }
}

}  // namespace mpcpi::detail
