#pragma once
// Integer handles: 0x4c000000 | kind << 20 | index (see mpi.h). Index 0 is
// the kind's null handle; predefined objects sit at fixed low indices and
// user objects take the slots after them, reusing freed ones.
//
// Threading: tables are touched only by the thread inside an MPI call (the
// library offers at most MPI_THREAD_SERIALIZED), never by progress threads.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mpi {

enum class HandleKind : int {
  comm = 1,
  datatype = 2,
  group = 3,
  request = 4,
  op = 5,
  errhandler = 6,
  message = 7,
  info = 8,
  win = 9,
};

inline constexpr int kHandleTag = 0x4c000000;
inline constexpr int kHandleIndexBits = 20;
inline constexpr int kHandleIndexMask = (1 << kHandleIndexBits) - 1;

constexpr int make_handle(HandleKind kind, int index) {
  return kHandleTag | (static_cast<int>(kind) << kHandleIndexBits) | index;
}

// The index of `handle` if it is of `kind`, else -1.
constexpr int handle_index(HandleKind kind, int handle) {
  return (handle & ~kHandleIndexMask) == make_handle(kind, 0) ? (handle & kHandleIndexMask) : -1;
}

template <typename T>
class HandleTable {
 public:
  explicit HandleTable(HandleKind kind) : kind_(kind) { resize(1); }

  HandleKind kind() const { return kind_; }

  // Places a predefined object at a fixed index.
  void insert_at(int index, T value) {
    if (index >= size_) resize(index + 1);
    slots_[index] = std::move(value);
    if (index >= first_user_) first_user_ = index + 1;
  }

  // Returns the new handle, or the null handle when the index space is full.
  int insert(T value) {
    int index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (size_ < first_user_) resize(first_user_);
      if (size_ > kHandleIndexMask) return make_handle(kind_, 0);
      index = size_;
      resize(size_ + 1);
    }
    slots_[index] = std::move(value);
    return make_handle(kind_, index);
  }

  // Null for a handle of another kind, the null handle, or a freed slot.
  // (Every MPI call looks up its communicator and datatype here: one
  // unsigned compare covers the kind, the null handle and the bounds.)
  T* find(int handle) {
    const unsigned index = static_cast<unsigned>(handle) - static_cast<unsigned>(base_);
    if (index - 1 >= static_cast<unsigned>(size_) - 1) return nullptr;
    auto& slot = slots_[index];
    return slot ? &*slot : nullptr;
  }

  bool is_predefined(int handle) const {
    int index = handle_index(kind_, handle);
    return index > 0 && index < first_user_;
  }

  bool erase(int handle) {
    int index = handle_index(kind_, handle);
    if (index < first_user_ || static_cast<std::size_t>(index) >= slots_.size() ||
        !slots_[index]) {
      return false;
    }
    slots_[index].reset();
    free_.push_back(index);
    return true;
  }

  void clear() {
    slots_.clear();
    resize(1);
    free_.clear();
    first_user_ = 1;
  }

  // Visits every live user (non-predefined) object.
  template <typename F>
  void for_each_user(F&& f) {
    for (std::size_t i = first_user_; i < slots_.size(); ++i) {
      if (slots_[i]) f(make_handle(kind_, static_cast<int>(i)), *slots_[i]);
    }
  }

 private:
  void resize(std::size_t n) {
    slots_.resize(n);
    size_ = static_cast<int>(n);
  }

  HandleKind kind_;
  int base_ = make_handle(kind_, 0);
  int size_ = 0;  // slots_.size()
  std::vector<std::optional<T>> slots_;
  std::vector<int> free_;
  int first_user_ = 1;
};

}  // namespace mpi
