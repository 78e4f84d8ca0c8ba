#pragma once
// Amsends that found their target's shared-memory ring full (shm_channel.hpp),
// kept in order until it has room, instead of going through UCX.
//
// Why: a ring holds 128 slots (8 frames of 8 KiB). Two tasks streaming to
// each other (mpi_bibw) each fill the other's ring while busy sending, and
// the frames that went through UCX instead came slower and out of order
// with the ring's, which MPI's matching then had to put back in order:
// both ways at 6-8 KiB ran at 2.2-2.6 GB/s against 12-25 GB/s with the
// sender waiting for room (an experiment that polled its own rings in the
// loop), and 4 KiB at 6-7 against 15.5. A queue costs nothing while rings
// have room, and gets the same result without waiting in amsend.
//
// Only Amsends with an origin counter queue: their caller comes back to the
// library to learn when its buffer is free, and its polls send them. One
// without (a control message, a send nobody waits for) goes through UCX,
// which needs nothing more from this task (MPI's test large_count hung
// with them queued: its sender had left the library). A queued Amsend
// keeps the user's data by pointer, as a rendezvous does (its origin
// counter moves once the frame is in the ring), and a copy of its user
// header. It counts as sent for fences from the start. What is queued for
// a target goes before any later queued Amsend to it, from this task's
// next poll or its next Amsend to that target. Before this task sleeps on
// its event fd (interrupt mode) what is still queued goes through UCX,
// since nobody would send it meanwhile; a target's failure drops its queue
// and moves the origin counters (as free_ucx_sends_to_locked does).
//
// Under the engine's lock_.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "lapi/context.hpp"
#include "lapi/internal/wire.hpp"

namespace lapi::internal {

// What an Amsend's try at a target's ring came to.
enum class RingSend : std::uint8_t {
  sent,     // in the ring
  full,     // no room now: queue it (or UCX)
  refused,  // too long for the ring, or the target sleeps: UCX
};

// The length of an Amsend's frame in a ring (the packed layout, wire.hpp).
inline std::size_t ring_frame_len(const Counters& counters, bool checked, std::size_t uhdr_len,
                                  std::size_t data_len) {
  return sizeof(AmsendWire) + (counters.target ? 8 : 0) + (counters.completion ? 8 : 0) +
         (checked ? sizeof(ChecksumWire) : 0) + uhdr_len + data_len;
}

struct QueuedAmsend {
  HandlerId handler;
  std::uint16_t extra_flags;  // kChecksummed with LAPIS_CHECKSUM
  const void* data;
  std::size_t data_len;
  Counters counters;
  std::vector<std::byte> uhdr;
};

class RingBacklog {
 public:
  // Whether anything is queued for any target (the poll's one test).
  bool empty() const { return queued_ == 0; }
  bool has(TaskId tgt) const { return tgt < queues_.size() && !queues_[tgt].empty(); }
  std::deque<QueuedAmsend>& of(TaskId tgt) { return queues_[tgt]; }
  std::size_t targets() const { return queues_.size(); }

  void push(TaskId tgt, QueuedAmsend a) {
    if (tgt >= queues_.size()) queues_.resize(tgt + 1);
    queues_[tgt].push_back(std::move(a));
    ++queued_;
    ++total_;
  }
  void pop(TaskId tgt) {
    queues_[tgt].pop_front();
    --queued_;
  }
  // Amsends ever queued (ShmStats::ring_queued).
  std::uint64_t total() const { return total_; }

 private:
  std::vector<std::deque<QueuedAmsend>> queues_;  // by target, grown on first use
  std::size_t queued_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace lapi::internal
