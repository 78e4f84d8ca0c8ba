// lapi/line_copy.hpp: every length and both alignments on either side give
// exactly memcpy's result, and nothing outside the destination is touched.

#include "lapi/line_copy.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace {

constexpr std::size_t kGuard = 64;

// Copies `n` bytes from offset `s_off` of a patterned source to offset
// `d_off` of a guarded destination with `copy`, and checks the result.
template <typename Copy>
void check_copy(Copy copy, std::size_t n, std::size_t s_off, std::size_t d_off) {
  alignas(64) static unsigned char src[2 * 4096];
  alignas(64) static unsigned char dst[2 * 4096];
  for (std::size_t i = 0; i < sizeof src; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  for (auto& b : dst) b = 0xA5;
  copy(dst + kGuard + d_off, src + s_off, n);
  bool guards_intact = true;
  for (std::size_t i = 0; i < kGuard + d_off; ++i) guards_intact &= dst[i] == 0xA5;
  for (std::size_t i = kGuard + d_off + n; i < kGuard + d_off + n + kGuard; ++i) guards_intact &= dst[i] == 0xA5;
  INFO("length ", n, ", source offset ", s_off, ", destination offset ", d_off);
  REQUIRE(guards_intact);
  REQUIRE(std::memcmp(dst + kGuard + d_off, src + s_off, n) == 0);
}

}  // namespace

TEST_CASE("copy_into_shared and copy_out_of_shared copy every length at every alignment") {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (std::size_t n : {1000u, 1023u, 1024u, 1025u, 1040u, 2048u, 4000u}) lengths.push_back(n);
  for (std::size_t n : lengths) {
    for (std::size_t s_off = 0; s_off < 16; ++s_off) {
      for (std::size_t d_off : {0u, 1u, 7u, 8u, 9u, 15u}) {
        check_copy(lapi::copy_into_shared, n, s_off, d_off);
        check_copy(lapi::copy_out_of_shared, n, d_off, s_off);
      }
    }
  }
}
