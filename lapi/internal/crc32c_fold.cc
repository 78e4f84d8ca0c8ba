// CRC32C by folding with VPCLMULQDQ (see crc32c_fold.hpp). Only the
// functions marked with a target attribute use AVX-512; they run only after
// crc32c_fold_supported() said yes.

#include "lapi/internal/crc32c_fold.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace lapi::internal {

namespace {

constexpr std::uint32_t kPoly = 0x82f63b78;  // CRC32C, bit-reflected

// A * B mod P, bit-reflected (bit i holds the coefficient of x^(31-i)); for
// the constants, computed at compile time.
constexpr std::uint32_t mul_sw(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (int k = 0; k < 32; ++k, a = a & 1 ? (a >> 1) ^ kPoly : a >> 1) {
    if ((b >> (31 - k)) & 1) product ^= a;  // b's coefficient of x^k
  }
  return product;
}

// x^e mod P, by squaring.
constexpr std::uint32_t x_pow_mod(std::uint64_t e) {
  std::uint32_t result = 0x80000000u, base = 0x40000000u;  // x^0, x^1
  for (; e != 0; e >>= 1, base = mul_sw(base, base)) {
    if (e & 1) result = mul_sw(result, base);
  }
  return result;
}

// A lane holds 128 message bits, the first in bit 0 (the highest power). Its
// low half L stands for L(x) * x^64 and its high half H for H(x); moving the
// lane `d` bits further on multiplies it by x^d. A carry-less product of two
// reflected 64-bit values comes out one power short, hence the -1:
//   lane * x^d == clmul(L, x^(d+63) mod P) ^ clmul(H, x^(d-1) mod P).
// Each constant is stored as the upper half of a reflected 64-bit value.
struct Keys {
  std::uint64_t low, high;
};
constexpr Keys keys_for(unsigned d) {
  return {std::uint64_t{x_pow_mod(d + 63)} << 32, std::uint64_t{x_pow_mod(d - 1)} << 32};
}

// The loop moves each register four registers on (2048 bits); the end
// brings the first three onto the last (1536, 1024 and 512 bits).
struct FoldKeys {
  Keys loop = keys_for(2048);
  std::array<Keys, 3> tail = {keys_for(1536), keys_for(1024), keys_for(512)};
};
constexpr FoldKeys kKeys;

bool os_saves_zmm() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & bit_OSXSAVE) == 0) return false;
  unsigned lo = 0, hi = 0;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  // SSE, AVX, opmask, upper halves of zmm0-15, zmm16-31.
  return (lo & 0xe6) == 0xe6;
}

bool cpu_folds() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  if ((c & bit_SSE4_2) == 0 || (c & bit_PCLMUL) == 0) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (b & bit_AVX512F) != 0 && (c & bit_VPCLMULQDQ) != 0 && os_saves_zmm();
}

const bool kSupported = cpu_folds();

#define LAPIS_FOLD_TARGET gnu::target("avx512f,vpclmulqdq,pclmul,sse4.2")

[[LAPIS_FOLD_TARGET]] inline __m512i keys512(const Keys& k) {
  // Not _mm512_broadcast_i32x4: GCC 12's header reads an uninitialised value there.
  const auto h = static_cast<long long>(k.high), l = static_cast<long long>(k.low);
  return _mm512_set_epi64(h, l, h, l, h, l, h, l);
}

// acc moved on by the keys' distance, plus `next`.
[[LAPIS_FOLD_TARGET, gnu::always_inline]] inline __m512i fold(__m512i acc, __m512i keys,
                                                             __m512i next) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, keys, 0x00),
                                   _mm512_clmulepi64_epi128(acc, keys, 0x11), next, 0x96);
}

enum class Store { none, cached, stream };

template <Store S>
[[LAPIS_FOLD_TARGET, gnu::always_inline]] inline __m512i load(unsigned char* dst,
                                                             const unsigned char* src,
                                                             std::size_t at) {
  const __m512i v = _mm512_loadu_si512(src + at);
  if constexpr (S == Store::cached) _mm512_storeu_si512(dst + at, v);
  if constexpr (S == Store::stream) _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + at), v);
  return v;
}

// The four registers folded into one and through the CRC32 instruction.
[[LAPIS_FOLD_TARGET, gnu::always_inline]] inline std::uint32_t reduce(__m512i a0, __m512i a1,
                                                                     __m512i a2, __m512i a3) {
  a3 = fold(a2, keys512(kKeys.tail[2]), a3);
  a3 = fold(a1, keys512(kKeys.tail[1]), a3);
  a3 = fold(a0, keys512(kKeys.tail[0]), a3);
  alignas(64) std::uint64_t last[8];
  _mm512_store_si512(last, a3);
  std::uint64_t c = 0;
  for (const std::uint64_t word : last) c = _mm_crc32_u64(c, word);
  return static_cast<std::uint32_t>(c);
}

template <Store S>
[[LAPIS_FOLD_TARGET]] std::uint32_t fold_raw(std::uint32_t raw, unsigned char* dst,
                                             const unsigned char* src, std::size_t len) {
  __m512i a0 = load<S>(dst, src, 0);
  __m512i a1 = load<S>(dst, src, 64);
  __m512i a2 = load<S>(dst, src, 128);
  __m512i a3 = load<S>(dst, src, 192);
  // The register so far is the same as these many bits added to the first
  // ones, with the register then starting from zero.
  a0 = _mm512_xor_si512(a0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(raw))));
  const __m512i k = keys512(kKeys.loop);
  for (std::size_t at = 256; at < len; at += 256) {
    a0 = fold(a0, k, load<S>(dst, src, at));
    a1 = fold(a1, k, load<S>(dst, src, at + 64));
    a2 = fold(a2, k, load<S>(dst, src, at + 128));
    a3 = fold(a3, k, load<S>(dst, src, at + 192));
  }
  return reduce(a0, a1, a2, a3);
}

