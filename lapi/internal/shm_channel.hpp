#pragma once
// Intra-node channel for small Amsends: one single-producer ring per
// (source, target) pair in shared memory, owned by the target.
//
// Why: on one node a small message through UCX's active messages costs
// about 240 instructions to send and a FIFO descriptor round on receipt; a
// frame written into a slot the target polls costs a copy and one release
// store (the same way Open MPI's vader and MPICH's nemesis avoid their
// network layers on a node). The frame layout is Proto::amsend_packed's, so
// the target validates and lands it through the same code as a UCX frame.
//
// Each task creates an inbox: a header (sleeper count, one consumed count
// per source, each on its own cache line) and a ring of fixed slots per
// source. A sender maps only the header and its own ring. Positions count
// slots; a frame takes one or more consecutive slots (never wrapping: a pad
// record fills the ring's tail first). A frame at position n is complete
// once the ticket of its first slot equals n + 1 in 32 bits (ticket_for;
// release store after the bytes); the target lands it in place, zeroes the
// ticket words of the slots after the first that the frame covered (so
// stale payload can never pass for a ticket) and then publishes its
// consumed count.
//
// Sleeping targets: a waiter that blocks on the UCX event fd first raises
// its inbox's sleeper count and then checks its rings once more; a sender
// stores the ticket and then reads the count, so one of them sees the
// other. That needs a store-load barrier on both sides. The sender's, a
// locked instruction, waited for the frame's stores to reach the target's
// cache lines: 96% of publish's samples and a fifth of all time in an 8 B
// bi-directional stream (perf). So where the kernel offers it, the
// waiter's side carries both: after raising its count it runs
// membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED), a full barrier on every
// running thread of the processes registered for it (each registers at
// create), and senders to a target whose inbox header says so store with
// release order and load plainly (an asymmetric fence, as userspace RCU
// uses). A sleep costs a system call and an interrupt on the other busy
// cores; a message costs no barrier. Without membarrier both sides stay
// sequentially consistent, and so do tasks that start in interrupt mode,
// which sleep on nearly every wait. A sender that finds the
// target asleep sends over UCX instead, or, when it finds out only after
// writing the slot, sends a UCX wake-up message. Progress threads in
// interrupt mode sleep most of the time, so their peers mostly use UCX.
//
// All methods are called with the engine lock held.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lapi/shm_stats.hpp"

namespace lapi::internal {

// What a task publishes (appended to its UCX address in the bootstrap
// exchange) so that tasks on its node can map its inbox.
struct ShmAddress {
  std::uint64_t magic = 0;  // kShmAddressMagic when `name` is valid
  std::uint64_t node = 0;   // host identity: hash of host name and boot id
  char name[48] = {};       // shm_open name of the inbox, NUL-terminated
};
static_assert(sizeof(ShmAddress) == 64);

inline constexpr std::uint64_t kShmAddressMagic = 0x6c61706973686d31;  // "lapishm1"

enum class ShmSend : std::uint8_t {
  done,       // in the ring
  done_wake,  // in the ring, but the target sleeps: wake it through UCX
  full,       // ring full: send through UCX
  asleep,     // target sleeps: send through UCX, which wakes it
};

// Same host, same kernel (a hash of host name and boot id, never 0): tasks that can share
// /dev/shm. Published by every task, with or without an inbox.
std::uint64_t node_identity();

// Whole pages: every part of an inbox is mapped on its own, at a page offset.
constexpr std::size_t shm_page_round(std::size_t n) { return (n + 4095) / 4096 * 4096; }

class ShmChannel {
 public:
  static constexpr std::size_t kSlotBytes = 576;  // 9 cache lines; 64 slots = 9 pages
  static constexpr std::size_t kSlots = 128;
  // ticket, length: 8 bytes, so that a small frame fits the slot's first line with 8 more
  // bytes (an MPI message of up to 32 B, or of 8 B with LAPIS_CHECKSUM's 24-byte words; a
  // second line cost about 50 ns of latency in the slow latency mode).
  static constexpr std::size_t kSlotHeader = 8;
  // Largest frame: 15 slots, so a ring holds at least 8 of them.
  static constexpr std::size_t kFrameLimit = 15 * kSlotBytes - kSlotHeader;
  // Prefetch distances, in slots (one small frame each), for a stream of
  // small frames: the sender fetches a slot's first line for writing this
  // far ahead of the one it writes next, the target the frame this far
  // ahead of the one it reads. Together they raised the 8 B message rate
  // by about 13% (mpi_msgrate, 8 alternated runs: 0.82x Open MPI's without,
  // 0.93x with); either alone gained less, and other distances from 2 to
  // 16 slots about the same.
  static constexpr std::uint64_t kWritePrefetchSlots = 8;
  static constexpr std::uint64_t kReadPrefetchSlots = 4;
  // How much of a frame is fetched at once: by poll, of an arriving frame
  // for reading, and by begin_send, of the slot's lines for writing
  // (claim_lines, shm_channel.cc).
  static constexpr std::size_t kPrefetchFrameBytes = 2048;

