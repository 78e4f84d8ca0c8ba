#pragma once
// What every harness reads its input with: the bytes as a stream of
// little-endian fields, zeros once they run out (so any input is a whole
// program of operations), and require() for a broken promise (abort: the
// fuzzer keeps the input).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace lapis::fuzz {

inline void require(bool ok) {
  if (!ok) std::abort();
}

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ == end_; }
  std::uint8_t byte() { return p_ == end_ ? 0 : *p_++; }
  // The next `bytes` bytes (at most 8), low byte first.
  std::uint64_t u64(int bytes = 8) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= std::uint64_t{byte()} << (8 * i);
    return v;
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u64(4)); }
  // Up to `n` bytes of the input, as a message body.
  std::vector<std::uint8_t> bytes(std::size_t n) {
    n = std::min<std::size_t>(n, static_cast<std::size_t>(end_ - p_));
    std::vector<std::uint8_t> out(p_, p_ + n);
    p_ += n;
    return out;
  }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

}  // namespace lapis::fuzz