// ---- The hybrid (crc32c_fold.hpp): the fold beside three CRC32 chains.

// x^(8 * 2^i - 33) mod P: what mul_x33 multiplies by to move a register
// 2^i bytes on (i >= 3: the hybrid's shifts are whole words).
struct ShiftKeys {
  std::array<std::uint32_t, 48> k{};
  constexpr ShiftKeys() {
    for (unsigned i = 3; i < k.size(); ++i) k[i] = x_pow_mod((std::uint64_t{8} << i) - 33);
  }
};
constexpr ShiftKeys kShiftKeys;

// A * B * x^33 mod P: the carry-less product (A * B * x, as a reflected
// 64-bit value) through the CRC32 instruction, which multiplies by x^32.
[[LAPIS_FOLD_TARGET, gnu::always_inline]] inline std::uint32_t mul_x33(std::uint32_t a,
                                                                      std::uint32_t b) {
  const __m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(a)),
                                         _mm_cvtsi32_si128(static_cast<int>(b)), 0x00);
  const auto product = static_cast<std::uint64_t>(_mm_cvtsi128_si64(p));
  return static_cast<std::uint32_t>(_mm_crc32_u64(0, product));
}

// x^(8 * bytes - 33) mod P, bytes a nonzero multiple of 8 below 2^48.
[[LAPIS_FOLD_TARGET]] std::uint32_t shift_key(std::uint64_t bytes) {
  unsigned i = static_cast<unsigned>(__builtin_ctzll(bytes));
  std::uint32_t key = kShiftKeys.k[i];
  for (bytes &= bytes - 1; bytes != 0; bytes &= bytes - 1) {
    key = mul_x33(key, kShiftKeys.k[static_cast<unsigned>(__builtin_ctzll(bytes))]);
  }
  return key;
}

// Each loop turn folds 256 bytes of the front part and takes kHybridWords
// words of each of the three streams behind it through the CRC32
// instruction: the fold waits on the carry-less multiplier, the chains on
// another port.
[[LAPIS_FOLD_TARGET]] std::uint32_t hybrid_raw(std::uint32_t raw, const unsigned char* src,
                                               std::size_t turns) {
  constexpr std::size_t kStep = 8 * kHybridWords;
  const std::size_t stream = kStep * turns;
  const unsigned char* s1 = src + 256 * turns;
  __m512i a0 = _mm512_loadu_si512(src + 0);
  __m512i a1 = _mm512_loadu_si512(src + 64);
  __m512i a2 = _mm512_loadu_si512(src + 128);
  __m512i a3 = _mm512_loadu_si512(src + 192);
  a0 = _mm512_xor_si512(a0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(raw))));
  const __m512i k = keys512(kKeys.loop);
  std::uint64_t c1 = 0, c2 = 0, c3 = 0;
  for (std::size_t turn = 0;;) {
    const std::size_t at = turn * kStep;
#pragma GCC unroll 8
    for (std::size_t w = 0; w < kStep; w += 8) {
      std::uint64_t x1, x2, x3;
      std::memcpy(&x1, s1 + at + w, 8);
      std::memcpy(&x2, s1 + stream + at + w, 8);
      std::memcpy(&x3, s1 + 2 * stream + at + w, 8);
      c1 = _mm_crc32_u64(c1, x1);
      c2 = _mm_crc32_u64(c2, x2);
      c3 = _mm_crc32_u64(c3, x3);
    }
    if (++turn == turns) break;
    const std::size_t v = 256 * turn;
    a0 = fold(a0, k, _mm512_loadu_si512(src + v));
    a1 = fold(a1, k, _mm512_loadu_si512(src + v + 64));
    a2 = fold(a2, k, _mm512_loadu_si512(src + v + 128));
    a3 = fold(a3, k, _mm512_loadu_si512(src + v + 192));
  }
  const std::uint32_t key = shift_key(stream);
  std::uint32_t c = reduce(a0, a1, a2, a3);
  c = mul_x33(c, key) ^ static_cast<std::uint32_t>(c1);
  c = mul_x33(c, key) ^ static_cast<std::uint32_t>(c2);
  return mul_x33(c, key) ^ static_cast<std::uint32_t>(c3);
}

}  // namespace

bool crc32c_fold_supported() { return kSupported; }

std::size_t crc32c_hybrid_raw(std::uint32_t* raw, const unsigned char* src, std::size_t len) {
  // Streams below 2^47 bytes, which kShiftKeys covers; the caller folds the rest.
  const std::size_t turns = std::min(len, std::size_t{1} << 46) / kHybridTurn;
  *raw = hybrid_raw(*raw, src, turns);
  return turns * kHybridTurn;
}

std::uint32_t crc32c_fold_raw(std::uint32_t raw, unsigned char* dst, const unsigned char* src,
                              std::size_t len) {
  return dst != nullptr ? fold_raw<Store::cached>(raw, dst, src, len)
                        : fold_raw<Store::none>(raw, dst, src, len);
}

[[LAPIS_FOLD_TARGET]] std::uint32_t crc32c_fold_stream_raw(std::uint32_t raw, unsigned char* dst,
                                                           const unsigned char* src,
                                                           std::size_t len) {
  const std::uint32_t r = fold_raw<Store::stream>(raw, dst, src, len);
  _mm_sfence();  // streaming stores are weakly ordered: complete them before any flag
  return r;
}

}  // namespace lapi::internal
