#pragma once

#include <cstdint>

namespace lapi {

// Traffic of the intra-node shared-memory channel (LAPIS_SHM): small
// Amsends to tasks on this node go through rings in shared memory.
struct ShmStats {
  std::uint64_t sent = 0;         // frames written into a peer's ring
  std::uint64_t received = 0;     // frames taken from this task's rings
  std::uint64_t ring_full = 0;    // frames that found the ring full
  std::uint64_t ring_queued = 0;  // of those, Amsends kept in order until it had room (the rest: UCX)
  std::uint64_t peer_asleep = 0;  // sends that went through UCX: target asleep
  std::uint64_t wakes = 0;        // UCX wake-ups sent after a ring write
  std::uint32_t peers = 0;        // tasks reached through shared memory
  // Split copy (LAPIS_SPLIT_COPY): large Amsends copied by both tasks.
  std::uint64_t split_sent = 0;
  std::uint64_t split_received = 0;
  std::uint64_t split_parts_helped = 0;  // parts this task wrote into its targets' buffers
  std::uint32_t split_peers = 0;  // tasks whose memory this task can reach
  // Of the split ones: copied through the target's staging area instead
  // (large Amsends with an origin counter, lapi/internal/staged_copy.cc).
  std::uint64_t staged_sent = 0;
  std::uint64_t staged_received = 0;
  // Staged Amsends whose rest the target began to read itself (their origin
  // stayed out of the library), and the reads it stopped because the origin
  // came back (it pushes the rest; one Amsend may be read and stopped again).
  std::uint64_t staged_pulled = 0;
  std::uint64_t staged_pulls_cut = 0;
  // Chunks an origin copied into the staging area with streaming stores
  // (where its cached copy ran slower; lapi/internal/stage_copy_choice.hpp).
  std::uint64_t staged_streamed = 0;
  // Puts and Gets to tasks on this node that this task moved itself: by a
  // copy into or out of UCX's mapping of the target's region (memory from
  // alloc_registered), or by cross-memory attach (other registered memory).
  // The rest went through UCX.
  std::uint64_t rma_mapped = 0;
  std::uint64_t rma_cma = 0;
};

}  // namespace lapi
