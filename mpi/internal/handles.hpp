#pragma once
// Integer handles in MPICH's layout (its ABI, see mpi.h):
//   bits 30-31  kind: 0 = a null handle, 1 = builtin (predefined), 2 = direct
//               (MPICH's pair datatypes), 3 = indirect (what this library
//               hands out for user objects)
//   bits 26-29  object type (communicator 1, group 2, datatype 3, ...)
//   bits 0-25   index; builtin datatypes keep their size in bits 8-15 and
//               their index in bits 0-7.
// The predefined values themselves are mpi.h's; nothing here repeats them.
// A handle of another object type never resolves, so a datatype passed as a
// communicator is MPI_ERR_COMM.
//
// Threading: tables are touched only by the thread inside an MPI call (under
// MPI_THREAD_MULTIPLE: the thread holding the MPI lock, api_call.hpp), never
// by progress threads.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

namespace mpi {

// Values are MPICH's object types (bits 26-29). MPI_Message handles are
// request handles in MPICH; this library keeps them in their own table and
// index range (bit 25) so a message never resolves as a request.
enum class HandleKind : int {
  comm = 0x1,
  group = 0x2,
  datatype = 0x3,
  errhandler = 0x5,
  op = 0x6,
  info = 0x7,
  win = 0x8,
  keyval = 0x9,
  request = 0xb,
  session = 0xe,
  message = 0x10b,
};

inline constexpr unsigned kHandleKindBuiltin = 0x40000000u;
inline constexpr unsigned kHandleKindDirect = 0x80000000u;
inline constexpr unsigned kHandleKindIndirect = 0xc0000000u;
inline constexpr int kHandleIndexBits = 25;
inline constexpr int kHandleIndexMask = (1 << kHandleIndexBits) - 1;

constexpr int object_type(HandleKind kind) { return static_cast<int>(kind) & 0xf; }

// The null handle of `kind` (MPI_COMM_NULL = 0x04000000 ...).
constexpr int null_handle(HandleKind kind) { return object_type(kind) << 26; }

// The handle of the user object at `index` (indirect kind).
constexpr int make_handle(HandleKind kind, int index) {
  const unsigned sub = kind == HandleKind::message ? 1u << kHandleIndexBits : 0u;
  return static_cast<int>(kHandleKindIndirect | (static_cast<unsigned>(object_type(kind)) << 26) |
                          sub | static_cast<unsigned>(index));
}

// The index of user handle `handle` if it is of `kind`, else -1.
constexpr int handle_index(HandleKind kind, int handle) {
  const unsigned offset = static_cast<unsigned>(handle) - static_cast<unsigned>(make_handle(kind, 0));
  return offset <= static_cast<unsigned>(kHandleIndexMask) ? static_cast<int>(offset) : -1;
}

// Where a predefined handle sits in its table: its low byte, plus 256 for
// MPICH's direct-kind predefined objects (the pair datatypes MPI_FLOAT_INT
// = 0x8c000000 ... share low bytes with builtin ones). Unique among each
// kind's predefined handles; mpi/internal/builtin_types.cc checks the
// datatypes'. Also the builtin datatypes' element ids.
inline constexpr int kPredefinedSlots = 511;  // slot 511 is never used
constexpr int predefined_slot(int handle) {
  return static_cast<int>((static_cast<unsigned>(handle) & 0xffu) |
                          ((static_cast<unsigned>(handle) >> 23) & 0x100u));
}

// Whether a handle that resolved in its table names a predefined object:
// mpi.h's handles are of builtin or direct kind, a user object's always
// indirect (make_handle), so the kind bits tell without a lookup.
constexpr bool resolved_is_predefined(int handle) {
  return (static_cast<unsigned>(handle) & kHandleKindIndirect) != kHandleKindIndirect;
}

template <typename T>
class HandleTable {
 public:
  explicit HandleTable(HandleKind kind) : kind_(kind) {
    resize(1);
    empty_predefined();
  }

  HandleKind kind() const { return kind_; }

  // Places the predefined object behind mpi.h's handle `handle` (never of
  // indirect kind: resolved_is_predefined).
  void insert_at(int handle, T value) {
    if (!resolved_is_predefined(handle)) std::abort();
    predefined_[predefined_slot(handle)] = {handle, std::move(value)};
  }

  // Returns the new handle, or the null handle when the index space is full.
  int insert(T value) {
    int index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (size_ > kHandleIndexMask) return null_handle(kind_);
      index = size_;
      resize(size_ + 1);
    }
    slots_[index] = std::move(value);
    return make_handle(kind_, index);
  }

  // Null for a handle of another kind, the null handle, or a freed slot.
  // (Every MPI call looks up its communicator and datatype here: the
  // predefined ones, the common case, cost a shift, a compare and a load;
  // every predefined slot exists, so there is no bound to check.)
  T* find(int handle) {
    Predefined& p = predefined_[predefined_slot(handle)];
    if (p.handle == handle) return &p.value;
    const unsigned index = static_cast<unsigned>(handle) - static_cast<unsigned>(base_);
    if (index >= static_cast<unsigned>(size_)) return nullptr;
    auto& slot = slots_[index];
    return slot ? &*slot : nullptr;
  }

  bool is_predefined(int handle) const { return predefined_[predefined_slot(handle)].handle == handle; }

  // Removes a predefined object (MPI_COMM_WORLD and MPI_COMM_SELF at
  // MPI_Finalize while sessions keep the library running).
  void erase_predefined(int handle) {
    Predefined& p = predefined_[predefined_slot(handle)];
    if (p.handle != handle) return;
    p = Predefined{predefined_slot(handle) == predefined_slot(-1) ? 0 : -1};  // as empty_predefined()
  }

  bool erase(int handle) {
    int index = handle_index(kind_, handle);
    if (index <= 0 || static_cast<std::size_t>(index) >= slots_.size() || !slots_[index]) {
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
    empty_predefined();
  }

  // Visits every live user (non-predefined) object.
  template <typename F>
  void for_each_user(F&& f) {
    for (std::size_t i = 1; i < slots_.size(); ++i) {
      if (slots_[i]) f(make_handle(kind_, static_cast<int>(i)), *slots_[i]);
    }
  }

 private:
  struct Predefined {
    int handle;
    T value{};
  };

  // Every slot, each empty one holding a handle whose slot it is not (-1
  // belongs to slot 511, 0 to slot 0), so that it matches nothing.
  void empty_predefined() {
    predefined_.assign(kPredefinedSlots + 1, Predefined{-1});
    predefined_[predefined_slot(-1)].handle = 0;
  }

  void resize(std::size_t n) {
    slots_.resize(n);
    size_ = static_cast<int>(n);
  }

  HandleKind kind_;
  int base_ = make_handle(kind_, 0);
  int size_ = 0;  // slots_.size(); index 0 is never handed out
  std::vector<std::optional<T>> slots_;
  std::vector<int> free_;
  std::vector<Predefined> predefined_;  // by predefined_slot(): all kPredefinedSlots + 1 of them
};

}  // namespace mpi
