// The replay ring (replay_ring.hpp).

#include "lapi/internal/replay_ring.hpp"

#include <algorithm>

namespace lapi::internal {

void ReplayRing::allocate() {
  bytes_.resize(kReplayBytes);
  entries_.resize(kReplayEntries);
}

void ReplayRing::spill(const Entry& e) {
  const std::byte* from = bytes_.data() + e.at % kReplayBytes;
  spill_.emplace(e.seq, Spilled{std::vector<std::byte>(from, from + e.len), e.head_len, e.kind});
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

void ReplayRing::settled(std::uint64_t first, std::uint64_t count) {
  // The part still in the ring: a flag each.
  const std::uint64_t from = std::max(first, oldest_);
  const std::uint64_t to = std::min(first + count, next_seq_);
  for (std::uint64_t seq = from; seq < to; ++seq) entries_[seq % kReplayEntries].settled = true;
  if (spill_.empty() || first >= oldest_) return;
  for (std::uint64_t seq = first; seq < std::min(first + count, oldest_); ++seq) spill_.erase(seq);
}

bool ReplayRing::awaits(std::uint64_t seq) const {
  if (in_ring(seq)) return !entries_[seq % kReplayEntries].settled;
  return spill_.count(seq) != 0;
}

}  // namespace lapi::internal
