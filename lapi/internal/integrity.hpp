#pragma once
// End-to-end data integrity (LAPIS_CHECKSUM=crc32c), after LA-MPI: every
// byte the core moves for the user carries a CRC32C computed from the
// origin's buffer (while it is copied, where it is copied anyway), and the
// destination checks it once the bytes are in place, before a completion
// handler, counter or ack reports them. A damaged transfer is repeated, at
// most kMaxAttempts times in all; after that the operation fails with
// Errc::data_corrupt (on the counters that name it, and through the remote
// error handler), never delivered damaged.
//
// Who repeats what, and why (the simplest scheme that needs no timers):
//   * Small Amsend frames (shared-memory ring, UCX eager; at most
//     kReplayFrameLimit bytes): the destination sees the whole frame before
//     the header handler runs, so it checks the frame there and drops a
//     damaged one unseen, then NACKs it (checksum_nack). The origin keeps a
//     copy of each frame it sent in a per-target replay ring (filled by the
//     same CRC-while-copying pass) and sends the copy again. Its origin
//     counter moves at once as without checksums, so small-message latency
//     pays only the CRC and the copy, no acknowledgement of its own: the
//     target reports the frames it found intact, as runs of sequence
//     numbers, every kVerifiedFrames frames or kVerifiedBytes bytes
//     (checksum_verified). A frame the ring would overwrite
//     before its batch came back (a target far behind, UCX holding the
//     traffic) is first moved out of the ring, so every NACK finds its frame.
//   * Rendezvous Amsends (UCX pulls the data into the landing buffer after
//     the header handler ran): the origin holds its buffer; its origin
//     counter moves only when the target acks (checksum_ack). A damaged
//     pull is NACKed with a token for the landing; the origin sends the
//     data again (checksum_resend) into the same buffer, so the header
//     handler never runs twice.
//   * Split copy: the origin's buffer is held until split_done anyway, so
//     the target, which can read it, copies the damaged data again itself.
//   * Small Put (at most 2 KiB, below the eager limit): a small Amsend frame
//     to kPutFrameHandler (wire.hpp), which lands the data at the target
//     address the frame carries. Its origin counter moves at once; nothing
//     waits for a verdict.
//   * Larger Put: the origin checksums its buffer, holds its origin counter,
//     and after the Put is flushed asks the target to check the range
//     (put_verify); on a mismatch it puts again. The target moves its
//     counter (and acks the completion counter) as soon as it finds the
//     range intact, as the counter update of an unchecked Put would; the
//     origin counter moves when the verdict comes back.
//   * Get: the origin asks the target for the range's CRC (get_check) after
//     the data arrived, and gets again on a mismatch.
//   * Rmw: instead of a UCX atomic (carried out with no Lapis code at the
//     target, so nothing could check an operand before it is applied), the
//     origin sends a checksummed request (rmw_request) and the target's CPU
//     applies it. A damaged request is answered data_corrupt unapplied and
//     sent again; a damaged reply makes the origin ask again with the same
//     token, and the target answers from the results it keeps per origin
//     (an atomic must not be applied twice), forgetting them once the
//     origin reports, in a later request, that it no longer waits for them.
//
// Damage to Lapis' own routing words of a frame (its source, its replay
// sequence or token) is detected like any other, but the NACK then goes to
// whatever those words name: such a frame is refused, not repaired.
// Fault injection (LAPIS_FAULT_CORRUPT) therefore flips bits only in the
// user's bytes (user header and data), and only in first transmissions,
// so each injected fault is one mismatch and, after one retransmission, one
// repair. With N = 1 it damages every transmission, retransmissions too, so
// every operation on the path fails after kMaxAttempts.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "counters/counter.hpp"
#include "handlers/handler.hpp"
#include "lapi/config.hpp"
#include "lapi/internal/completion.hpp"
#include "lapi/internal/replay_ring.hpp"
#include "lapi/internal/wire.hpp"

namespace lapi::internal {

inline constexpr std::uint16_t kMaxAttempts = 4;  // a transfer and three retransmissions

// The last frames sent to one target, overwritten oldest first.
// Target side of checksum_verified: the replay frames from one origin found
// intact and not yet reported.
struct VerifiedBatch {
  std::uint32_t runs = 0;    // in use
  std::uint32_t frames = 0;  // in them
  std::size_t bytes = 0;     // their frames' bytes (about what they take in the ring)
  std::array<VerifiedRun, kVerifiedRuns> run{};
};

// Where LAPIS_FAULT_CORRUPT damages data: one transfer in `every` per path.
class FaultInjector {
 public:
  explicit FaultInjector(FaultCorrupt f = {}) : config_(f) {}
  // Whether LAPIS_FAULT_CORRUPT names any path (the hot paths ask first).
  bool armed() const { return config_.paths != 0; }
  // Whether to damage this transfer on `path` (a CorruptPath bit), the
  // `attempt`-th transmission of its data: first transmissions only, except
  // with N = 1, which damages every transmission (so that the operation
  // fails after its retries: the failure path's test).
  bool due(std::uint32_t path, std::uint16_t attempt);
  // Flips one bit of [p, p + len) (no-op when len is 0).
  void flip(void* p, std::size_t len);

