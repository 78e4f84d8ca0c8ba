#pragma once
// The node segment's layout and the steps every node collective is made
// of (publish, wait, check, finish), shared by node.cc and
// node_alltoall.cc. The scheme is in node.hpp.

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lapi/line_copy.hpp"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi {

// Data up to this size travels in its slot's flag line, after the flag and
// the data's size: one cache line moves per reader.
inline constexpr std::size_t kInlineBytes = 48;

// A large collective writes a flag line too: its depth must cover both.
static_assert(kNodeFlags >= kNodeSlots && kNodeFlags % kNodeSlots == 0);

struct alignas(64) SlotHead {
  std::atomic<std::uint64_t> gen{0};  // the collective whose data the slot holds
  // How many bytes it published (a Bcast chunk: from its start to the
  // message's end): a reader whose count differs (ranks passed different
  // counts or types, an erroneous program) finds the data where it is and
  // reports the mismatch instead of reading past it.
  std::uint64_t bytes = 0;
  std::byte data[kInlineBytes];  // the data, when it fits
};
static_assert(sizeof(SlotHead) == 64);

// One rank's part, mapped by every rank of the communicator.
struct NodeRegion {
  alignas(64) std::atomic<std::uint64_t> done{0};  // last collective whose reads it finished
  SlotHead head[kNodeFlags];
  alignas(64) std::byte slot[kNodeSlots][kNodeSlotBytes];  // data beyond kInlineBytes
};

struct NodeSegment {
  std::uint64_t gen = 0;       // collectives run on the segment so far
  std::uint64_t all_done = 0;  // every rank's done was at least this, last we looked
  int rank = 0;
  NodeRegion* mine = nullptr;       // alloc_registered
  std::vector<NodeRegion*> at;      // by communicator rank, mapped here
  bool oversubscribed = false;      // more ranks on the node than cores
  bool writes_near_all = false;     // every rank writes into every other's memory (node_alltoallv)
  std::vector<lapi::TaskId> tasks;  // by communicator rank
  // The communicator's collective context (to see it revoked).
  std::uint32_t context = 0;
  // A member failed (lapirun --continue-on-failure): its flags will never
  // move again, so every collective on the segment fails from then on
  // (MPIX_ERR_PROC_FAILED); the same once the communicator is revoked
  // (MPIX_ERR_REVOKED: members may have left the collective).
  bool broken = false;
  int broken_class = MPI_SUCCESS;
};

