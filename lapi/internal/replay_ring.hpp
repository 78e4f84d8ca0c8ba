#pragma once
// The origin's copies of the checksummed Amsend frames it sent to one
// target (LAPIS_CHECKSUM=crc32c, integrity.hpp): a byte ring written in
// order, from which a NACKed frame is sent again. A frame leaves the
// ring's care when the target reports it intact (settled); one the ring
// must overwrite before that is moved out first (spilled).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace lapi::internal {

// Amsend frames of at most this many bytes are kept for replay; with
// checksums on, larger Amsend data goes by rendezvous (held buffer).
inline constexpr std::size_t kReplayFrameLimit = 16384;
inline constexpr std::size_t kReplayBytes = std::size_t{1} << 20;  // per target
inline constexpr std::size_t kReplayEntries = 8192;                // per target

class ReplayRing {
 public:
  enum class Kind : std::uint8_t { packed, unpacked };
  struct Frame {
    std::byte* bytes;
    std::uint32_t len;
    std::uint32_t head_len;  // unpacked: the UCX header's part of `bytes`
    Kind kind;
  };
  // Reserves room for a frame of `len` (<= kReplayFrameLimit) bytes and
  // returns where to write it; commit() then records it under next_seq().
  // Frames the new one overwrites that the target has not reported intact
  // move out of the ring first (spilled), so find() still has them.
  // Inline: every checksummed small Amsend passes here.
  [[gnu::always_inline]] std::byte* reserve(std::size_t len) {
    if (bytes_.empty()) [[unlikely]] allocate();
    // A frame never wraps: skip the ring's tail when it does not fit.
    if (const std::uint64_t at = write_at_ % kReplayBytes; at + len > kReplayBytes) [[unlikely]] {
      write_at_ += kReplayBytes - at;
    }
    // Retire the oldest frames while the new one would write over their
    // bytes or take their entry; the target may still ask for the
    // unsettled ones. (Usually one settled frame, or none.)
    const std::uint64_t end = write_at_ + len;
    while (oldest_ < next_seq_) {
      const Entry& e = entries_[oldest_ % kReplayEntries];
      if (e.at + kReplayBytes >= end && oldest_ + kReplayEntries > next_seq_) break;
      if (!e.settled) [[unlikely]] spill(e);
      ++oldest_;
    }
    return bytes_.data() + write_at_ % kReplayBytes;
  }
  void commit(std::uint64_t seq, std::size_t len, std::size_t head_len, Kind kind) {
    entries_[seq % kReplayEntries] = Entry{seq, write_at_, static_cast<std::uint32_t>(len),
                                           static_cast<std::uint32_t>(head_len), kind, false};
    write_at_ += len;
    next_seq_ = seq + 1;
  }
  std::uint64_t next_seq() const { return next_seq_; }
  // The frame sent under `seq`, while the target may still ask for it.
  std::optional<Frame> find(std::uint64_t seq);
  // The target found frame `seq` intact (or gave up on it): it will not be
  // asked for again.
  void settled(std::uint64_t seq) { settled(seq, 1); }
  // settled() for frames first .. first + count - 1.
  void settled(std::uint64_t first, std::uint64_t count);
  // Whether the target may still ask for frame `seq`.
  bool awaits(std::uint64_t seq) const;
  // Frames kept outside the ring.
  std::size_t spilled() const { return spill_.size(); }

 private:
  struct Entry {
    std::uint64_t seq = 0;
    std::uint64_t at = 0;  // absolute byte position
    std::uint32_t len = 0;
    std::uint32_t head_len = 0;
    Kind kind = Kind::packed;
    bool settled = false;
  };
  struct Spilled {
    std::vector<std::byte> bytes;
    std::uint32_t head_len;
    Kind kind;
  };
  bool in_ring(std::uint64_t seq) const { return seq >= oldest_ && seq < next_seq_; }
  void allocate();
  // Moves the unsettled frame `e` (the oldest) out of the ring.
  void spill(const Entry& e);
  std::vector<std::byte> bytes_;
  std::vector<Entry> entries_;
  std::uint64_t write_at_ = 0;  // absolute position of the next frame
  std::uint64_t next_seq_ = 1;
  std::uint64_t oldest_ = 1;  // oldest frame still in the ring
  // Unsettled frames moved out of the ring (settled ones are simply
  // overwritten: a flag in their entry, so that settling costs no lookup).
  std::map<std::uint64_t, Spilled> spill_;
};

}  // namespace lapi::internal