  ShmChannel() = default;
  ~ShmChannel();
  ShmChannel(const ShmChannel&) = delete;
  ShmChannel& operator=(const ShmChannel&) = delete;

  // Creates this task's inbox. On failure the channel stays off (every
  // message then goes through UCX) and `error` says why.
  bool create(std::uint32_t me, std::uint32_t ntasks, ShmAddress& out, std::string& error);
  // For a peer on this node: watches its ring in our inbox, and maps our
  // ring in its inbox. False when the peer is elsewhere or its inbox
  // cannot be mapped: messages to it then go through UCX.
  bool attach(std::uint32_t peer, const ShmAddress& addr);
  // Once every peer has attached: drop the name; the mappings stay.
  void unlink();
  // Unmaps everything (after the job's last message).
  void close();

  bool reaches(std::uint32_t tgt) const {
    return tgt < out_.size() && out_[tgt].ring != nullptr;
  }
  bool receiving() const { return !in_.empty(); }
  // Whether `p` points into this task's inbox (a frame from a ring).
  bool owns(const void* p) const {
    const auto* b = static_cast<const std::byte*>(inbox_);
    return b != nullptr && p >= b && static_cast<const std::byte*>(p) < b + inbox_bytes_;
  }

  // A frame of `len` (<= kFrameLimit) bytes written in place: begin_send
  // returns where to write it, or nullptr with the reason in `why` (full,
  // asleep: send through UCX instead); end_send publishes it. The caller
  // holds the engine lock from one to the other. A `quiet` frame goes into
  // the ring even while the target sleeps, and end_send asks for a wake-up
  // (done_wake) only while one of its application threads sleeps in a
  // wait: for messages the target's application looks for itself (it calls
  // the library), which its progress thread need not be woken for.
  std::byte* begin_send(std::uint32_t tgt, std::size_t len, ShmSend& why, bool quiet = false);
  ShmSend end_send(std::uint32_t tgt, std::size_t len, bool quiet = false);
  // A frame refused for a full ring went through UCX (ShmStats::ring_full;
  // a queued one, ring_backlog.hpp, only once it takes UCX).
  void note_ring_full() { ++stats_.ring_full; }

  // begin_send, copy header bytes and then data bytes, end_send.
  // `claimed_len` (tests only) is written as the frame's length instead of
  // the true one.
  ShmSend send(std::uint32_t tgt, const void* header, std::size_t header_len, const void* data,
               std::size_t data_len, std::uint32_t claimed_len = 0);
  // Whether `tgt` announced a sleep (tests).
  bool peer_sleeping(std::uint32_t tgt) const {
    return reaches(tgt) &&
           std::atomic_ref<std::uint32_t>(*out_[tgt].sleepers).load(std::memory_order_acquire) != 0;
  }
  // Whether a thread of this task announced a sleep.
  bool self_sleeping() const {
    return my_sleepers_ != nullptr &&
           std::atomic_ref<std::uint32_t>(*my_sleepers_).load(std::memory_order_relaxed) != 0;
  }
  // The owner's polls while it has split sends out (InboxHeader::polls).
  void note_poll() {
    if (my_polls_ == nullptr) return;
    std::atomic_ref<std::uint64_t>(*my_polls_).store(++polls_, std::memory_order_relaxed);
  }
  std::uint64_t peer_polls(std::uint32_t src) const {
    return std::atomic_ref<std::uint64_t>(*out_[src].polls).load(std::memory_order_relaxed);
  }
  // Whether one of `tgt`'s application threads sleeps in a wait (tests).
  bool peer_waiter_asleep(std::uint32_t tgt) const {
    return reaches(tgt) &&
           std::atomic_ref<std::uint32_t>(*out_[tgt].waiters_asleep).load(std::memory_order_acquire) != 0;
  }

