#pragma once
// The rounds of barrier() and address_init() (sync.cc), all guarded by the
// engine's lock_: the calling thread starts a round, the UCX callbacks
// (on_barrier_locked, on_address_init_locked) count what arrives.
// Fence bookkeeping is per peer (peer.hpp).

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "handlers/handler.hpp"

namespace lapi::internal {

struct SyncState {
  // Barrier: dissemination, at most kMaxBarrierRounds rounds (2^32 tasks).
  // A peer can be at most one epoch ahead (it cannot finish an epoch we
  // have not joined), so arrivals are kept per epoch parity and consumed.
  static constexpr std::size_t kMaxBarrierRounds = 32;
  std::uint64_t barrier_epoch = 0;
  std::array<std::array<std::uint32_t, kMaxBarrierRounds>, 2> barrier_arrivals{};

  // address_init: every task's value, by round (epoch).
  struct AddrRound {
    std::vector<std::uint64_t> values;
    std::vector<bool> got;  // by task: its value is here
    std::uint32_t arrived = 0;
  };
  std::uint64_t addr_epoch = 0;
  std::map<std::uint64_t, AddrRound> addr_rounds;

  // Takes one arrival of barrier round `round` of `epoch`; false when none
  // came yet.
  bool take_barrier_arrival(std::uint64_t epoch, unsigned round) {
    auto& slot = barrier_arrivals[epoch & 1][round];
    if (slot == 0) return false;
    --slot;
    return true;
  }
  // Only our current address_init round or the next one can arrive (a peer
  // cannot finish a round we have not joined); anything else is junk.
  bool expects_addr_round(std::uint64_t epoch) const {
    return epoch == addr_epoch || epoch == addr_epoch + 1;
  }
  // Task `src`'s value for round `epoch` (of `ntasks` values).
  AddrRound& note_addr(std::uint64_t epoch, std::uint32_t ntasks, TaskId src,
                       std::uint64_t value) {
    auto& round = addr_rounds[epoch];
    round.values.resize(ntasks);
    round.got.resize(ntasks);
    round.values[src] = value;
    round.got[src] = true;
    return round;
  }
};

}  // namespace lapi::internal
