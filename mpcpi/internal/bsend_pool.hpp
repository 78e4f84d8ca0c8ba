#pragma once
// Allocator over the buffer a user attached for buffered sends
// (MPI_Buffer_attach). First fit over a free list kept by offset, merging
// neighbours on release. Its bookkeeping lives outside the user's buffer,
// so a message costs exactly bytes + overhead of it — the sum a program
// computes with MPI_BSEND_OVERHEAD always fits.
//
// Not thread-safe: the engine's lock guards it.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace mpcpi::detail {

class BsendPool {
 public:
  BsendPool() = default;
  BsendPool(std::byte* base, std::size_t size, std::size_t overhead);

  bool attached() const { return base_ != nullptr; }
  std::byte* base() const { return base_; }
  std::size_t size() const { return size_; }
  // Blocks handed out and not yet released.
  std::size_t in_use() const { return blocks_.size(); }

  // A block for `bytes` of data (taking bytes + overhead of the buffer), or
  // nullopt when no free range is large enough.
  std::optional<std::byte*> allocate(std::size_t bytes);
  // Returns a block from allocate(). False if `data` is not such a block.
  bool release(std::byte* data);

 private:
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t overhead_ = 0;
  std::map<std::size_t, std::size_t> free_;    // offset -> length
  std::map<std::size_t, std::size_t> blocks_;  // offset -> length, allocated
};

// One attached buffer (the process's, a communicator's or a session's):
// a BsendPool over the program's memory, or automatic (MPI 4.1's
// MPI_BUFFER_AUTOMATIC: each message a heap block of its own, so a
// buffered send never fails for room). It knows which messages it still
// holds by sequence number, engine-wide and increasing, so a flush can wait
// for exactly those that were in it when it began.
class BsendBuffer {
 public:
  BsendBuffer(void* base, std::size_t size, std::size_t overhead, bool automatic);
  BsendBuffer(const BsendBuffer&) = delete;
  BsendBuffer& operator=(const BsendBuffer&) = delete;

  // What the program attached, given back at detach.
  void* base() const { return base_; }
  std::size_t size() const { return size_; }
  bool automatic() const { return automatic_; }
  // Messages it holds.
  std::size_t held() const { return held_.size(); }

  // A block for `bytes` of data, held as message `seq`, or nullopt when it
  // does not fit (an automatic buffer: when the heap is exhausted).
  std::optional<std::byte*> take(std::size_t bytes, std::uint64_t seq);
  // The block of message `seq` has left.
  void give_back(std::byte* block, std::uint64_t seq);
  // True once every message it held with a number below `mark` has left.
  bool flushed(std::uint64_t mark) const { return held_.empty() || *held_.begin() >= mark; }

 private:
  void* base_;
  std::size_t size_;
  bool automatic_;
  BsendPool pool_;  // empty when automatic
  std::set<std::uint64_t> held_;
};

}  // namespace mpcpi::detail
