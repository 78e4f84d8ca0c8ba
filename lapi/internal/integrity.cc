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

std::uint32_t head_crc(const std::byte* frame, std::size_t sum_off, std::size_t after) {
  constexpr std::size_t kCovered = offsetof(ChecksumWire, head_crc);
  return crc32c_extend2(0, frame, sum_off + kCovered, frame + sum_off + sizeof(ChecksumWire),
                        after);
}

void seal_frame(std::byte* frame, std::size_t sum_off, std::size_t after, ChecksumWire sum) {
  static_assert(offsetof(ChecksumWire, data_crc) == 8 && offsetof(ChecksumWire, attempt) == 16 &&
                offsetof(ChecksumWire, head_crc) == 20);
  // One store per word the CRC reads back at once: a load that spans
  // several narrower stores still in the store buffer cannot be forwarded
  // and waits for them (the 8 B Amsend's largest single stall, by perf).
  std::byte* at = frame + sum_off;
  const std::uint64_t crcs = sum.data_crc | std::uint64_t{sum.split_crc} << 32;
  const std::uint32_t tail = sum.attempt | std::uint32_t{sum.repair} << 16 |
                             std::uint32_t{sum.scope} << 24;
  std::memcpy(at, &sum.record, 8);
  std::memcpy(at + 8, &crcs, 8);
  std::memcpy(at + 16, &tail, 4);
  const std::uint32_t crc = head_crc(frame, sum_off, after);
  std::memcpy(at + offsetof(ChecksumWire, head_crc), &crc, 4);
}

}  // namespace lapi::internal
