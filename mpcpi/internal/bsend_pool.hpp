#pragma once
// Allocator over the buffer a user attached for buffered sends
// (MPI_Buffer_attach). First fit over a free list kept by offset, merging
// neighbours on release. Its bookkeeping lives outside the user's buffer,
// so a message costs exactly bytes + overhead of it — the sum a program
// computes with MPI_BSEND_OVERHEAD always fits.
//
// Not thread-safe: the engine's lock guards it.

#include <cstddef>
#include <map>
#include <optional>

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

}  // namespace mpcpi::detail
