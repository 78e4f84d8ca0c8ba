#pragma once
// Copies whose accesses on one side never straddle a cache line: for data
// going into or coming out of memory another core is reading or writing at
// the same time (a shared-memory ring slot, which lapi hands a header
// handler as AmHeaderInfo::data).
//
// Why: libc's memcpy moves 32-256 bytes with unaligned 32-byte accesses, so
// data at an offset that is not a multiple of 32 crosses a line with every
// other access, and in a ring slot a crossing access waits for two lines of
// the other core's. Where a frame's data starts depends on the user header:
// MPI's 16-byte envelope puts it 8 bytes off a 32-byte boundary, and Amsend
// ping-pong latency at 92 B was 0.54 us with a 16-byte user header against
// 0.34 without one (AMD Zen 5 VM, slow latency mode; 0.43 with this copy).
// Here every access on the aligned side is 16 bytes at a multiple of 16 (or
// smaller, at a multiple of its size). mpi_latency against memcpy,
// alternated 3 times: 92 B 0.60-0.61 -> 0.47-0.48 us, 128 B 0.58-0.60 ->
// 0.52-0.54, 512 B 0.94-0.97 -> 0.73-0.75, 1 KiB 1.08 -> 1.00 (slow mode);
// 92 B/128 B/256 B/512 B 0.17-0.18/0.17-0.18/0.20/0.26-0.27 -> 0.15/
// 0.16-0.17/0.19/0.22 us, 1 KiB unchanged (fast mode).

#include <emmintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace lapi {

namespace line_copy_detail {

// Moves the n < 16 bytes after an aligned run piece by piece, largest
// first, so that each piece is aligned on the aligned side (8, 4, 2, 1:
// the address grows through the multiples).
inline void pieces(unsigned char* d, const unsigned char* s, std::size_t n) {
  if (n & 8) { std::memcpy(d, s, 8); d += 8; s += 8; }
  if (n & 4) { std::memcpy(d, s, 4); d += 4; s += 4; }
  if (n & 2) { std::memcpy(d, s, 2); d += 2; s += 2; }
  if (n & 1) *d = *s;
}

// Moves n < 16 bytes ending at an aligned address, smallest piece first.
inline void pieces_up_to(unsigned char* d, const unsigned char* s, std::size_t n) {
  if (n & 1) { *d = *s; ++d; ++s; }
  if (n & 2) { std::memcpy(d, s, 2); d += 2; s += 2; }
  if (n & 4) { std::memcpy(d, s, 4); d += 4; s += 4; }
  if (n & 8) std::memcpy(d, s, 8);
}

// n >= 16: pieces up to the aligned side's next multiple of 16, 16-byte
// steps, pieces after.
template <bool kAlignDst>
inline void copy_aligned(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const auto aligned_at = reinterpret_cast<std::uintptr_t>(kAlignDst ? d : s);
  const std::size_t head = (16 - (aligned_at & 15)) & 15;
  pieces_up_to(d, s, head);
  d += head;
  s += head;
  n -= head;
  for (; n >= 16; n -= 16, d += 16, s += 16) {
    if constexpr (kAlignDst) {
      _mm_store_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_load_si128(reinterpret_cast<const __m128i*>(s)));
    }
  }
  pieces(d, s, n);
}

// From 32 bytes (below, a frame's data rarely spans two lines) to 512 B:
// above, libc's wider accesses win. 2 KiB: mpi_latency 0.44 against 0.39
// us, mpi_bw 2-8 KiB 6.7-7.3 against 7.8-8.9 GB/s. 513 B-1 KiB (AMD EPYC
// with AVX-512, slow latency mode, 6 rounds alternated): mpi_bw 768 B
// 2.2-2.4 against 2.6-3.1 GB/s, 1 KiB 2.4-2.6 against 2.7-3.2, latency
// unchanged (1 KiB 0.69-0.76 against 0.66-0.75 us); fast mode, 2 rounds:
// 1 KiB 12.9 against 12.6-13.9 GB/s. From 257 to 512 B neither led (bw
// 384 B 1.46-1.64 line-copied against 1.32-1.53).
inline constexpr std::size_t kMin = 32;
inline constexpr std::size_t kMax = 512;

// kMin <= n <= kMax in one compare.
inline bool aligned_length(std::size_t n) { return n - kMin <= kMax - kMin; }

