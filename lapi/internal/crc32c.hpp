#pragma once
// CRC32C (Castagnoli), the checksum of LAPIS_CHECKSUM=crc32c (integrity.hpp).
//
// With SSE4.2 (checked at run time) the bytes go through the CPU's CRC32
// instruction, three independent streams at a time so that its three-cycle
// latency does not bound the rate; the three partial CRCs are joined with
// precomputed "append N zero bytes" operators (Mark Adler's method). From
// 256 bytes up, a CPU with AVX-512 VPCLMULQDQ folds instead, over twice as
// fast, and from 4 KiB, where nothing is copied, folds beside three CRC32
// chains (crc32c_fold.hpp: the hybrid). A CPU without SSE4.2 falls back to
// a byte-wise table loop.
//
// crc32c_copy moves the bytes while it checksums them: where the data is
// copied anyway (into a shared-memory ring, a packed frame, a replay copy)
// the checksum costs no extra pass over memory.

#include <cstddef>
#include <cstdint>

namespace lapi::internal {

// CRC32C of [data, data + len) continued from `crc` (0 to start), the
// standard one: crc32c_extend(0, "123456789", 9) == 0xe3069283.
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t len);

// crc32c_extend(crc32c_extend(crc, a, a_len), b, b_len) in one call (a
// frame's head around its checksum words).
std::uint32_t crc32c_extend2(std::uint32_t crc, const void* a, std::size_t a_len, const void* b,
                             std::size_t b_len);

// memcpy(dst, src, len) (no overlap) returning crc32c_extend(crc, src, len).
std::uint32_t crc32c_copy(void* dst, const void* src, std::size_t len, std::uint32_t crc);

// crc32c_copy for a large copy into memory that another CPU reads next (a
// Put into a task's mapped memory, which the task then checks). From
// kUncachedMin bytes, where the CPU folds, the stores bypass this CPU's
// caches, so the reader does not pull lines back and forth with the next
// copy to the same place; below, memcpy and then the CRC of the source,
// since the CPU's string copy holds up under such sharing far better than
// vector stores do (lapi_bandwidth --op put --checksum none,crc32c; the
// figures are in the README's checksum section).
inline constexpr std::size_t kUncachedMin = 512 * 1024;
std::uint32_t crc32c_copy_uncached(void* dst, const void* src, std::size_t len, std::uint32_t crc);

// crc32c_copy with streaming stores at any length (every checked staged
// chunk of 16 KiB or more, staged_copy.cc's copy_chunk_in); a store fence
// ends it.
std::uint32_t crc32c_copy_streaming(void* dst, const void* src, std::size_t len, std::uint32_t crc);

// Whether the SSE4.2 instruction is used (tests, lapis_info).
bool crc32c_hardware();

}  // namespace lapi::internal
