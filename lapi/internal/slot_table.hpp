#pragma once
// Slab of small records named by 64-bit cookies (index + generation) that
// travel to a peer and back. A cookie a peer sends us is looked up, never
// dereferenced, so a forged or stale one is detected instead of followed.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace lapi::internal {

template <typename T>
class SlotTable {
 public:
  std::uint64_t insert(T value) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back({});
    }
    Slot& s = slots_[index];
    s.value = std::move(value);
    s.used = true;
    return (static_cast<std::uint64_t>(s.generation) << 32) | (index + 1u);
  }

  // Removes and returns the record, or nothing if the cookie is not live.
  std::optional<T> take(std::uint64_t cookie) {
    const std::uint32_t index = static_cast<std::uint32_t>(cookie) - 1u;
    const std::uint32_t generation = static_cast<std::uint32_t>(cookie >> 32);
    if (index >= slots_.size()) return std::nullopt;
    Slot& s = slots_[index];
    if (!s.used || s.generation != generation) return std::nullopt;
    s.used = false;
    ++s.generation;
    free_.push_back(index);
    std::optional<T> out(std::move(s.value));  // T may own its record (unique_ptr)
    s.value = T{};
    return out;
  }

  // The live record named by `cookie`, or null.
  T* find(std::uint64_t cookie) {
    return const_cast<T*>(static_cast<const SlotTable*>(this)->find(cookie));
  }
  const T* find(std::uint64_t cookie) const {
    const std::uint32_t index = static_cast<std::uint32_t>(cookie) - 1u;
    const std::uint32_t generation = static_cast<std::uint32_t>(cookie >> 32);
    if (index >= slots_.size()) return nullptr;
    const Slot& s = slots_[index];
    return s.used && s.generation == generation ? &s.value : nullptr;
  }

  std::size_t live() const { return slots_.size() - free_.size(); }

  // Whether `pred` holds for any live record.
  template <typename Pred>
  bool any_of(Pred pred) const {
    for (const Slot& s : slots_) {
      if (s.used && pred(s.value)) return true;
    }
    return false;
  }

  // Removes every live record `pred` holds for (their cookies go stale).
  template <typename Pred>
  void erase_if(Pred pred) {
    for (std::uint32_t index = 0; index < slots_.size(); ++index) {
      Slot& s = slots_[index];
      if (!s.used || !pred(s.value)) continue;
      s.used = false;
      ++s.generation;
      s.value = T{};
      free_.push_back(index);
    }
  }

 private:
  struct Slot {
    T value{};
    std::uint32_t generation = 1;
    bool used = false;
  };
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace lapi::internal
