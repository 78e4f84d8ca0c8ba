// CRC32C with the SSE4.2 instruction (see crc32c.hpp). Only the functions
// marked target("sse4.2") use the instruction, so the rest of the library
// stays buildable for any x86-64; they run only after the CPU check.

#include "lapi/internal/crc32c.hpp"

#include "lapi/internal/crc32c_fold.hpp"
#include "lapi/line_copy.hpp"

#include <cpuid.h>
#include <nmmintrin.h>

#include <array>
#include <cstring>

namespace lapi::internal {

namespace {

constexpr std::uint32_t kPoly = 0x82f63b78;  // CRC32C, bit-reflected

// ---- Operators that append `len` zero bytes to a raw CRC register, as four
// byte-indexed tables (used once per block, never per byte of data).
using ZeroTables = std::array<std::array<std::uint32_t, 256>, 4>;
using Matrix = std::array<std::uint32_t, 32>;  // GF(2) 32x32, one column per bit

std::uint32_t times(const Matrix& m, std::uint32_t v) {
  std::uint32_t sum = 0;
  for (int i = 0; v != 0; ++i, v >>= 1) {
    if (v & 1) sum ^= m[static_cast<std::size_t>(i)];
  }
  return sum;
}

Matrix square(const Matrix& m) {
  Matrix out{};
  for (std::size_t i = 0; i < 32; ++i) out[i] = times(m, m[i]);
  return out;
}

// `len` must be a power of two.
ZeroTables zero_tables(std::size_t len) {
  Matrix op{};  // one zero bit
  op[0] = kPoly;
  for (std::size_t n = 1; n < 32; ++n) op[n] = 1u << (n - 1);
  op = square(square(square(op)));  // one zero byte
  for (std::size_t n = len; n > 1; n >>= 1) op = square(op);
  ZeroTables t{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    for (std::size_t b = 0; b < 4; ++b) t[b][n] = times(op, n << (8 * b));
  }
  return t;
}

std::uint32_t shift(const ZeroTables& t, std::uint32_t crc) {
  return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

// Three streams over blocks of kLong bytes, then of kShort bytes.
constexpr std::size_t kLong = 8192;
constexpr std::size_t kShort = 256;

// CPUID leaf 1 (not __builtin_cpu_supports: its __cpu_model lives in a
// static libgcc that shared libraries linked with LTO do not get).
bool has_sse42() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_SSE4_2) != 0;
}

struct Tables {
  ZeroTables longs = zero_tables(kLong);
  ZeroTables shorts = zero_tables(kShort);
  std::array<std::uint32_t, 256> bytes{};  // the fallback's
  Tables() {
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ kPoly : c >> 1;
      bytes[n] = c;
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void store64(unsigned char* p, std::uint64_t v) { std::memcpy(p, &v, 8); }

// Three blocks of `block` bytes at a time, each its own dependency chain,
// while at least three remain; copies them to dst when Copy.
template <bool Copy>
[[gnu::target("sse4.2")]] std::uint64_t hw_triples(std::uint64_t c0, unsigned char*& dst,
                                                   const unsigned char*& src, std::size_t& len,
                                                   std::size_t block, const ZeroTables& zeros) {
  while (len >= 3 * block) {
    std::uint64_t c1 = 0, c2 = 0;
    for (std::size_t i = 0; i < block; i += 8) {
      const std::uint64_t a = load64(src + i);
      const std::uint64_t b = load64(src + block + i);
      const std::uint64_t c = load64(src + 2 * block + i);
      c0 = _mm_crc32_u64(c0, a);
      c1 = _mm_crc32_u64(c1, b);
      c2 = _mm_crc32_u64(c2, c);
      if constexpr (Copy) {
        store64(dst + i, a);
        store64(dst + block + i, b);
        store64(dst + 2 * block + i, c);
      }
    }
    c0 = shift(zeros, static_cast<std::uint32_t>(c0)) ^ static_cast<std::uint32_t>(c1);
    c0 = shift(zeros, static_cast<std::uint32_t>(c0)) ^ static_cast<std::uint32_t>(c2);
    src += 3 * block;
    if constexpr (Copy) dst += 3 * block;
    len -= 3 * block;
  }
  return c0;
}

// One 8-byte word at src + at into the register (and to dst + at when Copy).
template <bool Copy>
[[gnu::target("sse4.2"), gnu::always_inline]] inline std::uint64_t hw_word(
    std::uint64_t c0, unsigned char* dst, const unsigned char* src, std::size_t at) {
  const std::uint64_t a = load64(src + at);
  if constexpr (Copy) store64(dst + at, a);
  return _mm_crc32_u64(c0, a);
}

// The raw register over fewer than three short blocks: one dependency chain,
// 64 bytes per loop turn, the last words by a jump into straight-line code,
// then 4, 2 and 1 bytes. Small Amsend frames and their heads are
// checksummed on every message: a 40-byte head costs five CRC32
// instructions and about as many others.
template <bool Copy>
[[gnu::target("sse4.2"), gnu::always_inline]] inline std::uint32_t hw_tail(
    std::uint64_t c0, unsigned char* dst, const unsigned char* src, std::size_t len) {
  for (; len >= 64; len -= 64, src += 64) {
#pragma GCC unroll 8
    for (std::size_t at = 0; at < 64; at += 8) c0 = hw_word<Copy>(c0, dst, src, at);
    if constexpr (Copy) dst += 64;
  }
  const std::size_t words = len & ~std::size_t{7};
  switch (words >> 3) {
    case 7: c0 = hw_word<Copy>(c0, dst, src, words - 56); [[fallthrough]];
    case 6: c0 = hw_word<Copy>(c0, dst, src, words - 48); [[fallthrough]];
    case 5: c0 = hw_word<Copy>(c0, dst, src, words - 40); [[fallthrough]];
    case 4: c0 = hw_word<Copy>(c0, dst, src, words - 32); [[fallthrough]];
    case 3: c0 = hw_word<Copy>(c0, dst, src, words - 24); [[fallthrough]];
    case 2: c0 = hw_word<Copy>(c0, dst, src, words - 16); [[fallthrough]];
    case 1: c0 = hw_word<Copy>(c0, dst, src, words - 8); [[fallthrough]];
    default: break;
  }
  src += words;
  if constexpr (Copy) dst += words;
  auto c = static_cast<std::uint32_t>(c0);
  if (len & 4) {
    std::uint32_t a;
    std::memcpy(&a, src, 4);
    c = _mm_crc32_u32(c, a);
    if constexpr (Copy) std::memcpy(dst, &a, 4), dst += 4;
    src += 4;
  }
  if (len & 2) {
    std::uint16_t a;
    std::memcpy(&a, src, 2);
    c = _mm_crc32_u16(c, a);
    if constexpr (Copy) std::memcpy(dst, &a, 2), dst += 2;
    src += 2;
  }
  if (len & 1) {
    c = _mm_crc32_u8(c, *src);
    if constexpr (Copy) *dst = *src;
  }
  return c;
}

// Whole blocks of `len` bytes (a multiple of 3 * kShort), out of line so
// that the small-message path below needs no stack frame.
template <bool Copy>
[[gnu::target("sse4.2"), gnu::noinline]] std::uint64_t hw_blocks(std::uint64_t c0,
                                                                 unsigned char* dst,
                                                                 const unsigned char* src,
                                                                 std::size_t len) {
  const Tables& t = tables();
  c0 = hw_triples<Copy>(c0, dst, src, len, kLong, t.longs);
  return hw_triples<Copy>(c0, dst, src, len, kShort, t.shorts);
}

// The raw register (no pre/post inversion) over len bytes, copying them to
// dst when Copy. Below three short blocks the tables are never touched.
template <bool Copy>
[[gnu::target("sse4.2"), gnu::always_inline]] inline std::uint32_t hw_raw(
    std::uint32_t crc0, unsigned char* dst, const unsigned char* src, std::size_t len) {
  std::uint64_t c0 = crc0;
  // Not for copies: the streams' 8-byte stores into lines another core
  // reads next stalled the target's copy out of a staged chunk (mpi_bw
  // 1 MiB with checksums 20.4 -> 16.6-17.1 GB/s, the origin's hybrid alone
  // 22.8-23.2).
  if (!Copy && len >= kHybridMin && crc32c_fold_supported()) {
    auto raw = static_cast<std::uint32_t>(c0);
    const std::size_t done = crc32c_hybrid_raw(&raw, src, len);
    c0 = raw;
    src += done;
    len -= done;
  }
  if (len >= kFoldMin && crc32c_fold_supported()) {
    const std::size_t whole = len & ~std::size_t{255};
    c0 = crc32c_fold_raw(static_cast<std::uint32_t>(c0), Copy ? dst : nullptr, src, whole);
    src += whole;
    if constexpr (Copy) dst += whole;
    len -= whole;
  }
  if (len >= 3 * kShort) [[unlikely]] {
    const std::size_t blocks = len - len % (3 * kLong) % (3 * kShort);
    c0 = hw_blocks<Copy>(c0, dst, src, blocks);
    src += blocks;
    if constexpr (Copy) dst += blocks;
    len -= blocks;
  }
  return hw_tail<Copy>(c0, dst, src, len);
}

// Out of line: compiled for any x86-64 even where its callers are not.
[[gnu::noinline]] std::uint32_t sw_raw(std::uint32_t c, const unsigned char* src, std::size_t len) {
  const auto& bytes = tables().bytes;
  for (; len > 0; --len, ++src) c = bytes[(c ^ *src) & 0xff] ^ (c >> 8);
  return c;
}

// Read once at load time: no initialisation guard on every checksum. A
// call made before it is set (from another library's static initialiser)
// takes the table path, which gives the same result.
const bool kHardware = has_sse42();

// Any length, on any CPU: out of line, so that the entry points' common
// case below (a small frame's words, with SSE4.2) is a leaf function with
// no stack frame.
template <bool Copy>
[[gnu::target("sse4.2"), gnu::noinline]] std::uint32_t raw_any(std::uint32_t c, unsigned char* dst,
                                                               const unsigned char* src,
                                                               std::size_t len) {
  if (!kHardware) {
    if constexpr (Copy) {
      if (len) std::memcpy(dst, src, len);
    }
    return sw_raw(c, src, len);
  }
  return hw_raw<Copy>(c, dst, src, len);
}

// Below: hw_tail alone (from there up the fold, where the CPU has it, beats
// one CRC32 chain: 256 bytes in 9 ns instead of 24).
constexpr std::size_t kSmall = kFoldMin;

}  // namespace

// The entry points are compiled for SSE4.2 themselves; each tests kHardware
// before it runs an SSE4.2 instruction, and raw_any takes the table loop,
// compiled for any x86-64, on a CPU without it.

[[gnu::target("sse4.2")]] std::uint32_t crc32c_extend(std::uint32_t crc, const void* data,
                                                      std::size_t len) {
  const auto* src = static_cast<const unsigned char*>(data);
  if (len < kSmall && kHardware) [[likely]] return ~hw_tail<false>(~crc, nullptr, src, len);
  return ~raw_any<false>(~crc, nullptr, src, len);
}

[[gnu::target("sse4.2")]] std::uint32_t crc32c_extend2(std::uint32_t crc, const void* a,
                                                       std::size_t a_len, const void* b,
                                                       std::size_t b_len) {
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  if ((a_len | b_len) < kSmall && kHardware) [[likely]] {
    return ~hw_tail<false>(hw_tail<false>(~crc, nullptr, pa, a_len), nullptr, pb, b_len);
  }
  return ~raw_any<false>(raw_any<false>(~crc, nullptr, pa, a_len), nullptr, pb, b_len);
}

[[gnu::target("sse4.2")]] std::uint32_t crc32c_copy(void* dst, const void* src, std::size_t len,
                                                    std::uint32_t crc) {
  auto* to = static_cast<unsigned char*>(dst);
  const auto* from = static_cast<const unsigned char*>(src);
  if (len < kSmall && kHardware) [[likely]] return ~hw_tail<true>(~crc, to, from, len);
  return ~raw_any<true>(~crc, to, from, len);
}

std::uint32_t crc32c_copy_uncached(void* dst, const void* src, std::size_t len,
                                   std::uint32_t crc) {
  if (len < kUncachedMin || !crc32c_fold_supported()) {
    crc = crc32c_extend(crc, src, len);
    std::memcpy(dst, src, len);
    return crc;
  }
  return crc32c_copy_streaming(dst, src, len, crc);
}

std::uint32_t crc32c_copy_streaming(void* dst, const void* src, std::size_t len,
                                    std::uint32_t crc) {
  // The fold needs kFoldMin bytes after the head that aligns the stores.
  if (!crc32c_fold_supported() || len < kFoldMin + 64) {
    crc = crc32c_extend(crc, src, len);
    copy_streaming(dst, src, len);
    return crc;
  }
  auto* to = static_cast<unsigned char*>(dst);
  const auto* from = static_cast<const unsigned char*>(src);
  const std::size_t head = -reinterpret_cast<std::uintptr_t>(to) & 63;
  crc = crc32c_copy(to, from, head, crc);
  const std::size_t whole = (len - head) & ~std::size_t{255};
  crc = ~crc32c_fold_stream_raw(~crc, to + head, from + head, whole);
  return crc32c_copy(to + head + whole, from + head + whole, len - head - whole, crc);
}

bool crc32c_hardware() { return kHardware; }

}  // namespace lapi::internal
