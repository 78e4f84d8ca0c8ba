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

int ContextSlots::lowest(const std::uint64_t (&words)[kWords]) {
  for (int w = 0; w < kWords; ++w) {
    if (words[w] != 0) return w * 64 + __builtin_ctzll(words[w]);
  }
  return -1;
}

}  // namespace mpi
