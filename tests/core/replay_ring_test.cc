// The replay ring keeps every frame the target has not settled, whatever
// the origin sends after it: frames the ring overwrites move out first and
// are dropped once settled.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "lapi/internal/replay_ring.hpp"

using lapi::internal::kReplayBytes;
using lapi::internal::kReplayEntries;
using lapi::internal::ReplayRing;

namespace {

// Frame `seq`: `len` bytes of a pattern derived from seq.
std::uint64_t send_frame(ReplayRing& ring, std::size_t len) {
  const std::uint64_t seq = ring.next_seq();
  std::byte* at = ring.reserve(len);
  for (std::size_t i = 0; i < len; ++i) at[i] = static_cast<std::byte>(seq * 13 + i);
  ring.commit(seq, len, 0, ReplayRing::Kind::packed);
  return seq;
}

bool holds_frame(ReplayRing& ring, std::uint64_t seq, std::size_t len) {
  const auto f = ring.find(seq);
  if (!f || f->len != len) return false;
  for (std::size_t i = 0; i < len; ++i) {
    if (f->bytes[i] != static_cast<std::byte>(seq * 13 + i)) return false;
  }
  return true;
}

// Frames of kFrameLen bytes: how many fill the ring once.
constexpr std::size_t kFrameLen = 1000;
constexpr std::size_t kPerRing = kReplayBytes / kFrameLen;

// `rings` rings' worth of kFrameLen-byte frames, none settled; their sequences.
std::vector<std::uint64_t> fill_rings(ReplayRing& ring, std::size_t rings) {
  std::vector<std::uint64_t> seqs;
  for (std::size_t k = 0; k < rings * kPerRing; ++k) seqs.push_back(send_frame(ring, kFrameLen));
  return seqs;
}

}  // namespace

TEST_CASE("frames the target settled are overwritten; the others survive the wrap") {
  ReplayRing ring;
  constexpr std::size_t kLen = kFrameLen;
  constexpr std::size_t per_ring = kPerRing;
  const std::vector<std::uint64_t> seqs = fill_rings(ring, 3);
  // Nothing settled: every frame is still there, two rings' worth spilled.
  CHECK(ring.spilled() >= 2 * per_ring - 1);
  for (std::uint64_t seq : {seqs.front(), seqs[per_ring], seqs.back()}) {
    CHECK(holds_frame(ring, seq, kLen));
  }
  // Settled out of order: each frame on its own.
  ring.settled(seqs[1]);
  CHECK(ring.awaits(seqs[0]));
  CHECK_FALSE(ring.awaits(seqs[1]));
  CHECK_FALSE(ring.find(seqs[1]).has_value());
  ring.settled(seqs[0]);
  CHECK_FALSE(ring.awaits(seqs[0]));
  CHECK(holds_frame(ring, seqs[2], kLen));
  for (std::uint64_t seq : seqs) ring.settled(seq);
  CHECK(ring.spilled() == 0);
  CHECK_FALSE(ring.find(seqs.front()).has_value());  // gone: nobody will ask for it
  CHECK_FALSE(ring.find(seqs.back()).has_value());   // in the ring, but settled
  // Settled frames are overwritten without copies.
  for (std::size_t k = 0; k < 2 * per_ring; ++k) ring.settled(send_frame(ring, kLen));
  CHECK(ring.spilled() == 0);
}

TEST_CASE("more frames than entries: the oldest unsettled ones are spilled too") {
  ReplayRing ring;
  const std::uint64_t first = send_frame(ring, 16);
  for (std::size_t k = 0; k < kReplayEntries + 10; ++k) ring.settled(send_frame(ring, 16));
  CHECK(ring.spilled() == 1);
  CHECK(holds_frame(ring, first, 16));
  ring.settled(first);
  CHECK(ring.spilled() == 0);
  CHECK_FALSE(ring.find(first).has_value());
}

TEST_CASE("settling an unknown or repeated sequence changes nothing") {
  ReplayRing ring;
  const std::uint64_t a = send_frame(ring, 64);
  ring.settled(0);
  ring.settled(a + 100);
  CHECK(ring.awaits(a));
  CHECK(holds_frame(ring, a, 64));
  ring.settled(a);
  ring.settled(a);
  CHECK_FALSE(ring.awaits(a));
  CHECK_FALSE(ring.find(a + 100).has_value());
}

TEST_CASE("a run settles spilled and ring frames alike, and only its own") {
  ReplayRing ring;
  constexpr std::size_t kLen = kFrameLen;
  constexpr std::size_t per_ring = kPerRing;
  const std::vector<std::uint64_t> seqs = fill_rings(ring, 2);
  REQUIRE(ring.spilled() > 10);
  // Spilled frames 0..9, then a run across the ring's oldest frames.
  ring.settled(seqs[0], 10);
  const std::size_t spilled = ring.spilled();
  const std::size_t mid = seqs.size() - per_ring / 2;
  ring.settled(seqs[mid], 5);
  CHECK(ring.spilled() == spilled);
  for (std::size_t k = 0; k < seqs.size(); ++k) {
    const bool settled = k < 10 || (k >= mid && k < mid + 5);
    CHECK_MESSAGE(ring.awaits(seqs[k]) == !settled, "frame ", k);
  }
  CHECK(holds_frame(ring, seqs[10], kLen));
  CHECK(holds_frame(ring, seqs[mid + 5], kLen));
  // A run that straddles the spilled part and the ring settles both.
  const std::size_t spill_end = seqs.size() - per_ring;
  ring.settled(seqs[10], spill_end + 3 - 10);
  CHECK_FALSE(ring.awaits(seqs[spill_end - 1]));
  CHECK_FALSE(ring.awaits(seqs[spill_end + 2]));
  CHECK(ring.awaits(seqs[spill_end + 3]));
  // Runs past what was sent, or wrapping around the sequence space, change nothing else.
  ring.settled(seqs.back() + 1, 100);
  ring.settled(~std::uint64_t{0} - 2, 10);
  CHECK(ring.awaits(seqs.back()));
  CHECK(holds_frame(ring, seqs.back(), kLen));
}
