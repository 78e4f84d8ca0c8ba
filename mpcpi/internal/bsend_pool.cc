#include "mpcpi/internal/bsend_pool.hpp"

#include <cstdlib>
#include <iterator>

namespace mpcpi::detail {

BsendPool::BsendPool(std::byte* base, std::size_t size, std::size_t overhead)
    : base_(base), size_(size), overhead_(overhead) {
  if (size > 0) free_.emplace(0, size);
}

std::optional<std::byte*> BsendPool::allocate(std::size_t bytes) {
  if (base_ == nullptr || bytes > size_) return std::nullopt;
  const std::size_t need = bytes + overhead_;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    const std::size_t offset = it->first;
    const std::size_t rest = it->second - need;
    free_.erase(it);
    if (rest > 0) free_.emplace(offset + need, rest);
    blocks_.emplace(offset, need);
    return base_ + offset;
  }
  return std::nullopt;
}

bool BsendPool::release(std::byte* data) {
  if (base_ == nullptr || data < base_ || data >= base_ + size_) return false;
  auto block = blocks_.find(static_cast<std::size_t>(data - base_));
  if (block == blocks_.end()) return false;
  std::size_t offset = block->first;
  std::size_t length = block->second;
  blocks_.erase(block);
  // Merge with the free range after, then with the one before.
  auto after = free_.lower_bound(offset);
  if (after != free_.end() && after->first == offset + length) {
    length += after->second;
    after = free_.erase(after);
  }
  if (after != free_.begin()) {
    auto before = std::prev(after);
    if (before->first + before->second == offset) {
      before->second += length;
      return true;
    }
  }
  free_.emplace(offset, length);
  return true;
}

BsendBuffer::BsendBuffer(void* base, std::size_t size, std::size_t overhead, bool automatic)
    : base_(base),
      size_(size),
      automatic_(automatic),
      pool_(automatic ? BsendPool() : BsendPool(static_cast<std::byte*>(base), size, overhead)) {}

std::optional<std::byte*> BsendBuffer::take(std::size_t bytes, std::uint64_t seq) {
  std::optional<std::byte*> block;
  if (automatic_) {
    // At least one byte: a zero-byte message still needs a block to name it.
    if (void* p = std::malloc(bytes > 0 ? bytes : 1)) block = static_cast<std::byte*>(p);
  } else {
    block = pool_.allocate(bytes);
  }
  if (block) held_.insert(seq);
  return block;
}

void BsendBuffer::give_back(std::byte* block, std::uint64_t seq) {
  held_.erase(seq);
  if (automatic_) {
    std::free(block);
  } else {
    pool_.release(block);
  }
}

}  // namespace mpcpi::detail
