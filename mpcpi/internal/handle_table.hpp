#pragma once
// Handles that name local objects in messages (a sender's request in an
// RTS, a receive in a CTS). A handle is (generation << 32 | slot): a peer
// that sends back a stale, forged or already-used handle finds nothing
// instead of a dangling pointer. Handle 0 is never issued.
//
// Not thread-safe: the engine's lock guards it.

#include <cstdint>
#include <vector>

namespace mpcpi::detail {

template <class T>
class HandleTable {
 public:
  std::uint64_t insert(T* object) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.push_back({});
    }
    Slot& s = slots_[slot];
    s.object = object;
    ++live_;
    return (std::uint64_t{s.generation} << 32) | slot;
  }

  // The object under `handle`, or nullptr if the handle is not live.
  T* find(std::uint64_t handle) const {
    const auto slot = static_cast<std::uint32_t>(handle);
    const auto generation = static_cast<std::uint32_t>(handle >> 32);
    if (slot >= slots_.size()) return nullptr;
    const Slot& s = slots_[slot];
    return s.generation == generation ? s.object : nullptr;
  }

  // Removes a live handle and returns its object (nullptr if not live).
  T* erase(std::uint64_t handle) {
    T* object = find(handle);
    if (object == nullptr) return nullptr;
    Slot& s = slots_[static_cast<std::uint32_t>(handle)];
    s.object = nullptr;
    if (++s.generation == 0) s.generation = 1;  // generation 0 would allow handle 0
    free_.push_back(static_cast<std::uint32_t>(handle));
    --live_;
    return object;
  }

  std::size_t size() const { return live_; }

  // The live objects for which pred holds (rare: a failed peer's).
  template <class Pred>
  std::vector<T*> select(Pred&& pred) const {
    std::vector<T*> found;
    for (const Slot& s : slots_)
      if (s.object != nullptr && pred(*s.object)) found.push_back(s.object);
    return found;
  }

 private:
  struct Slot {
    T* object = nullptr;
    std::uint32_t generation = 1;
  };
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

}  // namespace mpcpi::detail