namespace node_segment {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// True once a member failed or the communicator was revoked (then the
// segment is broken for good).
inline bool member_failed(NodeSegment& s) {
  if (s.broken) return true;
  lapi::Context& ctx = lapi_context();
  if (ctx.any_peer_failed()) {
    for (lapi::TaskId t : s.tasks) s.broken = s.broken || ctx.peer_failed(t);
    if (s.broken) s.broken_class = MPIX_ERR_PROC_FAILED;
  }
  if (!s.broken) {
    const mpcpi::Errc e = engine().context_error(s.context);
    s.broken = e != mpcpi::Errc::success;
    if (s.broken) s.broken_class = e == mpcpi::Errc::revoked ? MPIX_ERR_REVOKED : MPIX_ERR_PROC_FAILED;
  }
  return s.broken;
}

inline int broken_error(const NodeSegment& s) {
  return s.broken_class == MPIX_ERR_REVOKED
             ? fail(MPIX_ERR_REVOKED, "the communicator was revoked (its node collectives cannot complete)")
             : fail(MPIX_ERR_PROC_FAILED, "a member of the communicator failed (its node collectives cannot complete)");
}

// Spins until ready(); drives progress every 64 polls while it spins and
// at every poll once it yields or sleeps (this rank's nonblocking
// collectives, point-to-point and the one-sided accesses that UCX serves
// in software at this target keep moving, and under MPI_THREAD_MULTIPLE
// other threads get the MPI lock); yields at once on an oversubscribed
// node, after about 4096 polls otherwise; after 4000 more it sleeps 20 us
// between polls (a rank that computes for long does not have its peers
// burn the cores it needs), as mpcpi's waits do. Progress every 64th nap
// came every 3-5 ms: a passive-target MPI_Win_unlock on an MPI_Win_create
// window whose target waited in MPI_Barrier took 5 ms (OSU osu_put_latency
// -w create -s lock).
// False when a member failed meanwhile (ready() may then never hold).
template <typename Ready>
[[nodiscard]] bool wait_until(NodeSegment& s, Ready ready) {
  const unsigned spin_limit = s.oversubscribed ? 16 : 4096;
  const unsigned yield_limit = spin_limit + 4000;
  for (unsigned polls = 0; !ready(); ++polls) {
    if ((polls & 63) == 63 || polls >= spin_limit) {
      (void)engine().progress();
      ApiCall::release_for_idle();
      if (member_failed(s)) return false;
    }
    if (polls < spin_limit) {
      cpu_relax();
    } else if (polls < yield_limit) {
      sched_yield();
    } else {
      const timespec nap{0, 20000};
      nanosleep(&nap, nullptr);
    }
  }
  return true;
}

inline SlotHead& head_of(NodeRegion& r, std::uint64_t g) { return r.head[g % kNodeFlags]; }

inline std::byte* data_of(NodeRegion& r, std::uint64_t g, std::size_t bytes) {
  return bytes <= kInlineBytes ? head_of(r, g).data : r.slot[g % kNodeSlots];
}

inline bool published(NodeRegion& r, std::uint64_t g) {
  return head_of(r, g).gen.load(std::memory_order_acquire) >= g;
}

[[nodiscard]] inline bool wait_all_published(NodeSegment& s, std::uint64_t g) {
  return wait_until(s, [&] {
    for (NodeRegion* r : s.at) {
      if (!published(*r, g)) return false;
    }
    return true;
  });
}

// Publishes this rank's `bytes` of collective g, once every rank finished
// reading what its flag line and data slot held before (collective g -
// kNodeFlags, g - kNodeSlots). The others' done words are read only when
// the last look does not tell.
// `announced`: the size readers find in the flag line (SIZE_MAX: `bytes`).
template <typename Fill>
[[nodiscard]] bool publish_with(NodeSegment& s, std::size_t bytes, std::uint64_t g, Fill fill,
                                std::size_t announced = SIZE_MAX) {
  const std::uint64_t depth = bytes <= kInlineBytes ? kNodeFlags : kNodeSlots;
  if (g > depth && s.all_done < g - depth) {
    const std::uint64_t need = g - depth;
    const bool free = wait_until(s, [&] {
      std::uint64_t low = UINT64_MAX;
      for (const NodeRegion* r : s.at) low = std::min(low, r->done.load(std::memory_order_acquire));
      s.all_done = low;
      return low >= need;
    });
    if (!free) return false;
  }
  if (bytes > 0) fill(data_of(*s.mine, g, bytes));
  SlotHead& head = head_of(*s.mine, g);
  head.bytes = announced == SIZE_MAX ? bytes : announced;
  head.gen.store(g, std::memory_order_release);
  return true;
}

[[nodiscard]] inline bool publish(NodeSegment& s, const void* in, std::size_t bytes, std::uint64_t g,
                           std::size_t announced = SIZE_MAX) {
  return publish_with(
      s, bytes, g, [&](std::byte* slot) { lapi::copy_bulk(slot, in, bytes); }, announced);
}

// Bytes rank r published in collective g (after published(r, g)).
inline std::size_t published_bytes(NodeRegion& r, std::uint64_t g) { return head_of(r, g).bytes; }

// MPI_SUCCESS when rank `r` published `expected` bytes in collective g,
// else collective_size_mismatch's error (the reader then leaves that
// rank's data alone).
inline int check_published(const NodeSegment& s, std::size_t r, std::uint64_t g, std::size_t expected) {
  const std::size_t got = published_bytes(*s.at[r], g);
  if (got == expected) return MPI_SUCCESS;
  return collective_size_mismatch(static_cast<int>(r), got, expected);
}

// check_published for every rank but `skip` (SIZE_MAX: none). When sizes
// differ, every rank that reads all slots sees a mismatch, so they all
// stop at the same collective.
inline int check_all_published(const NodeSegment& s, std::uint64_t g, std::size_t expected,
                        std::size_t skip = SIZE_MAX) {
  for (std::size_t r = 0; r < s.at.size(); ++r) {
    if (r == skip) continue;
    if (int rc = check_published(s, r, g, expected)) return rc;
  }
  return MPI_SUCCESS;
}

// The first error of several steps (each returns MPI_SUCCESS or a class).
struct FirstError {
  int rc = MPI_SUCCESS;
  void note(int code) { rc = rc == MPI_SUCCESS ? code : rc; }
};

inline void finish(NodeSegment& s, std::uint64_t g) {
  s.mine->done.store(g, std::memory_order_release);
  observe_handler_writes();  // see runtime.hpp
}

}  // namespace node_segment
}  // namespace mpi
