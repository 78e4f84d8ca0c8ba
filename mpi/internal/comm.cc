#include "mpi/internal/comm.hpp"

namespace mpi {

ContextSlots::ContextSlots() {
  free_.set();
  free_.reset(kWorldSlot);
  free_.reset(kSelfSlot);
}

void ContextSlots::to_words(std::uint64_t (&words)[kWords]) const {
  for (int w = 0; w < kWords; ++w) {
    std::uint64_t v = 0;
    for (int b = 0; b < 64; ++b) {
      if (free_.test(w * 64 + b)) v |= std::uint64_t{1} << b;
    }
    words[w] = v;
  }
}

bool ContextSlots::offer(int parent_slot, std::uint64_t (&words)[kWords]) {
  for (int w = 0; w < kWords; ++w) words[w] = 0;
  if (running_.empty() || *running_.begin() != parent_slot) return false;
  // Reserved slots are free slots another agreement still holds: an offer
  // without them is partial, and an empty result then means "again".
  const bool complete = reserved_.none();
  for (int i = 0; i < kContextSlots; ++i) {
    if (free_.test(i) && !reserved_.test(i)) {
      words[i / 64] |= std::uint64_t{1} << (i % 64);
      reserved_.set(i);
    }
  }
  return complete;
}

void ContextSlots::withdraw(const std::uint64_t (&words)[kWords]) {
  for (int i = 0; i < kContextSlots; ++i) {
    if ((words[i / 64] >> (i % 64)) & 1) reserved_.reset(i);
  }
}

int ContextSlots::free_for_one() const {
  int reserved = -1;
  for (int i = 0; i < kContextSlots; ++i) {
    if (!free_.test(i)) continue;
    if (!reserved_.test(i)) return i;
    if (reserved < 0) reserved = i;
  }
  return reserved;
}

int ContextSlots::lowest(const std::uint64_t (&words)[kWords]) {
  for (int w = 0; w < kWords; ++w) {
    if (words[w] != 0) return w * 64 + __builtin_ctzll(words[w]);
  }
  return -1;
}

}  // namespace mpi