  // Hands each waiting frame to deliver(src, frame, len, room) (at most a
  // batch per source); returns whether there was any. `len` is the
  // sender's claim: deliver must refuse a frame longer than `room`, the
  // bytes readable from `frame` on. deliver returns whether the source's
  // batch goes on (false: it did long work, and the caller should look at
  // its other channels before the next frame).
  template <typename Deliver>
  bool poll(Deliver&& deliver);
  // Whether a frame waits (for a waiter about to sleep).
  bool pending() const;

  // Before create: keep both sides of the sleep hand-shake sequentially
  // consistent even where membarrier is offered (tests of either way).
  void forgo_membarrier() { membarrier_allowed_ = false; }
  // Before create: each source's ring gets a staging area (staged_copy.cc),
  // which every task of the job must agree on (LAPIS_CHECKSUM=crc32c):
  // attach refuses an inbox laid out otherwise.
  void enable_stages() { stages_ = true; }
  // Tests, once attached and before any frame: every ring to and from this task starts at
  // `position` (a job that has sent that many slots), to cross the 32-bit ticket's wrap.
  void start_rings_at(std::uint64_t position) {
    for (Outbox& o : out_) o.next = o.writing = o.consumed_seen = position;
    for (Inbox& in : in_) {
      in.next = position;
      std::atomic_ref<std::uint64_t>(*in.consumed).store(position, std::memory_order_release);
    }
  }
  // Whether this task's sleeps run membarrier, and whether publishing to
  // `tgt` goes without a barrier (tests, stats).
  bool sleeps_with_membarrier() const { return membarrier_; }
  bool light_publish_to(std::uint32_t tgt) const { return reaches(tgt) && out_[tgt].light_publish; }

  // Bracket a sleep on the UCX event fd (see the header comment); `waiter`:
  // an application thread waiting in the library (quiet frames wake it).
  void sleep_begin(bool waiter);
  void sleep_end(bool waiter);

  const ShmStats& stats() const { return stats_; }

  // Claim cells of split copies (split_copy.cc): per source, kSplitCells
  // cache lines after its ring, which the target hands out one per large
  // Amsend so that both tasks can claim parts of it.
  struct alignas(64) SplitCell {
    std::uint64_t claim;  // generation << 32 | next part to copy
    std::uint64_t done;   // parts copied, plus kSplitCellError per failed one
  };
  static constexpr std::size_t kSplitCells = 64;
  static constexpr std::uint64_t kSplitCellError = std::uint64_t{1} << 32;
  // Cells for src's messages, in our inbox (null: src not watched).
  SplitCell* cells_from(std::uint32_t src) const {
    return src < cells_in_.size() ? cells_in_[src] : nullptr;
  }
  // Cells for our messages, in tgt's inbox (null: tgt not reached).
  SplitCell* cells_to(std::uint32_t tgt) const {
    return reaches(tgt) ? cells_after(out_[tgt].ring) : nullptr;
  }

  // Staging areas (staged_copy.cc): per source, kStageSlots chunks of up to
  // kStageChunk bytes after its claim cells, which the source writes and
  // this task copies out, in order. A chunk at position n is published
  // once its ticket is n + 1 (release store after its bytes and words);
  // the consumer publishes how many it took, as the ring's consumed count.
  static constexpr std::size_t kStageChunk = 64 * 1024;
  static constexpr std::uint64_t kStageSlots = 8;
  struct StageChunk {
    std::uint64_t token;   // the origin's record of the Amsend (SplitWire::id)
    std::uint64_t offset;  // of the chunk in the Amsend's data
    std::uint32_t len;
    std::uint32_t crc;     // CRC32C of the chunk at the origin
    bool streamed;         // written with streaming stores (stage_copy_choice.hpp)
    std::byte* data;       // in the staging area
  };
  bool stages_to(std::uint32_t tgt) const { return stages_ && reaches(tgt); }
  bool stages_from(std::uint32_t src) const {
    return src < stage_in_.size() && stage_in_[src].area != nullptr;
  }
  // Producer: where the next chunk to `tgt` goes (kStageChunk bytes), or
  // nullptr while every slot is taken; stage_publish then publishes it
  // (done_wake: the target sleeps, wake it).
  std::byte* stage_begin(std::uint32_t tgt);
  // Producer: whether `tgt` has taken every chunk published to it.
  bool stage_idle(std::uint32_t tgt);
  ShmSend stage_publish(std::uint32_t tgt, std::uint64_t token, std::uint64_t offset,
                        std::uint32_t len, std::uint32_t crc, bool streamed);
  // Consumer: `src`'s next published chunk, if any; stage_release frees it
  // (done_wake: every slot had been taken and `src` sleeps, maybe waiting
  // for room: wake it).
  bool stage_peek(std::uint32_t src, StageChunk& out) const;
  ShmSend stage_release(std::uint32_t src);
  // Consumer: copying a chunk from `src` out took `ns` (scaled to a full one; written the
  // `streamed` way); the producer reads the recent means (0: none yet) to
  // choose how to write the next ones.
  void stage_note_copy_out(std::uint32_t src, bool streamed, std::uint64_t ns);
  void stage_copy_out_ns(std::uint32_t tgt, std::uint64_t (&ns)[2]) const;
  // Consumer: this task has read the first `offset` bytes of `src`'s Amsend
  // `token` itself (a pull); the producer need not push those.
  void stage_note_pulled(std::uint32_t src, std::uint64_t token, std::uint64_t offset);
  // Producer: how much of Amsend `token` `tgt` has pulled (0: none that it said).
  std::uint64_t stage_pulled(std::uint32_t tgt, std::uint64_t token) const;

