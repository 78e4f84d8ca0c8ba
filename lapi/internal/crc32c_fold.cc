// CRC32C by folding with VPCLMULQDQ (see crc32c_fold.hpp). Only the
// functions marked with a target attribute use AVX-512; they run only after
// crc32c_fold_supported() said yes.

#include "lapi/internal/crc32c_fold.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include <array>
#include <cstring>

namespace lapi::internal {

namespace {

constexpr std::uint32_t kPoly = 0x82f63b78;  // CRC32C, bit-reflected

// x^e mod P, bit-reflected (bit i holds the coefficient of x^(31-i)).
constexpr std::uint32_t x_pow_mod(unsigned e) {
  std::uint32_t r = 0x80000000u;  // x^0
  for (unsigned i = 0; i < e; ++i) r = r & 1 ? (r >> 1) ^ kPoly : r >> 1;
  return r;
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
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & bit_SSE4_2) == 0) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (b & bit_AVX512F) != 0 && (c & bit_VPCLMULQDQ) != 0 && os_saves_zmm();
}

const bool kSupported = cpu_folds();

#define LAPIS_FOLD_TARGET gnu::target("avx512f,vpclmulqdq,sse4.2")

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
  a3 = fold(a2, keys512(kKeys.tail[2]), a3);
  a3 = fold(a1, keys512(kKeys.tail[1]), a3);
  a3 = fold(a0, keys512(kKeys.tail[0]), a3);
  alignas(64) std::uint64_t last[8];
  _mm512_store_si512(last, a3);
  std::uint64_t c = 0;
  for (const std::uint64_t word : last) c = _mm_crc32_u64(c, word);
  return static_cast<std::uint32_t>(c);
}

}  // namespace

bool crc32c_fold_supported() { return kSupported; }

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
