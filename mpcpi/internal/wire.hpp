#pragma once
// What MPCPI puts on the wire: one Amsend handler per message type (the
// table in handlers.cc pairs each with its target-side header handler) and
// the user header of each. All fields are little-endian host order (the
// job is homogeneous); every header is copied out with memcpy and its
// length checked before use.
//
// The envelope is 16 bytes. The source task is not in it: lapi delivers the
// sender's task id with every message (AmHeaderInfo::src), taken from the
// connection rather than from bytes a peer could forge.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace mpcpi::detail {

enum class Msg : std::uint8_t {
  eager,         // envelope + data (standard / buffered below the eager limit)
  ready,         // envelope + sender handle + data; the receiver acks or nacks
  rts,           // request to send: envelope + size + sender handle, no data
  cts,           // clear to send: receiver -> sender, names the receive
  data,          // rendezvous payload, lands in the user's buffer
  ack,           // ready-mode verdict: receiver -> sender
  credit,        // flow control: receiver returns early-arrival credit
  starved,       // flow control: sender holds messages back for lack of credit
  pull,          // flow control: receiver asks for held messages of one context
  cancel_req,    // sender asks to withdraw an unmatched request-to-send
  cancel_reply,  // receiver's answer
  announce,      // receiver -> sender: a posted receive the sender may write into (direct.cc)
  landed,        // sender -> receiver: the message is in the announced buffer
  withdraw,      // receiver -> sender: an announced receive is being cancelled
  withdrawn,     // sender's answer: whether it had already written into it
  revoke,        // a communicator's contexts are revoked (revoke.cc)
  count,
};
inline constexpr std::size_t kMsgCount = static_cast<std::size_t>(Msg::count);

enum EnvelopeFlags : std::uint8_t {
  kCounted = 1,  // carries the receiver's landing counter (counters variant)
  kPulled = 2,   // sent on a pull: outside the credit window, no credit back
};

struct Envelope {
  std::uint32_t context;
  std::int32_t tag;
  std::uint32_t seq;  // per (sender, receiver) pair, in send order
  std::uint8_t mode;  // SendMode
  std::uint8_t flags;  // EnvelopeFlags
  std::uint16_t reserved;
};
static_assert(sizeof(Envelope) == 16);

struct ReadyHeader {
  Envelope env;
  std::uint64_t sender_handle;
};
struct RtsHeader {
  Envelope env;
  std::uint64_t size;
  std::uint64_t sender_handle;
};
struct CtsHeader {
  std::uint64_t sender_handle;
  std::uint64_t receiver_handle;  // 0 when granted == 0
  std::uint64_t granted;          // bytes the receiver takes (<= size)
};
struct DataHeader {
  std::uint64_t receiver_handle;
};
struct AckHeader {
  std::uint64_t sender_handle;
  std::int32_t error;  // mpcpi::Errc
  std::uint32_t reserved;
};
struct CreditHeader {
  std::uint64_t bytes;
  std::uint32_t epoch;  // number of credit messages sent to this peer so far
  std::uint32_t reserved;
};
struct StarvedHeader {
  std::uint32_t next_seq;  // every message with a smaller seq has been sent
  std::uint32_t epoch;     // the latest credit epoch the sender had seen
};
struct PullHeader {
  std::uint32_t context;
  std::uint32_t count;  // messages the sender may send beyond its credit
};
struct CancelReqHeader {
  std::uint64_t sender_handle;
  std::uint32_t context;
  std::uint32_t reserved;
};
struct CancelReplyHeader {
  std::uint64_t sender_handle;
  std::uint32_t cancelled;  // 1: withdrawn, 0: already matched
  std::uint32_t reserved;
};

// Direct landing (direct.cc). Announcement ids count up per (receiver,
// sender) from 1; an announcement is usable only by the message with
// sequence number expected_seq.
enum AnnounceFlags : std::uint32_t {
  kBlockingRecv = 1,  // the receiver waits in the library for it (see send_direct)
};
struct AnnounceHeader {
  std::uint32_t id;
  std::uint32_t expected_seq;
  std::uint32_t context;
  std::int32_t tag;  // or kAnyTag
  std::uint64_t addr;
  std::uint64_t capacity;
  std::uint32_t flags;  // AnnounceFlags
  std::uint32_t reserved;
};
struct LandedHeader {
  Envelope env;
  std::uint64_t bytes;
  std::uint32_t id;
  std::uint32_t failed;  // 1: the write failed; the receive completes with an error
};
struct WithdrawHeader {
  std::uint32_t id;
  std::uint32_t reserved;
};
struct WithdrawnHeader {
  std::uint32_t id;
  std::uint32_t used;  // 1: a landed message for it was sent before this answer
};

struct RevokeHeader {
  std::uint32_t first;          // contexts first .. first + count - 1
  std::uint32_t count;
  std::uint32_t bound_context;  // whose bound members hear it next
  std::uint32_t reserved;
};

inline constexpr std::size_t kMaxHeader = sizeof(AnnounceHeader);
static_assert(sizeof(RtsHeader) <= kMaxHeader && sizeof(LandedHeader) <= kMaxHeader &&
              sizeof(RevokeHeader) <= kMaxHeader);

// Copies a header of exactly sizeof(T) bytes out of a message; nullopt when
// the length is wrong.
template <class T>
std::optional<T> read_header(const void* uhdr, std::size_t len) {
  if (len != sizeof(T) || uhdr == nullptr) return std::nullopt;
  T out;
  std::memcpy(&out, uhdr, sizeof out);
  return out;
}

// Sequence numbers wrap; a is before b when the distance is under 2^31.
inline bool seq_before(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::int32_t>(a - b) < 0;
}

}  // namespace mpcpi::detail
