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

}  // namespace

TEST_CASE("frames the target settled are overwritten; the others survive the wrap") {
  ReplayRing ring;
  constexpr std::size_t kLen = 1000;
  const std::size_t per_ring = kReplayBytes / kLen;
  std::vector<std::uint64_t> seqs;
  for (std::size_t k = 0; k < 3 * per_ring; ++k) seqs.push_back(send_frame(ring, kLen));
  // Nothing settled: every frame is still there, two rings' worth spilled.
  CHECK(ring.spilled() >= 2 * per_ring - 1);
  for (std::uint64_t seq : {seqs.front(), seqs[per_ring], seqs.back()}) {
    CHECK(holds_frame(ring, seq, kLen));
  }
  // Settled out of order: first_unsettled moves only over a settled prefix.
  ring.settled(seqs[1]);
  CHECK(ring.first_unsettled() == seqs[0]);
  ring.settled(seqs[0]);
  CHECK(ring.first_unsettled() == seqs[2]);
  for (std::uint64_t seq : seqs) ring.settled(seq);
  CHECK(ring.spilled() == 0);
  CHECK(ring.first_unsettled() == ring.next_seq());
  CHECK_FALSE(ring.find(seqs.front()).has_value());  // gone: nobody will ask for it
  CHECK(holds_frame(ring, seqs.back(), kLen));        // still in the ring, harmless
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
  CHECK(ring.first_unsettled() == a);
  ring.settled(a);
  ring.settled(a);
  CHECK(ring.first_unsettled() == a + 1);
  CHECK_FALSE(ring.find(a + 100).has_value());
}
