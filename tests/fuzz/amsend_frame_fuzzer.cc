// Fuzzes the core's parser and validator of incoming Amsend frames
// (lapi/internal/amsend_frame.hpp), the code the target runs on every UCX
// Amsend (packed or not, eager or rendezvous) and every shared-memory ring
// frame.
//
// Input: one control byte (bit 0 packed, bit 1 rendezvous, bit 2 shared
// memory, bits 3-7 the job size minus one), one byte splitting the rest into
// frame and UCX data (unpacked frames), then the bytes.
//
// A ring frame flagged as a control message, which the Amsend parser
// refuses as malformed, goes to its own parser (split_done, split_go), as
// on the target.
//
// Checks, besides the sanitizers: an accepted frame's user header and
// (eager) data lie inside the bytes received, a split frame carries no data
// pointer and the descriptor's length, any other is neither staged nor
// striped, and every refusal has a message.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "lapi/internal/amsend_frame.hpp"

namespace {

using lapi::internal::AmsendFrame;
using lapi::internal::FrameFault;

void require(bool ok) {
  if (!ok) std::abort();
}

// Reads every byte of [p, p + n) so that AddressSanitizer sees any byte
// outside the input.
unsigned touch(const void* p, std::size_t n) {
  unsigned sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<const unsigned char*>(p)[i];
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* in, std::size_t size) {
  if (size < 2) return 0;
  const bool packed = (in[0] & 1) != 0;
  const bool rndv = (in[0] & 2) != 0;
  const bool shm = (in[0] & 4) != 0;
  const std::uint32_t ntasks = (in[0] >> 3) + 1u;
  const std::size_t rest = size - 2;
  const std::size_t split_at = packed || shm ? rest : std::min<std::size_t>(in[1], rest);
  // Copies of exactly the frame's and the data's size, so that a read past
  // either end is reported.
  std::vector<std::byte> frame(reinterpret_cast<const std::byte*>(in + 2),
                               reinterpret_cast<const std::byte*>(in + 2 + split_at));
  std::vector<std::byte> data(reinterpret_cast<const std::byte*>(in + 2 + split_at),
                              reinterpret_cast<const std::byte*>(in + size));
  frame.shrink_to_fit();
  data.shrink_to_fit();

  std::size_t frame_len = frame.size();
  if (shm) {
    // A ring frame: the sender claims a length (the second byte, scaled);
    // `room` is what the ring holds from the frame on.
    const std::size_t claimed_len = std::size_t{in[1]} * 7;
    std::uint32_t claimed_src = 0;
    const std::uint32_t src = in[0] % ntasks;
    if (!lapi::internal::shm_frame_fits(src, frame.data(), claimed_len, frame.size(), claimed_src)) {
      return 0;
    }
    require(claimed_len <= frame.size() && claimed_src == src);
    frame_len = claimed_len;
  }

  // Over poisoned bytes, as the target's stack may hold: a field the parser
  // leaves unset reads as garbage (and UBSan flags a garbage bool).
  alignas(AmsendFrame) unsigned char storage[sizeof(AmsendFrame)];
  std::memset(storage, 0xa5, sizeof storage);
  AmsendFrame& f = *new (storage) AmsendFrame;
  const bool packed_layout = packed || shm;  // ring frames have the packed layout
  void* ucx_data = packed_layout ? nullptr : data.data();
  const std::size_t ucx_len = packed_layout ? 0 : data.size();
  const FrameFault fault = lapi::internal::parse_amsend_frame(rndv && !shm, packed_layout, frame.data(),
                                                              frame_len, ucx_data, ucx_len, ntasks, f);
  if (fault != FrameFault::none) {
    if (shm && fault == FrameFault::malformed && lapi::internal::is_ring_control(frame.data(), frame_len)) {
      // A control message (split_done, split_go), or refused.
      using lapi::internal::Proto;
      const auto done = lapi::internal::ring_control<lapi::internal::SplitDoneWire>(
          frame.data(), frame_len, Proto::split_done, f.wire.src);
      const auto go = lapi::internal::ring_control<lapi::internal::SplitGoWire>(
          frame.data(), frame_len, Proto::split_go, f.wire.src);
      require(!(done && go));
      require((!done || done->src == f.wire.src) && (!go || go->src == f.wire.src));
      return 0;
    }
    require(!lapi::internal::describe(fault, f, frame_len).empty());
    if (fault != FrameFault::truncated) require(f.wire.src < ntasks || fault == FrameFault::malformed);
    return 0;
  }
  require(f.wire.src < ntasks);
  require(f.uhdr_offset + f.uhdr_len <= frame_len);
  volatile unsigned sink = touch(frame.data() + f.uhdr_offset, f.uhdr_len);
  if (f.split.id != 0) {
    require(f.data == nullptr && f.length == f.split.len);
    require((f.wire.flags & lapi::internal::kSplitData) != 0);
    return 0;
  }
  require(!f.staged && !f.striped);  // the engine reads both of every frame
  if (packed_layout) {
    const auto* begin = frame.data();
    const auto* p = static_cast<const std::byte*>(f.data);
    require(p >= begin + f.uhdr_offset + f.uhdr_len && p + f.length == begin + frame_len);
    sink = sink + touch(p, f.length);
  } else {
    require(f.data == data.data() && f.length == data.size());
    if (!rndv) sink = sink + touch(f.data, f.length);  // eager: the bytes are here
  }
  (void)sink;
  return 0;
}
