// Integrity building blocks (integrity.hpp): the replay ring, the fault
// injector, sealing and checking a frame's head.

#include "lapi/internal/integrity.hpp"

#include <cstring>

#include "lapi/internal/crc32c.hpp"

namespace lapi::internal {

std::byte* ReplayRing::reserve(std::size_t len) {
  if (bytes_.empty()) {
    bytes_.resize(kReplayBytes);
    entries_.resize(kReplayEntries);
  }
  // A frame never wraps: skip the ring's tail when it does not fit.
  const std::uint64_t at = write_at_ % kReplayBytes;
  if (at + len > kReplayBytes) write_at_ += kReplayBytes - at;
  return bytes_.data() + write_at_ % kReplayBytes;
}

void ReplayRing::commit(std::uint64_t seq, std::size_t len, std::size_t head_len, Kind kind) {
  entries_[seq % kReplayEntries] = Entry{seq, write_at_, static_cast<std::uint32_t>(len),
                                         static_cast<std::uint32_t>(head_len), kind};
  write_at_ += len;
  next_seq_ = seq + 1;
}

std::optional<ReplayRing::Frame> ReplayRing::find(std::uint64_t seq) {
  if (entries_.empty()) return std::nullopt;
  const Entry& e = entries_[seq % kReplayEntries];
  // Gone once a later frame has been written over its first byte.
  if (e.seq != seq || seq == 0 || write_at_ > e.at + kReplayBytes) return std::nullopt;
  return Frame{bytes_.data() + e.at % kReplayBytes, e.len, e.head_len, e.kind};
}

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
