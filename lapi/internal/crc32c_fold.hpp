#pragma once
// CRC32C of long buffers by carry-less multiplication (crc32c.cc's large
// path): 256 bytes per loop turn in four AVX-512 registers, each 128-bit
// lane folded forward with VPCLMULQDQ, then the folded 64 bytes through the
// CRC32 instruction. About 60 GB/s per core here against 25-28 GB/s for the
// three CRC32 streams, which one instruction per 8 bytes bounds.
//
// The fold keeps the message's value modulo the CRC polynomial at the same
// distance from its end, so the CRC of the folded block is the CRC of the
// bytes it replaced (Intel, "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ Instruction", 2009); the constants are computed at load
// time from the polynomial rather than copied in.

#include <cstddef>
#include <cstdint>

namespace lapi::internal {

// Whether this CPU and OS run the folding code (AVX-512F, VPCLMULQDQ and
// SSE4.2, with the OS saving the 512-bit registers). False under valgrind,
// which hides AVX-512.
bool crc32c_fold_supported();

// Bytes the fold needs at least: below, the three CRC32 streams are faster.
inline constexpr std::size_t kFoldMin = 256;

// The raw CRC register (no inversions) continued from `raw` over `len`
// bytes, a multiple of 256 and at least kFoldMin; copies them to `dst`
// too when it is not null. Only when crc32c_fold_supported().
std::uint32_t crc32c_fold_raw(std::uint32_t raw, unsigned char* dst, const unsigned char* src,
                              std::size_t len);

// The hybrid: a long buffer's front part folded as above while three CRC32
// chains take the rest, three streams behind it, in the same loop (the fold
// waits on the carry-less multiplier, the CRC32 instruction runs on another
// port), the four joined by carry-less products at the end. Each loop turn
// covers kHybridTurn bytes. Continues the raw register *raw over the
// longest multiple of kHybridTurn bytes at most `len` (at least
// kHybridMin) and returns how many that was. Only when
// crc32c_fold_supported().
inline constexpr std::size_t kHybridWords = 5;  // per stream and turn
inline constexpr std::size_t kHybridTurn = 256 + 3 * 8 * kHybridWords;
inline constexpr std::size_t kHybridMin = 4096;
std::size_t crc32c_hybrid_raw(std::uint32_t* raw, const unsigned char* src, std::size_t len);

// crc32c_fold_raw copying to `dst` (64-byte aligned) with streaming stores,
// which bypass this CPU's caches, then a store fence.
std::uint32_t crc32c_fold_stream_raw(std::uint32_t raw, unsigned char* dst,
                                     const unsigned char* src, std::size_t len);

}  // namespace lapi::internal
