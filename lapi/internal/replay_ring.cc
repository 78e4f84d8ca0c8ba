// The replay ring (replay_ring.hpp).

#include "lapi/internal/replay_ring.hpp"

namespace lapi::internal {

std::byte* ReplayRing::reserve(std::size_t len) {
  if (bytes_.empty()) {
    bytes_.resize(kReplayBytes);
    entries_.resize(kReplayEntries);
  }
  // A frame never wraps: skip the ring's tail when it does not fit.
  const std::uint64_t at = write_at_ % kReplayBytes;
  if (at + len > kReplayBytes) write_at_ += kReplayBytes - at;
  // Retire the oldest frames while the new one would write over their bytes
  // or take their entry; the target may still ask for the unsettled ones.
  const std::uint64_t end = write_at_ + len;
  while (oldest_ < next_seq_) {
    const Entry& e = entries_[oldest_ % kReplayEntries];
    const bool bytes_taken = e.at + kReplayBytes < end;
    const bool entry_taken = oldest_ + kReplayEntries <= next_seq_;
    if (!bytes_taken && !entry_taken) break;
    if (!e.settled) {
      const std::byte* from = bytes_.data() + e.at % kReplayBytes;
      spill_.emplace(oldest_, Spilled{std::vector<std::byte>(from, from + e.len), e.head_len, e.kind});
    }
    ++oldest_;
  }
  return bytes_.data() + write_at_ % kReplayBytes;
}

void ReplayRing::commit(std::uint64_t seq, std::size_t len, std::size_t head_len, Kind kind) {
  entries_[seq % kReplayEntries] = Entry{seq, write_at_, static_cast<std::uint32_t>(len),
                                         static_cast<std::uint32_t>(head_len), kind, false};
  write_at_ += len;
  next_seq_ = seq + 1;
}

std::optional<ReplayRing::Frame> ReplayRing::find(std::uint64_t seq) {
  if (in_ring(seq)) {
    const Entry& e = entries_[seq % kReplayEntries];
    if (e.settled) return std::nullopt;
    return Frame{bytes_.data() + e.at % kReplayBytes, e.len, e.head_len, e.kind};
  }
  auto it = spill_.find(seq);
  if (it == spill_.end()) return std::nullopt;
  Spilled& f = it->second;
  return Frame{f.bytes.data(), static_cast<std::uint32_t>(f.bytes.size()), f.head_len, f.kind};
}

void ReplayRing::settled(std::uint64_t seq) {
  if (in_ring(seq)) {
    entries_[seq % kReplayEntries].settled = true;
  } else if (!spill_.empty()) {
    spill_.erase(seq);
  }
}

bool ReplayRing::awaits(std::uint64_t seq) const {
  if (in_ring(seq)) return !entries_[seq % kReplayEntries].settled;
  return spill_.count(seq) != 0;
}

}  // namespace lapi::internal
