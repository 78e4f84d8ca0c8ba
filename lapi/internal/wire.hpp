#pragma once
// On-the-wire protocol of the core: one UCX active-message id per message
// kind, each paired with its target-side handler in Engine's handler table
// (engine_init.cc). Every header starts with the sender's task id so a target
// can refuse and report back without trusting anything else in it.

#include <cstdint>

namespace lapi::internal {

enum class Proto : unsigned {
  none = 0,
  amsend = 1,          // user Amsend: AmsendWire + optional words + user header
  counter_update = 2,  // bump a target counter (after Put/Get), maybe ack
  completion_ack = 3,  // target finished: bump the origin's completion counter
  fault = 4,           // target refused a request: FaultWire + text
  rkey_request = 5,    // origin asks for the region covering [addr, addr+len)
  rkey_reply = 6,      // RkeyReplyWire + packed rkey bytes
  fence_request = 7,   // "tell me when you have landed `count` of my Amsends"
  fence_reply = 8,
  barrier = 9,
  address_init = 10,
  rkey_invalidate = 11,  // a region is going away: drop its cached rkey
  rkey_dropped = 12,     // ... done (echoes the token)
  amsend_packed = 13,    // small Amsend as one UCX payload (see kPackedDataLimit)
  wake = 14,             // no-op: wakes a target asleep on its event fd (shm_channel.hpp)
  split_go = 15,         // split copy: the landing buffer and a claim cell, for the origin to help
  split_last = 16,       // split copy: the origin copied the last part
  split_done = 17,       // split copy: landed; the origin's buffer is free again
  // LAPIS_CHECKSUM=crc32c (integrity.hpp):
  checksum_nack = 18,    // ChecksumNackWire: an Amsend arrived damaged, send it again
  checksum_resend = 19,  // ChecksumResendWire + the data again, into the same landing buffer
  checksum_ack = 20,     // ChecksumAckWire: a held Amsend landed intact (or failed for good)
  put_verify = 21,       // PutVerifyWire: CRC32C the origin computed over a Put's data
  put_verdict = 22,      // ChecksumAckWire: the Put's data matched (or not) at the target
  get_check = 23,        // GetCheckWire: ask the target for the CRC32C of a Get's range
  get_check_reply = 24,  // GetCheckReplyWire
  checksum_verified = 25,  // ChecksumVerifiedWire: replay frames that arrived intact
  rmw_request = 26,      // RmwRequestWire: a checksummed Rmw, applied by the target's CPU
  rmw_reply = 27,        // RmwReplyWire: its old value (or why not)
  goodbye = 28,          // GoodbyeWire: a joined task leaves (join.cc); its silence is no failure
  // Striping over several links (LAPIS_LINKS, links.hpp):
  stripe_go = 29,        // SplitGoWire: the target's token and fragment layout (no cell, no buffer)
  stripe_frag = 30,      // StripeFragWire + a fragment's data, when no link to the target is left
  kCount
};

// The AmsendWire handler id of a small Put sent as a frame (users' ids
// start at 1): its user header is the target address (rma.cc, land_put_frame).
inline constexpr std::uint16_t kPutFrameHandler = 0;

// Flags of AmsendWire / CounterUpdateWire.
inline constexpr std::uint16_t kHasTargetCounter = 1u << 0;  // + u64 counter handle
inline constexpr std::uint16_t kHasCompletion = 1u << 1;     // + u64 completion cookie
// AmsendWire only: the "data" is a SplitWire naming the origin's buffer,
// which both tasks copy from (split_copy.cc).
inline constexpr std::uint16_t kSplitData = 1u << 2;
// AmsendWire only: a ChecksumWire follows the optional words.
inline constexpr std::uint16_t kChecksummed = 1u << 3;
// AmsendWire only, with kSplitData: the data comes in fragments over the links (links.hpp)
// rather than by cross-memory attach.
inline constexpr std::uint16_t kStripedData = 1u << 4;
// Shared-memory ring only: not an Amsend but a control message; `handler`
// holds its Proto and its wire struct follows the AmsendWire
// (send_control_near_locked).
inline constexpr std::uint16_t kControlFrame = 1u << 5;
// AmsendWire only, with kSplitData: the origin copies the data through the
// target's staging area right after the frame, each chunk named by the
// origin's record (and with LAPIS_CHECKSUM its own CRC32C; staged_copy.cc).
inline constexpr std::uint16_t kStagedData = 1u << 6;

// Proto::amsend_packed: an Amsend with little data travels as one UCX
// payload with no UCX header: AmsendWire, optional words, user header, data.
// UCX's short-message path moves one contiguous block faster than a header
// plus a data block (about 50 instructions per send on shared memory), and
// the target finds the same layout as Proto::amsend. The user header's
// length, implicit in Proto::amsend, sits in the high byte of the flags.
inline constexpr std::size_t kPackedDataLimit = 256;
inline constexpr std::size_t kPackedUhdrLimit = 255;
inline constexpr unsigned kPackedUhdrShift = 8;

struct AmsendWire {
  std::uint32_t src;
  std::uint16_t handler;
  std::uint16_t flags;
  // followed by [u64 target counter handle] [u64 completion cookie] user header
};
static_assert(sizeof(AmsendWire) == 8);

// LAPIS_CHECKSUM=crc32c: what an Amsend frame carries to be checked and,
// if damaged, sent again (integrity.hpp).
enum class Repair : std::uint8_t {
  replay = 1,  // the origin keeps a copy of the whole frame: `record` is its replay sequence
  held = 2,    // the origin holds its data buffer: `record` is its held-send token
};
// What head_crc covers after the frame's words up to it.
enum class CrcScope : std::uint8_t {
  uhdr = 0,      // the user header; data_crc covers the data
  uhdr_data = 1, // the user header and the data after it (a packed frame in
                 // the shared-memory ring: one CRC pass each side, data_crc unused)
};
struct ChecksumWire {
  std::uint64_t record;
  std::uint32_t data_crc;   // CRC32C of the frame's data (for a split frame: its descriptor)
  std::uint32_t split_crc;  // split frames: CRC32C of the data in the origin's buffer
  std::uint16_t attempt;    // 0, then one more per retransmission
  std::uint8_t repair;      // Repair
  std::uint8_t scope;       // CrcScope
  std::uint32_t head_crc;   // CRC32C of the frame up to here, then of what scope says
};
static_assert(sizeof(ChecksumWire) == 24);

// Lapis' words before the user header (the checksum only with LAPIS_CHECKSUM).
inline constexpr std::size_t kMaxAmsendOverhead = sizeof(AmsendWire) + 2 * sizeof(std::uint64_t);

// Split copy (same node, cross-memory attach): a large Amsend's data stays
// in the origin's buffer until the header handler has named the landing
// buffer; then both tasks copy parts of it (split_copy.cc).
struct SplitWire {
  std::uint64_t addr;  // origin buffer
  std::uint64_t len;
  std::uint64_t id;    // the origin's record, echoed back
};

// What a task publishes in the bootstrap exchange so that peers on its node
// can check that they may read and write its memory.
struct SplitAddress {
  std::uint32_t pid = 0;    // 0: split copy off here
  std::uint32_t reserved = 0;
  std::uint64_t probe = 0;  // address of a word holding kSplitProbe
};
inline constexpr std::uint64_t kSplitProbe = 0x6c61706973706c74;  // "lapisplt"

struct SplitGoWire {
  std::uint32_t src;
  std::uint32_t cell;        // claim cell, after the origin's ring in the target's inbox
  std::uint64_t id;          // origin's record
  std::uint64_t token;       // target's record, echoed in split_last
  std::uint64_t buffer;      // landing buffer at the target
  std::uint64_t part_bytes;  // part k is [k * part_bytes, (k+1) * part_bytes) of the data
  std::uint32_t parts;
  std::uint32_t generation;  // of the cell
};

struct SplitDoneWire {
  std::uint32_t src;
  std::int32_t code;     // split_done: Errc::success or why the data did not land
  std::uint64_t record;  // split_last: target token; split_done: origin id
};

struct StripeFragWire {
  std::uint32_t src;
  std::uint32_t index;  // fragment `index` of ...
  std::uint64_t token;  // ... the target's stripe record
};

struct CounterUpdateWire {
  std::uint32_t src;
  std::uint16_t flags;
  std::uint16_t reserved;
  std::uint64_t counter;  // target counter handle (0 = none)
  std::uint64_t cookie;   // completion cookie (valid with kHasCompletion)
};

struct CompletionAckWire {
  std::uint32_t src;
  std::uint32_t reserved;
  std::uint64_t cookie;
};

struct FaultWire {
  std::uint32_t src;
  std::int32_t code;     // lapi::Errc value
  std::uint64_t cookie;  // completion cookie of the refused request, 0 if none
  // followed by a short text naming what was wrong (not NUL-terminated)
};

struct RkeyRequestWire {
  std::uint32_t src;
  std::uint32_t reserved;
  std::uint64_t addr;
  std::uint64_t len;
  std::uint64_t token;  // echoed in the reply
};

struct RkeyReplyWire {
  std::uint32_t src;
  std::int32_t code;    // Errc::success or why not
  std::uint64_t token;
  std::uint64_t base;   // registered region covering the request
  std::uint64_t len;
  // followed by the packed rkey
};

struct RkeyInvalidateWire {
  std::uint32_t src;
  std::uint32_t reserved;
  std::uint64_t base;
  std::uint64_t token;
};

struct FenceWire {
  std::uint32_t src;
  std::uint32_t reserved;
  std::uint64_t count;  // request: Amsends sent to the target so far; reply: echoed
};

struct BarrierWire {
  std::uint32_t src;
  std::uint32_t round;
  std::uint64_t epoch;
};

struct WakeWire {
  std::uint32_t src;
  std::uint32_t reserved;
};

struct GoodbyeWire {
  std::uint32_t src;
  std::uint32_t reserved;
};

struct AddressInitWire {
  std::uint32_t src;
  std::uint32_t reserved;
  std::uint64_t epoch;
  std::uint64_t value;
};

struct ChecksumNackWire {
  std::uint32_t src;
  std::uint16_t attempt;  // of the damaged transmission
  std::uint8_t repair;    // Repair
  std::uint8_t whole;     // held: 1 = resend the whole Amsend (its head was damaged), 0 = the data;
                          // replay: kNackGaveUp = the target refused it for good
  std::uint64_t record;   // the origin's, from the ChecksumWire
  std::uint64_t token;    // held data: the target's record of the landing, echoed in checksum_resend
};

inline constexpr std::uint8_t kNackGaveUp = 2;

// Replay frames the target found intact, reported as runs of consecutive
// sequence numbers (the origin may then let its replay ring overwrite
// them). Frames arrive mostly in order, so one report covers many: each
// report is a UCX message, and UCX traffic makes the receiver progress
// UCX on every poll for a while, which slows its shared-memory rings.
inline constexpr std::size_t kVerifiedRuns = 16;        // per report
inline constexpr std::uint32_t kVerifiedFrames = 1024;  // per report at most
inline constexpr std::size_t kVerifiedBytes = 256 * 1024;  // a quarter of a replay ring
struct VerifiedRun {
  std::uint64_t first;
  std::uint64_t count;  // 1..kVerifiedFrames
};
struct ChecksumVerifiedWire {
  std::uint32_t src;
  std::uint32_t count;  // of runs[] in use
  VerifiedRun runs[kVerifiedRuns];
};

struct ChecksumResendWire {
  std::uint32_t src;
  std::uint16_t attempt;
  std::uint16_t reserved;
  std::uint64_t token;    // from the nack
  std::uint32_t data_crc;
  std::uint32_t reserved2;
};

struct ChecksumAckWire {
  std::uint32_t src;
  std::int32_t code;      // Errc::success, or Errc::data_corrupt
  std::uint64_t record;   // the origin's token
};

struct PutVerifyWire {
  std::uint32_t src;
  std::uint16_t attempt;
  std::uint16_t flags;    // kHasTargetCounter, kHasCompletion: what the target does when intact
  std::uint64_t token;    // the origin's record, echoed in the verdict
  std::uint64_t addr;     // the Put's target range
  std::uint64_t len;
  std::uint32_t crc;
  std::uint32_t reserved;
  std::uint64_t counter;  // target counter handle (with kHasTargetCounter)
  std::uint64_t cookie;   // completion cookie (with kHasCompletion)
};

struct GetCheckWire {
  std::uint32_t src;
  std::uint32_t reserved;
  std::uint64_t token;
  std::uint64_t addr;
  std::uint64_t len;
};

struct GetCheckReplyWire {
  std::uint32_t src;
  std::int32_t code;      // Errc::success or why the range cannot be read
  std::uint64_t token;
  std::uint32_t crc;
  std::uint32_t reserved;
};

// LAPIS_CHECKSUM=crc32c: an Rmw travels as a request the target applies
// itself, so that its operands can be checked before they are applied and
// its result after it came back (integrity_rmw.cc). `crc` covers every byte
// before it.
struct RmwRequestWire {
  std::uint32_t src;
  std::uint16_t attempt;
  std::uint8_t op;      // lapi::RmwOp
  std::uint8_t width;   // 4 or 8
  std::uint64_t token;  // the origin's record, echoed in the reply
  std::uint64_t addr;
  std::uint64_t operand;
  std::uint64_t compare;
  std::uint64_t oldest;  // no record of this origin below it is still waiting: the
                         // target may forget the results it keeps for them
  std::uint32_t retry;   // RmwRetry: why this is sent again
  std::uint32_t crc;
};

enum class RmwRetry : std::uint32_t {
  first = 0,
  request_damaged = 1,  // the target found the last request damaged
  reply_damaged = 2,    // the origin found the last reply damaged
};

struct RmwReplyWire {
  std::uint32_t src;
  std::int32_t code;      // Errc::success, data_corrupt (the request arrived damaged), not_registered
  std::uint64_t token;
  std::uint64_t old;      // the target word before the Rmw (width bytes, little end first)
  std::uint16_t attempt;  // of the request answered
  std::uint16_t reserved;
  std::uint32_t crc;      // over every byte before it
};

}  // namespace lapi::internal
