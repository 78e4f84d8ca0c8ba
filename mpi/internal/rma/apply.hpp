#pragma once
// Running a window request on window memory. The target's request handler
// runs it on its own memory; an origin that maps the target's memory
// (lapi map_remote) runs it there itself. Both use this code.
//
// Atomicity. Accumulate-class accesses must be element-wise atomic with
// each other, and MPI_Fetch_and_op/MPI_Compare_and_swap may run as a CPU
// atomic on mapped memory or as the core's rmw, without the target's CPU.
// A window runs in one of two modes, agreed by all ranks at creation
// (Window::locked):
//  - locked: every rank maps every target's memory and accumulate word.
//    Every accumulate-class access, wherever it runs, holds the target's
//    accumulate lock (a spin lock in the word) and runs the plain,
//    vectorised kernels: 1 MiB of MPI_SUM is one pass over memory instead
//    of 262,144 atomic instructions.
//  - per element: some target is reached through the core's rmw (another
//    host, checksums on, memory UCX cannot map). That rmw cannot wait for a
//    lock, so requests whose op it could run (integer MPI_SUM, MPI_BOR,
//    MPI_REPLACE, MPI_NO_OP, compare-and-swap) change 4- and 8-byte elements
//    with atomics. Other ops run plain: under MPI's default accumulate_ops
//    (same_op_no_op) concurrent accumulates to one element use one op or
//    MPI_NO_OP, and the rmw path never runs those ops.

#include <cstdint>
#include <map>
#include <vector>

#include "mpi/internal/rma/protocol.hpp"

namespace mpi::rma {

// A window's lock words: the passive-target lock word at 0, the accumulate
// lock at kAccWordOffset (its own cache line), in one registered block.
inline constexpr std::size_t kAccWordOffset = 64;
inline constexpr std::size_t kLockWordsBytes = 128;

inline std::uint64_t* acc_word_of(std::uint64_t* lock_word) {
  return lock_word + kAccWordOffset / sizeof(std::uint64_t);
}

// Holds the accumulate lock at `word` for its lifetime. Critical sections
// are short and never wait for the network; a waiter yields after a few
// spins because ranks may outnumber cores (the holder may be descheduled).
class AccLock {
 public:
  explicit AccLock(std::uint64_t* word);
  ~AccLock() { __atomic_store_n(word_, 0, __ATOMIC_RELEASE); }
  AccLock(const AccLock&) = delete;
  AccLock& operator=(const AccLock&) = delete;

 private:
  std::uint64_t* word_;
};

// Where a request may land: a window part of `size` bytes, or for a
// dynamic window (attached != null) the attached regions (base -> bytes).
struct Bounds {
  std::int64_t size = 0;
  const std::map<std::uint64_t, std::uint64_t>* attached = nullptr;
};

// The byte ranges [offset, offset+len) a request touches, in typemap
// order, and their total; MPI_ERR_RMA_RANGE naming the first one outside.
int ranges_of(const Bounds& bounds, const RequestWire& r, const WireBlock* blocks,
              std::vector<WireBlock>& out, std::uint64_t& total);

// Runs `r` on memory at `base` (a dynamic window's offsets are addresses:
// base 0). payload: r.payload bytes (unread for MPI_NO_OP); fetched:
// `total` bytes for the fetching kinds, else null. per_element: the
// per-element mode above. Returns MPI_SUCCESS or an MPI class (op not
// defined on the type, a block that splits an element).
int apply(const RequestWire& r, const std::vector<WireBlock>& ranges, std::uint64_t total,
          std::uintptr_t base, const std::byte* payload, std::byte* fetched, bool per_element);

}  // namespace mpi::rma
