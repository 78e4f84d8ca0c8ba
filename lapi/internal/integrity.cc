// Integrity building blocks (integrity.hpp): the fault injector, sealing
// and checking a frame's head.

#include "lapi/internal/integrity.hpp"

#include <cstring>

#include "lapi/internal/crc32c.hpp"

namespace lapi::internal {

bool FaultInjector::due(std::uint32_t path, std::uint16_t attempt) {
  if ((config_.paths & path) == 0 || (attempt != 0 && config_.every != 1)) return false;
  const auto index = static_cast<std::size_t>(__builtin_ctz(path));
  return ++seen_[index] % config_.every == 0;
}

void FaultInjector::flip(void* p, std::size_t len) {
  if (len == 0) return;
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  const std::uint64_t bit = rng_ % (std::uint64_t{len} * 8);
  static_cast<unsigned char*>(p)[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
}

std::uint32_t head_crc(const std::byte* frame, std::size_t sum_off, std::size_t uhdr_len) {
  constexpr std::size_t kCovered = offsetof(ChecksumWire, head_crc);
  const std::uint32_t crc = crc32c_extend(0, frame, sum_off + kCovered);
  return crc32c_extend(crc, frame + sum_off + sizeof(ChecksumWire), uhdr_len);
}

void seal_frame(std::byte* frame, std::size_t sum_off, std::size_t uhdr_len, ChecksumWire sum) {
  sum.head_crc = 0;
  std::memcpy(frame + sum_off, &sum, sizeof sum);
  sum.head_crc = head_crc(frame, sum_off, uhdr_len);
  std::memcpy(frame + sum_off, &sum, sizeof sum);
}

}  // namespace lapi::internal
