#pragma once
// The passive-target lock word (MPI_Win_lock): its bits and the rules an
// attempt follows. Pure, so tests/mpi/lock_word_test.cc checks the rules
// without ranks; mpi/internal/rma/window.cc runs them on the target's word
// with the core's Rmw.

#include <cstdint>

namespace mpi::rma {

// Each rank's lock word for passive-target epochs at it (MPI_Win_lock):
// the low 32 bits count shared holders and shared attempts in flight,
// kLockExclusive marks the exclusive holder, and kLockWriterWaiting says an
// exclusive request waits. A shared request that finds either bit steps
// back, so overlapping shared locks cannot starve an exclusive one (writer
// preference: 4 ranks looping on shared locks kept a writer 1-3 ms per lock
// without it, 0.3 us with it). An exclusive holder's unlock subtracts its
// bit only: a flag another writer raised meanwhile stays.
inline constexpr std::uint64_t kLockExclusive = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kLockWriterWaiting = std::uint64_t{1} << 61;

// A shared request that raised the count from `prev` holds the lock;
// otherwise it takes its increment back and tries again later.
constexpr bool shared_lock_taken(std::uint64_t prev) {
  return (prev & (kLockExclusive | kLockWriterWaiting)) == 0;
}

// An exclusive request swaps kLockExclusive for `expected` (0, or the
// waiting flag alone) and found `seen`. What it does next:
enum class ExclusiveStep {
  taken,      // seen == expected: it holds the lock
  swap_again, // nobody holds it (seen is 0 or the flag alone): swap from `seen` at once
  raise_flag, // held, and no writer waits yet: raise the flag, then back off
  back_off,   // held, the flag is up: back off, then swap from the flag alone
  defer,      // a new request finds another writer's flag alone: back off, then swap from 0
};
// `may_defer`: a new request (expected 0) that finds the flag alone leaves the
// lock to the writer that raised it, for as long as the caller allows. Else a
// writer at the lock's own rank, whose swaps cost no message, took the lock
// again at every unlock and starved a remote writer for ever (MPICH's
// linked_list_bench_lock_excl with LAPIS_CHECKSUM=crc32c, where an Rmw is a
// request the target serves).
constexpr ExclusiveStep exclusive_step(std::uint64_t expected, std::uint64_t seen,
                                       bool may_defer = false) {
  if (seen == expected) return ExclusiveStep::taken;
  if (may_defer && expected == 0 && seen == kLockWriterWaiting) return ExclusiveStep::defer;
  if (seen == 0 || seen == kLockWriterWaiting) return ExclusiveStep::swap_again;
  return (seen & kLockWriterWaiting) == 0 ? ExclusiveStep::raise_flag : ExclusiveStep::back_off;
}
}  // namespace mpi::rma