 private:
  struct alignas(64) Slot {
    std::uint32_t ticket;  // ticket_for(position) once the frame starting here is complete
    std::uint32_t len;     // frame bytes, or kPad
    std::byte frame[kSlotBytes - kSlotHeader];  // runs on over the following slots
  };
  static_assert(sizeof(Slot) == kSlotBytes && offsetof(Slot, frame) == kSlotHeader);
  // Position + 1 in 32 bits, never 0 (a slot covered by the middle of a frame has its ticket
  // word zeroed): a first slot's stale ticket is a lap (128 positions) old, so it differs.
  static constexpr std::uint32_t ticket_for(std::uint64_t at) {
    const auto t = static_cast<std::uint32_t>(at + 1);
    return t != 0 ? t : 1;
  }
  static constexpr std::uint32_t kPad = UINT32_MAX;  // skip to the ring's start
  static constexpr std::uint64_t slots_for(std::size_t len) {
    return (len + kSlotHeader + kSlotBytes - 1) / kSlotBytes;
  }
  struct alignas(64) Line {  // a word alone on its cache line
    std::uint64_t value;
  };
  struct Outbox {  // sender side, per target
    Slot* ring = nullptr;
    std::uint64_t* consumed = nullptr;   // in the target's header
    std::uint32_t* sleepers = nullptr;   // in the target's header
    std::uint32_t* waiters_asleep = nullptr;  // in the target's header
    std::uint64_t* polls = nullptr;           // in the target's header
    std::uint64_t next = 0;              // position of the next frame
    std::uint64_t writing = 0;           // position of the frame between begin and end
    std::uint64_t consumed_seen = 0;     // last consumed count read
    std::uint64_t stage_next = 0;        // position of the next chunk
    std::uint64_t stage_consumed_seen = 0;
    bool light_publish = false;          // the target's sleeps run membarrier (header comment)
    void* header_map = nullptr;
    std::size_t header_bytes = 0;
  };
  struct Inbox {  // receiver side, per source on this node
    std::uint32_t src;
    Slot* ring;
    std::uint64_t* consumed;
    std::uint64_t next;  // position of the next frame
  };
  // Marks the slots of a taken frame free: their ticket words zeroed, then
  // the consumed count published.
  static void release(const Inbox& in, std::uint64_t first, std::uint64_t count);

