// copy_bytes: the same bytes as memcpy at every length around its inline
// cases (4..16) and at unaligned offsets, and nothing outside the range.

#include "mpcpi/internal/copy_bytes.hpp"

#include <array>
#include <cstddef>
#include <cstring>

#include "doctest/doctest.h"

TEST_CASE("copy_bytes copies exactly n bytes at any length and alignment") {
  std::array<unsigned char, 64> src{};
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t off = 0; off < 8; ++off) {
      std::array<unsigned char, 64> got{}, want{};
      got.fill(0xee);
      want.fill(0xee);
      mpcpi::detail::copy_bytes(got.data() + off, src.data() + 3, n);
      std::memcpy(want.data() + off, src.data() + 3, n);
      CAPTURE(n);
      CAPTURE(off);
      CHECK(got == want);
    }
  }
}
