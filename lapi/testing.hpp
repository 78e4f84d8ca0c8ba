#pragma once
// Test-only hooks into the core: inject raw protocol messages so tests can
// check that a target refuses malformed or hostile requests.

#include <cstddef>
#include <cstdint>

#include "lapi/context.hpp"

namespace lapi::testing {

// Sends a raw UCX active message with protocol id `am_id` and the given
// header bytes (no Lapis framing added) to `tgt`, and waits until it was sent.
Status send_raw(Context& ctx, TaskId tgt, unsigned am_id, const void* header,
                std::size_t header_len, const void* data, std::size_t data_len);

// Writes `frame` (raw bytes, no Lapis framing added) into tgt's
// shared-memory ring, with `claimed_len` (0: the true length) as its
// length. Errc::tgt when tgt is not reached through shared memory,
// Errc::transport when the ring is full or tgt sleeps.
Status shm_send_raw(Context& ctx, TaskId tgt, const void* frame, std::size_t len,
                    std::uint32_t claimed_len);

// Publishes a chunk with these words and `len` bytes of `data` as this
// task's next one in tgt's staging area (LAPIS_CHECKSUM=crc32c,
// staged_copy.cc). Errc::tgt when tgt has no staging area for this task,
// Errc::hdr_len when len is past a chunk, Errc::transport when every slot
// is taken.
Status stage_send_raw(Context& ctx, TaskId tgt, std::uint64_t token, std::uint64_t offset,
                      const void* data, std::uint32_t len, std::uint32_t crc);

// Whether tgt, reached through shared memory, has announced that it sleeps
// on its event fd.
bool shm_peer_sleeping(Context& ctx, TaskId tgt);
// Whether one of the sleepers is an application thread waiting in the library.
bool shm_peer_waiter_asleep(Context& ctx, TaskId tgt);

}  // namespace lapi::testing
