#pragma once
// Scratch blocks for staging. Blocks of kKeepMin bytes and more go back to
// a small per-thread cache when freed, rather than to malloc: glibc returns
// blocks that large to the kernel (munmap, or trimming the heap's top), so
// every large collective faulted its scratch back in page by page (a 1 MiB
// MPI_Reduce at 2 ranks spent 900 of its 1000 us in page faults).

#include <cstddef>

namespace mpi::scratch {

inline constexpr std::size_t kKeepMin = 64 * 1024;
// At least n bytes; null when nothrow and memory is exhausted, else throws
// std::bad_alloc.
char* take(std::size_t n, bool nothrow);
// Gives back a block from take() (null is ignored).
void give(char* block) noexcept;
// Blocks this thread keeps for reuse (tests).
std::size_t kept_blocks();

}  // namespace mpi::scratch

namespace mpi {

// Staging's deleter: the block goes back through give().
struct ScratchDelete {
  void operator()(char* block) const noexcept { scratch::give(block); }
};

}  // namespace mpi