  static std::size_t header_bytes(std::uint32_t ntasks);
  // end_send, storing `stored_len` as the frame's length (tests forge it);
  // the ring advances by the true `len`.
  ShmSend publish(std::uint32_t tgt, std::size_t len, std::uint32_t stored_len, bool quiet = false);
  struct alignas(64) StageSlot {
    std::uint64_t ticket;  // position + 1 once the chunk is complete
    std::uint64_t token;
    std::uint64_t offset;
    std::uint32_t len;
    std::uint32_t crc;
    std::uint32_t streamed;
    alignas(64) std::byte data[kStageChunk];
  };
  struct StageArea {
    alignas(64) std::uint64_t consumed;  // written by the consumer
    std::uint64_t copy_out_ns[2];         // written by the consumer: recent, [streamed]
    // Written by the consumer (stage_note_pulled) under a sequence count,
    // odd while it writes: the two words change together.
    alignas(64) std::uint64_t pulled_seq;
    std::uint64_t pulled_token;
    std::uint64_t pulled_to;
    StageSlot slots[kStageSlots];
  };
  struct StageIn {  // consumer side, per source
    StageArea* area = nullptr;
    std::uint64_t next = 0;
  };
  // Stores `value` to `word` (a publication) and then reads `watched`; the
  // two must not pass each other (see the header comment).
  // Word: a ring slot's 32-bit ticket or a staging slot's 64-bit one.
  template <typename Word>
  static std::uint32_t publish_then_watch(const Outbox& o, Word& word, Word value,
                                          std::uint32_t* watched);
  // A source's ring and its claim cells; then (enable_stages) its staging area.
  static constexpr std::size_t kStageOffset =
      shm_page_round(kSlots * kSlotBytes + kSplitCells * sizeof(SplitCell));
  std::size_t ring_bytes() const {
    return kStageOffset + (stages_ ? shm_page_round(sizeof(StageArea)) : 0);
  }
  static SplitCell* cells_after(Slot* ring) { return reinterpret_cast<SplitCell*>(ring + kSlots); }
  static StageArea* stage_after(Slot* ring) {
    return reinterpret_cast<StageArea*>(reinterpret_cast<std::byte*>(ring) + kStageOffset);
  }

  std::uint32_t me_ = 0;
  std::uint32_t ntasks_ = 0;
  std::string name_;
  bool named_ = false;
  void* inbox_ = nullptr;  // this task's whole inbox
  std::size_t inbox_bytes_ = 0;
  std::uint32_t* my_sleepers_ = nullptr;
  std::uint32_t* my_waiters_asleep_ = nullptr;
  std::uint64_t* my_polls_ = nullptr;
  std::uint64_t polls_ = 0;
  bool membarrier_allowed_ = true;
  bool membarrier_ = false;  // this task's sleeps run membarrier; senders it reaches may skip their barrier
  bool stages_ = false;
  std::vector<Outbox> out_;
  std::vector<Inbox> in_;
  std::vector<SplitCell*> cells_in_;  // per source
  std::vector<StageIn> stage_in_;     // per source
  ShmStats stats_;
};

template <typename Deliver>
bool ShmChannel::poll(Deliver&& deliver) {
  bool any = false;
  for (Inbox& in : in_) {
    // A batch per source keeps one busy sender from starving the others.
    for (int batch = 0; batch < 16; ++batch) {
      const std::uint64_t at = in.next;
      const std::uint64_t index = at % kSlots;
      Slot& slot = in.ring[index];
      const std::uint32_t ticket =
          std::atomic_ref<std::uint32_t>(slot.ticket).load(std::memory_order_acquire);
      if (ticket != ticket_for(at)) {
        break;
      }
      // The sender's lines come one by one from its core; ask for a later
      // frame's now, so that its miss overlaps this one's work.
      __builtin_prefetch(&in.ring[(at + kReadPrefetchSlots) % kSlots], 0);
      const std::size_t len = slot.len;
      // A length past the frame limit or the ring's end is refused by
      // deliver; the frame then counts as one slot (the sender's stream is
      // suspect anyway, and the ring's end bounds whatever it claimed).
      const std::uint64_t room = kSlots - index;
      const std::size_t fits = std::min(room * kSlotBytes - kSlotHeader, kFrameLimit);
      const std::uint64_t span = len == kPad ? room : len <= fits ? slots_for(len) : 1;
      // A frame past its first line: ask for the other lines (up to 2 KiB)
      // now, so that they come while deliver parses the first, not one by
      // one as the copy reaches them (mpi_latency, alternated: 92 B-512 B
      // 0.18/0.18/0.21/0.27 -> 0.17/0.17/0.19/0.25 us).
      if (len > 64 - kSlotHeader && len != kPad) [[unlikely]] {
        const auto* first = reinterpret_cast<const std::byte*>(&slot);
        const auto* end = first + kSlotHeader + std::min({len, fits, kPrefetchFrameBytes});
        for (const auto* line = first + 64; line < end; line += 64) __builtin_prefetch(line, 0);
      }
      bool more = true;
      if (len != kPad) {
        more = deliver(in.src, slot.frame, len, fits);
        ++stats_.received;
      }
      in.next = at + span;
      release(in, at, span);
      any = true;
      if (!more) break;
    }
  }
  return any;
}

}  // namespace lapi::internal
