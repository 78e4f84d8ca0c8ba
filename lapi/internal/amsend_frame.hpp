#pragma once
// Parsing and validating an incoming Amsend frame (Proto::amsend,
// Proto::amsend_packed and shared-memory ring frames), apart from the
// engine: a pure function of the bytes and the job's size. The target's
// path (am_recv.cc) calls it inline; the fuzzer (tests/fuzz) calls the same
// code with random bytes. What needs the engine's state (is the handler
// registered, is the counter) stays in am_recv.cc.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "lapi/internal/wire.hpp"

namespace lapi::internal {

// Why a frame was refused (none: accepted).
enum class FrameFault : std::uint8_t {
  none,
  truncated,        // shorter than AmsendWire
  malformed,        // sender out of range or unknown flags
  truncated_words,  // the flags announce a counter or cookie word that is missing
  packed_truncated, // packed: the user header runs past the frame
  split_descriptor, // split: the data is not one SplitWire (or comes by rendezvous)
  split_no_record,  // split: the descriptor names no origin record
};

// Filled by parse_amsend_frame. Only what a refusal may read is initialised
// here: the rest is written before parse_amsend_frame returns none, and
// zeroing the whole struct would cost every message a dozen stores.
struct AmsendFrame {
  AmsendWire wire;                   // flags without the packed user-header length
  std::uint64_t counter_handle = 0;  // kHasTargetCounter
  std::uint64_t cookie = 0;          // kHasCompletion (0 until parsed)
  std::size_t uhdr_offset;           // user header: bytes + uhdr_offset ...
  std::size_t uhdr_len;              // ... for uhdr_len bytes
  void* data;                        // eager data (null for split); rendezvous: UCX's descriptor
  std::size_t length = 0;            // data bytes that will land (a refusal reports a split's)
  std::size_t sum_offset = 0;        // kChecksummed: a ChecksumWire at bytes + sum_offset
  void* wire_data;                   // the data as carried (a split frame's descriptor), which
  std::size_t wire_length;           // ... the frame's checksum covers
  SplitWire split;                   // split.id != 0: the data stays at the origin
  bool striped;                      // ... until it comes over the links (set with split)
  bool staged;                       // ... until the origin copies it through staging
};

// `bytes`/`frame_len`: the UCX header (amsend) or the whole payload (packed,
// shared memory). `data`/`length`: UCX's data (amsend; ignored when packed).
// Fills `f` as far as it got; f.wire.src and f.cookie are what a refusal
// reports back.
inline FrameFault parse_amsend_frame(bool rndv, bool packed, const std::byte* bytes,
                                     std::size_t frame_len, void* data, std::size_t length,
                                     std::uint32_t ntasks, AmsendFrame& f) {
  AmsendWire& w = f.wire;
  if (frame_len < sizeof w) [[unlikely]] return FrameFault::truncated;
  std::memcpy(&w, bytes, sizeof w);
  std::size_t uhdr_len = 0;
  if (packed) {
    uhdr_len = w.flags >> kPackedUhdrShift;
    w.flags &= (1u << kPackedUhdrShift) - 1;
  }
  std::size_t off = sizeof w;
  if (w.src >= ntasks ||
      (w.flags & ~(kHasTargetCounter | kHasCompletion | kSplitData | kChecksummed | kStripedData |
                   kStagedData)) != 0 ||
      (w.flags & (kSplitData | kStripedData)) == kStripedData ||
      ((w.flags & kStagedData) != 0 &&
       (w.flags & (kSplitData | kStripedData)) != kSplitData))
      [[unlikely]] {
    return FrameFault::malformed;
  }
  if (w.flags & kHasTargetCounter) {
    if (frame_len < off + 8) [[unlikely]] return FrameFault::truncated_words;
    std::memcpy(&f.counter_handle, bytes + off, 8);
    off += 8;
  }
  if (w.flags & kHasCompletion) {
    if (frame_len < off + 8) [[unlikely]] return FrameFault::truncated_words;
    std::memcpy(&f.cookie, bytes + off, 8);
    off += 8;
  }
  if (w.flags & kChecksummed) [[unlikely]] {  // LAPIS_CHECKSUM: the engine checks it
    if (frame_len < off + sizeof(ChecksumWire)) return FrameFault::truncated_words;
    f.sum_offset = off;
    off += sizeof(ChecksumWire);
  }
  if (packed) {
    if (frame_len < off + uhdr_len) [[unlikely]] return FrameFault::packed_truncated;
    data = const_cast<std::byte*>(bytes) + off + uhdr_len;
    length = frame_len - off - uhdr_len;
  } else {
    uhdr_len = frame_len - off;  // the user header runs to the end of the UCX header
  }
  f.uhdr_offset = off;
  f.uhdr_len = uhdr_len;
  f.wire_data = data;
  f.wire_length = length;
  // Split copy: the data stays at the origin until the handler has named
  // its landing buffer; the handler sees its length but no bytes.
  if (w.flags & kSplitData) [[unlikely]] {
    if (rndv || length != sizeof f.split || data == nullptr) {
      f.length = length;
      return FrameFault::split_descriptor;
    }
    std::memcpy(&f.split, data, sizeof f.split);
    if (f.split.id == 0) return FrameFault::split_no_record;
    f.striped = (w.flags & kStripedData) != 0;
    f.staged = (w.flags & kStagedData) != 0;
    data = nullptr;
    length = f.split.len;
  } else {
    f.split.id = 0;
    f.striped = f.staged = false;
  }
  f.data = data;
  f.length = length;
  return FrameFault::none;
}

// The text a refusal carries back to the sender.
[[gnu::cold]] inline std::string describe(FrameFault fault, const AmsendFrame& f,
                                          std::size_t frame_len) {
  switch (fault) {
    case FrameFault::none: break;
    case FrameFault::truncated: return fmt::format("amsend header of {} bytes is truncated", frame_len);
    case FrameFault::malformed:
      return fmt::format("amsend header malformed (src {}, flags {:#x})", f.wire.src, f.wire.flags);
    case FrameFault::truncated_words: return "amsend header truncated";
    case FrameFault::packed_truncated: return "packed amsend truncated";
    case FrameFault::split_descriptor:
      return fmt::format("split amsend with {} descriptor bytes", f.length);
    case FrameFault::split_no_record: return "split amsend without a record";
  }
  return "amsend frame accepted";
}

// A shared-memory ring frame: `len` is the sender's claim, `room` the bytes
// readable from `frame` on. The ring belongs to `src`, so a frame claiming
// another sender, or running past its ring, is refused. `claimed` gets the
// sender the frame names (UINT32_MAX when too short to name one).
inline bool shm_frame_fits(std::uint32_t src, const std::byte* frame, std::size_t len,
                           std::size_t room, std::uint32_t& claimed) {
  claimed = UINT32_MAX;
  if (len >= sizeof claimed && room >= sizeof claimed) std::memcpy(&claimed, frame, sizeof claimed);
  return len <= room && claimed == src;
}

// Whether a ring frame (that fits) is a control message (kControlFrame,
// Context::Impl::send_control_near_locked) rather than an Amsend.
inline bool is_ring_control(const std::byte* frame, std::size_t len) {
  std::uint16_t flags = 0;
  if (len >= sizeof(AmsendWire)) std::memcpy(&flags, frame + offsetof(AmsendWire, flags), sizeof flags);
  return (flags & kControlFrame) != 0;
}

// The message a ring control frame of `len` bytes from `src` holds, if it
// is exactly one `Wire` of kind `kind`, sent by `src`.
template <typename Wire>
std::optional<Wire> ring_control(const std::byte* frame, std::size_t len, Proto kind,
                                 std::uint32_t src) {
  AmsendWire w;
  if (len != sizeof w + sizeof(Wire)) return std::nullopt;
  std::memcpy(&w, frame, sizeof w);
  if (w.flags != kControlFrame || w.handler != static_cast<std::uint16_t>(kind)) return std::nullopt;
  Wire m;
  std::memcpy(&m, frame + sizeof w, sizeof m);
  if (m.src != src) return std::nullopt;
  return m;
}

}  // namespace lapi::internal
