// The per-thread cache of large scratch blocks (scratch.hpp).
#include "mpi/internal/scratch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace mpi::scratch {
namespace {

// Each block starts with a header holding its capacity; the caller's bytes
// follow, 16-byte aligned as malloc's are.
struct alignas(16) Header {
  std::size_t capacity;
};

// A thread keeps at most kSlots blocks and kMaxKept bytes: the scratch of
// the few collectives that can be in progress at once on it. The largest
// fitting block is never more than what the thread's largest recent
// collective needed.
constexpr std::size_t kSlots = 4;
constexpr std::size_t kMaxKept = std::size_t{64} << 20;

class Cache {
 public:
  // At thread exit. A block given back later (a static object freed after
  // this thread's thread_locals, at program exit) is then simply freed.
  ~Cache() {
    for (std::size_t i = 0; i < used_; ++i) std::free(slot_[i]);
    used_ = 0;
    closed_ = true;
  }
  // The smallest kept block of at least n bytes, taken out of the cache.
  Header* take(std::size_t n) {
    std::size_t best = used_;
    for (std::size_t i = 0; i < used_; ++i) {
      if (slot_[i]->capacity >= n && (best == used_ || slot_[i]->capacity < slot_[best]->capacity)) best = i;
    }
    if (best == used_) return nullptr;
    Header* h = slot_[best];
    slot_[best] = slot_[--used_];
    kept_ -= h->capacity;
    return h;
  }
  // Keeps h when there is room (evicting a smaller block if need be);
  // false when the caller must free it.
  bool keep(Header* h) {
    if (closed_ || h->capacity > kMaxKept) return false;
    while (used_ > 0 && (used_ == kSlots || kept_ + h->capacity > kMaxKept)) {
      const auto smallest = std::min_element(slot_, slot_ + used_, [](Header* a, Header* b) {
        return a->capacity < b->capacity;
      });
      if ((*smallest)->capacity >= h->capacity) return false;
      kept_ -= (*smallest)->capacity;
      std::free(*smallest);
      *smallest = slot_[--used_];
    }
    slot_[used_++] = h;
    kept_ += h->capacity;
    return true;
  }
  std::size_t blocks() const { return used_; }

 private:
  Header* slot_[kSlots] = {};
  std::size_t used_ = 0;
  std::size_t kept_ = 0;
  bool closed_ = false;
};

thread_local Cache t_cache;

// Staging of this size and more (a large non-contiguous message) is written
// whole once it is taken: in 2 MiB pages its first touch faults 512 times
// less (a 2 GiB block took 8 s in 4 KiB pages on a virtual machine).
constexpr std::size_t kHugeMin = std::size_t{8} << 20;

void advise_huge_pages(void* block, std::size_t n) {
  const auto page = std::uintptr_t{4096};
  const auto begin = (reinterpret_cast<std::uintptr_t>(block) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(block) + n) & ~(page - 1);
  // Advice only: a kernel without transparent huge pages refuses it, harmlessly.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace

char* take(std::size_t n, bool nothrow) {
  Header* h = n >= kKeepMin ? t_cache.take(n) : nullptr;
  if (h == nullptr) {
    h = n <= SIZE_MAX - sizeof(Header) ? static_cast<Header*>(std::malloc(sizeof(Header) + n)) : nullptr;
    if (h == nullptr) {
      if (nothrow) return nullptr;
      throw std::bad_alloc();
    }
    h->capacity = n;
    if (n >= kHugeMin) advise_huge_pages(h + 1, n);
  }
  return reinterpret_cast<char*>(h + 1);
}

void give(char* block) noexcept {
  if (block == nullptr) return;
  Header* h = reinterpret_cast<Header*>(block) - 1;
  if (h->capacity < kKeepMin || !t_cache.keep(h)) std::free(h);
}

std::size_t kept_blocks() { return t_cache.blocks(); }

}  // namespace mpi::scratch