 private:
  FaultCorrupt config_;
  std::array<std::uint64_t, 8> seen_{};
  std::uint64_t rng_ = 0x9e3779b97f4a7c15;
};

struct IntegrityStats {
  std::atomic<std::uint64_t> mismatches{0};
  std::atomic<std::uint64_t> retransmissions{0};
  std::atomic<std::uint64_t> repaired{0};
  std::atomic<std::uint64_t> failures{0};
  std::atomic<std::uint64_t> injected{0};
};

// The origin of a rendezvous Amsend, until the target acks.
struct HeldSend {
  std::uint32_t tgt;
  const void* data;
  std::size_t len;
  Counter* origin;
  std::uint32_t data_crc;
  std::vector<std::byte> head;  // the frame up to the data, to send it whole again
};

// The target of a damaged held Amsend, until its data arrives intact.
struct PendingLanding {
  CompletionJob job;
  void* buffer;
  std::size_t len;
  std::uint64_t record;   // the origin's HeldSend token
  std::uint16_t attempt;  // of the retransmission awaited
};

// The destination's check of landed data (rendezvous or a resend).
struct DataCheck {
  bool on = false;
  std::uint16_t attempt = 0;
  std::uint32_t crc = 0;
  std::uint32_t split_crc = 0;  // a split frame's: CRC32C of the data at the origin
  std::uint64_t record = 0;     // origin's HeldSend token
};

// The origin of a Put, until the target's verdict.
struct HeldPut {
  std::uint32_t tgt;
  const void* data;
  std::size_t len;
  std::uint64_t tgt_addr;
  std::uint32_t crc;
  std::uint16_t attempt;
  Counter* origin;
  std::uint64_t target_counter;
  Counter* completion;
  std::uint64_t cookie;  // completion's cookie, registered once for every attempt (0: none)
  void* rkey;            // ucp_rkey_h
  void* mapped;          // the target range as mapped here (shared memory), else null
};

// The origin of a Get, until its data checks.
struct HeldGet {
  std::uint32_t tgt;
  void* data;
  std::size_t len;
  std::uint64_t tgt_addr;
  std::uint16_t attempt;
  Counter* origin;
  std::uint64_t target_counter;
  void* rkey;  // ucp_rkey_h
};

// The origin of a checksummed Rmw, until its result arrives intact.
struct HeldRmw {
  std::uint32_t tgt;
  std::uint8_t op;
  std::uint8_t width;
  std::uint16_t attempt;
  RmwRetry retry;  // why the request is sent again: whoever found the damage counts the repair
  std::uint64_t addr;
  std::uint64_t operand;
  std::uint64_t compare;
  void* prev;  // the caller's result slot (width bytes), may be null
  Counter* origin;
};

// What the target answered to one Rmw (kept until the origin moves past it).
struct RmwResult {
  std::int32_t code;
  std::uint64_t old;
};

struct Integrity {
  bool on = false;  // LAPIS_CHECKSUM=crc32c
  FaultInjector injector;
  IntegrityStats stats;
  std::vector<ReplayRing> replay;  // per target (sized at start; each ring allocates on first use)
  std::vector<VerifiedBatch> verified;  // per origin (sized at start): intact replay frames not yet reported
  std::uint64_t next_token = 1;    // held records; never reused
  std::unordered_map<std::uint64_t, HeldSend> held_sends;
  std::unordered_map<std::uint64_t, PendingLanding> pending_landings;
  std::unordered_map<std::uint64_t, HeldPut> held_puts;
  std::unordered_map<std::uint64_t, HeldGet> held_gets;
  std::map<std::uint64_t, HeldRmw> held_rmws;  // ordered: the oldest is the first
  std::vector<std::map<std::uint64_t, RmwResult>> rmw_results;  // per origin, sized on first use
  std::uint32_t next_split_crc = 0;  // split_crc of the frame being sealed

  // LAPIS_FAULT_CORRUPT: flips a bit of [p, p + len) and counts it when the
  // injector says this transmission on `path` is due (FaultInjector::due).
  void corrupt_if_due(std::uint32_t path, std::uint16_t attempt, void* p, std::size_t len) {
    if (!injector.due(path, attempt)) return;
    stats.injected.fetch_add(1, std::memory_order_relaxed);
    injector.flip(p, len);
  }
};

// Seals a checksummed Amsend frame: `sum` (its data_crc set, unless its
// scope covers the data) goes at `sum_off`, with head_crc over the frame
// before it and the `after` bytes after it (the user header, and the data
// too with CrcScope::uhdr_data).
void seal_frame(std::byte* frame, std::size_t sum_off, std::size_t after, ChecksumWire sum);
// head_crc as seal_frame computes it, for the frame as it arrived.
std::uint32_t head_crc(const std::byte* frame, std::size_t sum_off, std::size_t after);

}  // namespace lapi::internal