// glibc copies from 2112 bytes up with `rep movsb`, which runs 15-30 times
// slower when the destination lies 1 to 63 bytes past the source modulo
// 4 KiB: the CPU takes each store for one to the bytes a later load reads
// (4K aliasing). AMD EPYC VM, 64 KiB: 2.3-3.2 GB/s at 1 or 8 bytes past
// against 50 at 0; 4 and 16 KiB the same; from 1 MiB up not (40-44 GB/s).
// A staged Amsend's chunk into and out of its slot, or an MPI message into
// a buffer 8 bytes off the ring's, hit it by chance of the buffers'
// placement (lapi_bandwidth --op amsend, 64 KiB: 1.8 GB/s in some runs
// against 7-9 in others). Copied backwards, the loads never follow a store
// to their bytes' 4 KiB alias: 33-40 GB/s there (SSE2, 64 bytes a step).
inline constexpr std::size_t kAliasedMin = 2048;
inline constexpr std::size_t kAliasedMax = std::size_t{1} << 20;

inline bool aliased(const void* dst, const void* src, std::size_t n) {
  const std::uintptr_t ahead =
      (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  return n - kAliasedMin < kAliasedMax - kAliasedMin && ahead - 1 < 63;
}

// n >= 16, the two ranges apart: the last 64 bytes first, down to the start.
[[gnu::noinline]] inline void copy_backward(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  std::size_t i = n;
  for (; i >= 64; i -= 64) {
    const auto* from = reinterpret_cast<const __m128i*>(s + i - 64);
    auto* to = reinterpret_cast<__m128i*>(d + i - 64);
    const __m128i a = _mm_loadu_si128(from), b = _mm_loadu_si128(from + 1);
    const __m128i c = _mm_loadu_si128(from + 2), e = _mm_loadu_si128(from + 3);
    _mm_storeu_si128(to + 3, e);
    _mm_storeu_si128(to + 2, c);
    _mm_storeu_si128(to + 1, b);
    _mm_storeu_si128(to, a);
  }
  for (; i >= 16; i -= 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i - 16),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i - 16)));
  }
  if (i != 0) _mm_storeu_si128(reinterpret_cast<__m128i*>(d), first);  // the first 16 again
}

}  // namespace line_copy_detail

// memcpy for large data, but backwards where memcpy's `rep movsb` would
// crawl (line_copy_detail::aliased). The ranges must not overlap.
inline void copy_bulk(void* dst, const void* src, std::size_t n) {
  if (line_copy_detail::aliased(dst, src, n)) [[unlikely]] {
    line_copy_detail::copy_backward(dst, src, n);
  } else {
    std::memcpy(dst, src, n);
  }
}

// memcpy with streaming (non-temporal) stores, for data another core reads
// next and this one does not: the lines go to memory, not first into this
// core's cache from the reader's. The stores are ordered before whatever
// the caller stores next (a publication). The ranges must not overlap.
inline void copy_streaming(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const std::size_t head = std::min(n, (16 - (reinterpret_cast<std::uintptr_t>(d) & 15)) & 15);
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + 64 <= n; i += 64) {
    const auto* from = reinterpret_cast<const __m128i*>(s + i);
    auto* to = reinterpret_cast<__m128i*>(d + i);
    const __m128i a = _mm_loadu_si128(from), b = _mm_loadu_si128(from + 1);
    const __m128i c = _mm_loadu_si128(from + 2), e = _mm_loadu_si128(from + 3);
    _mm_stream_si128(to, a);
    _mm_stream_si128(to + 1, b);
    _mm_stream_si128(to + 2, c);
    _mm_stream_si128(to + 3, e);
  }
  std::memcpy(d + i, s + i, n - i);
  _mm_sfence();
}

// Every store into dst is aligned to its own size (at most 16 bytes) for
// 32 to 512 bytes; other lengths are copy_bulk's.
inline void copy_into_shared(void* dst, const void* src, std::size_t n) {
  if (line_copy_detail::aligned_length(n)) {
    line_copy_detail::copy_aligned<true>(dst, src, n);
  } else {
    copy_bulk(dst, src, n);
  }
}

// Every load from src is aligned to its own size (at most 16 bytes) for
// 32 to 512 bytes; other lengths are copy_bulk's.
inline void copy_out_of_shared(void* dst, const void* src, std::size_t n) {
  if (line_copy_detail::aligned_length(n)) {
    line_copy_detail::copy_aligned<false>(dst, src, n);
  } else {
    copy_bulk(dst, src, n);
  }
}

}  // namespace lapi
