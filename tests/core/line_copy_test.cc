// lapi/line_copy.hpp: every length and both alignments on either side give
// exactly memcpy's result, and nothing outside the destination is touched.

#include "lapi/line_copy.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

TEST_CASE("copy_bulk copies backwards where memcpy's rep movsb would crawl, and copies exactly") {
  using lapi::line_copy_detail::aliased;
  constexpr std::size_t kSpan = 80 * 1024;
  std::vector<unsigned char> src(kSpan + 8192), dst(kSpan + 8192 + 2 * kGuard);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  // A source 4 KiB-aligned, the destination `ahead` bytes past it modulo 4 KiB.
  unsigned char* s = src.data() + (-reinterpret_cast<std::uintptr_t>(src.data()) & 4095);
  unsigned char* d0 =
      dst.data() + kGuard + (-reinterpret_cast<std::uintptr_t>(dst.data() + kGuard) & 4095);
  for (std::size_t ahead : {0u, 1u, 8u, 15u, 16u, 63u, 64u, 200u, 4095u}) {
    unsigned char* d = d0 + ahead;
    const bool backward = ahead >= 1 && ahead <= 63;
    CHECK(aliased(d, s, 64 * 1024) == backward);
    CHECK(aliased(d, s, 2048) == backward);
    CHECK_FALSE(aliased(d, s, 2047));         // memcpy moves these without rep movsb
    CHECK_FALSE(aliased(d, s, std::size_t{1} << 20));  // and these at full speed anyway
    for (std::size_t n : {2048u, 2049u, 2063u, 4096u, 4100u, 65536u, 65536u + 17u, 70000u}) {
      std::fill(dst.begin(), dst.end(), 0xA5);
      lapi::copy_bulk(d, s, n);
      INFO("length ", n, ", destination ", ahead, " bytes ahead");
      REQUIRE(std::memcmp(d, s, n) == 0);
      bool guards_intact = true;
      for (unsigned char* p = d - kGuard; p < d; ++p) guards_intact &= *p == 0xA5;
      for (unsigned char* p = d + n; p < d + n + kGuard; ++p) guards_intact &= *p == 0xA5;
      REQUIRE(guards_intact);
    }
  }
}
