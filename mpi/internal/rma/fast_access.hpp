#pragma once
// The common case of MPI_Put and MPI_Get, checked inline: a live window
// whose target memory is mapped here (MPI_Win_allocate on the same host),
// an open access epoch to that target, the same committed contiguous
// datatype and count on both sides, and a range inside the target's
// window. Then the access is a memcpy, as rma::issue would make it, without
// building its arguments: 8 B MPI_Put ran about 530 instructions on the
// general path and 20 ns a call in a window of 64 (Open MPI: 14 ns).
// Anything else — MPI_PROC_NULL, derived or differing types, dynamic
// windows, memory reached through the core, every error — returns false and
// takes the general path, which checks again and names what is wrong.
// The displacement scaling, the bounds and the copy are the general path's
// own (defined here, used by api/rma.cc and rma/ops.cc).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "lapi/line_copy.hpp"
#include "mpi.h"
#include "mpi/internal/rma/window.hpp"
#include "mpi/internal/state.hpp"

namespace mpi::rma {

// target_disp * disp_unit in bytes, refused (false) when it overflows or
// leaves no room for the access's own span.
[[gnu::always_inline]] inline bool scaled_disp(MPI_Aint disp, std::int64_t disp_unit,
                                              std::int64_t& off) {
  return !__builtin_mul_overflow(static_cast<std::int64_t>(disp), disp_unit, &off) &&
         off <= std::numeric_limits<std::int64_t>::max() / 4;
}

// The bytes [lo, hi) that `count` instances of `type` from byte `off` of a
// window touch (count >= 1).
struct Span {
  std::int64_t lo, hi;
};
[[gnu::always_inline]] inline Span access_span(const Datatype& type, std::int64_t count,
                                              std::int64_t off) {
  const std::int64_t span = (count - 1) * type.extent();
  return {off + type.true_lb() + std::min<std::int64_t>(0, span),
          off + type.true_ub() + std::max<std::int64_t>(0, span)};
}

// A contiguous Put (`put`) or Get of `len` bytes between `local` and
// target rank `r`'s window memory mapped here at `at`: a copy, complete
// (visible to the target) once it retires, so flush and unlock have
// nothing to wait for but the mark it leaves.
[[gnu::always_inline]] inline void copy_mapped(Window& w, std::size_t r, bool put, std::byte* at,
                                              void* local, std::size_t len) {
  if (put) {
    lapi::copy_bulk(at, local, len);
  } else {
    lapi::copy_bulk(local, at, len);
  }
  // Before whatever synchronisation call follows (its own atomics order
  // the stores for the other CPUs; this keeps the compiler from sinking them).
  std::atomic_thread_fence(std::memory_order_release);
  w.ops_since_fence = true;
  w.mapped_out[r] = 1;
}


// Put (`put`: origin -> target) or Get; true when done here. Inlined into
// each caller, `put` a constant there.
[[gnu::always_inline]] inline bool access_mapped_fast(bool put, void* origin, int origin_count,
                                                     MPI_Datatype origin_type, int target_rank,
                                                     MPI_Aint target_disp, int target_count,
                                                     MPI_Datatype target_type, MPI_Win handle) {
  State& s = state();
  if (s.phase != Phase::running) return false;
  if (origin_type != target_type || origin_count != target_count || origin_count <= 0 ||
      origin == nullptr || target_disp < 0) {
    return false;
  }
  Window* w = find_window(handle);
  TypePtr* t = s.types.find(origin_type);
  if (w == nullptr || t == nullptr) return false;
  const Datatype& type = **t;
  if (!type.committed() || !type.contiguous_for(origin_count) || type.size() == 0) return false;
  if (target_rank < 0 || target_rank >= w->size_of_group() || !w->in_epoch_with(target_rank) ||
      w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    return false;
  }
  const auto r = static_cast<std::size_t>(target_rank);
  std::byte* mapped = w->mapped[r];
  const TargetInfo& ti = w->targets[r];
  if (mapped == nullptr || !ti.registered) return false;
  std::int64_t off = 0;
  if (!scaled_disp(target_disp, ti.disp_unit, off)) return false;
  // The general path's bounds (target() in api/rma.cc).
  const Span span = access_span(type, origin_count, off);
  if (span.lo < 0 || span.hi > static_cast<std::int64_t>(ti.size)) return false;
  copy_mapped(*w, r, put, mapped + off + type.data_offset(),
              static_cast<char*>(origin) + type.data_offset(),
              static_cast<std::size_t>(std::int64_t{origin_count} * type.size()));
  return true;
}

}  // namespace mpi::rma
