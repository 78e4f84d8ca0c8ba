// CRC32C: the SSE4.2 three-stream code, the fold, the hybrid and the
// copying variant agree with a bit-at-a-time reference at every length and
// alignment around the block sizes where the streams are joined.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "lapi/internal/crc32c.hpp"
#include "lapi/internal/crc32c_fold.hpp"

using namespace lapi::internal;

namespace {

std::uint32_t reference(const unsigned char* p, std::size_t len) {
  std::uint32_t c = 0xffffffff;
  for (std::size_t i = 0; i < len; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
  }
  return ~c;
}

}  // namespace

TEST_CASE("crc32c of the standard check string") {
  CHECK(crc32c_extend(0, "123456789", 9) == 0xe3069283u);
  CHECK(crc32c_extend(0, nullptr, 0) == 0u);
  // This machine has SSE4.2; the test would pass on the fallback too.
  MESSAGE("hardware crc32c: " << crc32c_hardware()
                                << ", folding (VPCLMULQDQ): " << crc32c_fold_supported());
}

TEST_CASE("the folding path, called directly, matches the reference and copies") {
  if (!crc32c_fold_supported()) {
    MESSAGE("no AVX-512 VPCLMULQDQ here (or under valgrind): the three streams serve");
    return;
  }
  std::mt19937 rng(11);
  std::vector<unsigned char> src(70000);
  for (auto& b : src) b = static_cast<unsigned char>(rng());
  for (std::size_t len : {kFoldMin, kFoldMin + 256, std::size_t{65536}, std::size_t{69888}}) {
    CAPTURE(len);
    // The raw register: the reference's before its final inversion.
    const std::uint32_t want = ~reference(src.data() + 1, len);
    CHECK(crc32c_fold_raw(0xffffffff, nullptr, src.data() + 1, len) == want);
    std::vector<unsigned char> dst(len + 1, 0xee);
    CHECK(crc32c_fold_raw(0xffffffff, dst.data(), src.data() + 1, len) == want);
    CHECK(std::memcmp(dst.data(), src.data() + 1, len) == 0);
    CHECK(dst.back() == 0xee);
  }
}

TEST_CASE("the hybrid (fold beside three CRC32 chains), called directly, matches the reference") {
  if (!crc32c_fold_supported()) {
    MESSAGE("no AVX-512 VPCLMULQDQ here (or under valgrind): the three streams serve");
    return;
  }
  std::mt19937 rng(13);
  std::vector<unsigned char> src((1u << 20) + 1024);
  for (auto& b : src) b = static_cast<unsigned char>(rng());
  // One turn, the minimum, a staged chunk, and lengths whose streams' shift
  // keys multiply many powers of two together.
  for (std::size_t len : {kHybridTurn, kHybridMin, kHybridMin + kHybridTurn - 1,
                          std::size_t{65536}, std::size_t{(1u << 20) + 1000}, 255 * kHybridTurn}) {
    CAPTURE(len);
    const std::uint32_t want_whole = reference(src.data() + 3, len);
    std::uint32_t raw = 0xffffffff;
    const std::size_t done = crc32c_hybrid_raw(&raw, src.data() + 3, len);
    CHECK(done == len / kHybridTurn * kHybridTurn);
    CHECK(raw == ~reference(src.data() + 3, done));
    // And through the entry point, which finishes the rest by the fold and the tail.
    CHECK(crc32c_extend(0, src.data() + 3, len) == want_whole);
    // A damaged byte in each stream changes the result.
    for (std::size_t at : {std::size_t{0}, done - 1, done / 2, done - done / 5}) {
      src[3 + at] ^= 0x10;
      CHECK(crc32c_extend(0, src.data() + 3, len) != want_whole);
      src[3 + at] ^= 0x10;
    }
  }
}

TEST_CASE("crc32c and crc32c_copy match the reference at block boundaries and offsets") {
  std::mt19937 rng(7);
  std::vector<unsigned char> src(3 * 8192 * 2 + 3 * 256 * 2 + 64);
  for (auto& b : src) b = static_cast<unsigned char>(rng());
  // Every length up to 130 (each word count and tail of the small path, and
  // its 64-byte loop), then around the block sizes.
  std::vector<std::size_t> lengths = {255,          256,      767,          768,
                                      769,          1000,     3 * 8192 - 1, 3 * 8192,
                                      3 * 8192 + 1, 3 * 8192 + 3 * 256 + 13, 2 * 3 * 8192 + 5,
                                      // around the folding path's minimum and its 256-byte turns
                                      1023,         1024,     1025,         1279,
                                      1280,         1535,     4096 + 17,    16384 + 255};
  for (std::size_t len = 0; len <= 130; ++len) lengths.push_back(len);
  for (std::size_t offset : {0u, 1u, 3u}) {
    for (std::size_t len : lengths) {
      CAPTURE(offset);
      CAPTURE(len);
      const unsigned char* p = src.data() + offset;
      const std::uint32_t want = reference(p, len);
      CHECK(crc32c_extend(0, p, len) == want);
      std::vector<unsigned char> dst(len + 2, 0xee);
      CHECK(crc32c_copy(dst.data() + 1, p, len, 0) == want);
      CHECK(std::memcmp(dst.data() + 1, p, len) == 0);
      CHECK(dst.front() == 0xee);
      CHECK(dst.back() == 0xee);
      // Continuing a CRC over a split gives the CRC of the whole.
      const std::size_t half = len / 3;
      CHECK(crc32c_extend(crc32c_extend(0, p, half), p + half, len - half) == want);
      CHECK(crc32c_extend2(0, p, half, p + half, len - half) == want);
    }
  }
}

TEST_CASE("crc32c_copy_uncached and _streaming copy and checksum at every size") {
  std::mt19937 rng(11);
  std::vector<unsigned char> src(kUncachedMin + 4096);
  for (auto& b : src) b = static_cast<unsigned char>(rng());
  // Destination offsets 0 and 64 are aligned for the streaming stores, the
  // others need a head; lengths leave tails of every kind.
  for (std::size_t offset : {0u, 1u, 63u, 64u}) {
    for (std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{30}, std::size_t{100},
                            std::size_t{300}, std::size_t{65536 + 7}, kUncachedMin - 1,
                            kUncachedMin, kUncachedMin + 255, kUncachedMin + 1000}) {
      for (auto copy : {&crc32c_copy_uncached, &crc32c_copy_streaming}) {
        CAPTURE(offset);
        CAPTURE(len);
        CAPTURE(copy == &crc32c_copy_streaming);
        std::vector<unsigned char> dst(len + 128, 0xee);
        const std::uint32_t want = reference(src.data() + 3, len);
        CHECK(copy(dst.data() + offset, src.data() + 3, len, 0) == want);
        CHECK(std::memcmp(dst.data() + offset, src.data() + 3, len) == 0);
        CHECK(std::count(dst.begin(), dst.begin() + offset, 0xee) == static_cast<long>(offset));
        CHECK(std::count(dst.begin() + offset + len, dst.end(), 0xee) ==
              128 - static_cast<long>(offset));
      }
    }
  }
}

TEST_CASE("one flipped bit changes the crc32c") {
  std::vector<unsigned char> data(100000, 0x5a);
  const std::uint32_t good = crc32c_extend(0, data.data(), data.size());
  for (std::size_t bit : {0u, 7u, 8000u * 8 + 3, 99999u * 8 + 7}) {
    data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    CHECK(crc32c_extend(0, data.data(), data.size()) != good);
    data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
  }
}
