#pragma once
// The engine's two record types: Request (a send or receive the user waits
// on) and Message (something that arrived, or a self-send, waiting for its
// receive). Both come from free-list pools that never hand memory back
// while the engine lives, so a late counter notification on a recycled
// request can never touch freed memory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "counters/counter.hpp"
#include "mpcpi/internal/bsend_pool.hpp"
#include "mpcpi/internal/match_queues.hpp"
#include "mpcpi/mpcpi.hpp"

namespace mpcpi {

class Request : public detail::PostedEntry {
 public:
  enum class Kind : std::uint8_t { send, recv };

  // Completion events land here: lapi's origin counter for sent data, or the
  // engine's handlers. The request is complete once it reaches `expected`.
  // Touched without the engine lock (acquire/release, see counter.hpp).
  lapi::Counter signal;
  int expected = 1;
  bool waited = false;  // wait() consumed `signal` (app thread only)

  // Everything below is guarded by the engine lock until completion, then
  // owned by the application thread.
  Kind kind = Kind::recv;
  SendMode mode = SendMode::standard;
  bool internal = false;       // engine-owned (buffered send); reaped when done
  bool user_freed = false;     // request_free() before completion; reaped
  bool counter_poll = false;   // counters variant: completes when the landing counter is polled
  Status status;

  // Send side (PostedEntry::context/tag hold the envelope).
  const void* send_buf = nullptr;
  std::size_t bytes = 0;
  lapi::TaskId dest = 0;
  // Internal buffered send: its block, the buffer to give it back to, and
  // its message number there (BsendBuffer). Set only on carriers, and
  // cleared when the block goes back (give_back_bsend_locked), so releasing
  // a request never has to touch them.
  std::byte* bsend_block = nullptr;
  detail::BsendBuffer* bsend_buffer = nullptr;
  std::uint64_t bsend_seq = 0;

  // Receive side.
  void* recv_buf = nullptr;
  std::size_t capacity = 0;

  // Live handle naming this request to a peer: a send's RTS/ready handle, or
  // a receive's rendezvous handle. 0 = none.
  std::uint64_t handle = 0;

  Request* next_free = nullptr;

  bool done() const { return waited || signal.get() >= expected; }
};

class Message : public detail::ArrivedEntry {
 public:
  enum class Kind : std::uint8_t {
    eager,       // data in `data` (landed or landing)
    rts,         // request to send: data still at the sender
    self_eager,  // self-send, data copied into `data`
    self_rndv,   // self-send, data still in the sender's buffer
  };

  Kind kind = Kind::eager;
  SendMode mode = SendMode::standard;
  bool pulled = false;   // came outside the credit window
  bool counted = false;  // lands through the counters-variant landing counter
  bool landed = false;   // eager data fully in `data`
  bool discard = false;  // unmatched ready message landing late: free on landing
  bool probed = false;   // handed out by improbe/mprobe
  std::uint32_t seq = 0;
  std::size_t size = 0;  // message bytes
  std::byte* data = nullptr;     // owned buffer (eager, self_eager)
  const void* sender_buf = nullptr;  // self_rndv
  Request* matched = nullptr;    // receive waiting for the data to land
  Request* self_sender = nullptr;  // self_rndv: the sending request
  std::uint64_t sender_handle = 0;  // rts / ready
  std::size_t credit = 0;  // flow-control bytes to give back once freed

  Message* next_free = nullptr;
};

namespace detail {

// Free-list pool; not thread-safe (the engine lock guards it).
template <class T>
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  T* get() {
    if (free_ == nullptr) {
      all_.push_back(std::make_unique<T>());
      return all_.back().get();
    }
    T* t = free_;
    free_ = t->next_free;
    t->next_free = nullptr;
    return t;
  }
  void put(T* t) {
    t->next_free = free_;
    free_ = t;
  }
  std::size_t allocated() const { return all_.size(); }

 private:
  std::vector<std::unique_ptr<T>> all_;
  T* free_ = nullptr;
};

}  // namespace detail
}  // namespace mpcpi
