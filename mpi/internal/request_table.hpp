#pragma once
// The table behind MPI_Request handles. Requests live in fixed chunks that
// never move, so a handle resolves with two index operations and a request
// is recycled in place (no construction, no moves) — MPI_Isend/MPI_Wait
// loops stay allocation-free once the table has grown to the window size.
//
// Threading: like every handle table, touched only by the thread inside an
// MPI call (holding the MPI lock under MPI_THREAD_MULTIPLE). A Request*
// stays valid while its call waits with the lock released: chunks never
// move.

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "mpi/internal/handles.hpp"

namespace mpi {

template <typename T>
class RequestTable {
 public:
  static constexpr int kChunkBits = 8;
  static constexpr int kChunk = 1 << kChunkBits;
  // The handle of every send that completed inside its call: a builtin request handle, like
  // MPICH's lightweight completed requests (Open MPI's ompi_request_empty). No slot is taken or
  // recycled for it; it resolves to one shared request that nothing modifies (`done`, given by
  // the owner: completed, no engine part), so every call taking a request treats it as any
  // other completed one, and release() leaves it alone.
  static constexpr int kCompletedHandle =
      static_cast<int>(kHandleKindBuiltin | static_cast<unsigned>(object_type(HandleKind::request)) << 26);

  explicit RequestTable(T done) : completed_(std::move(done)) {}

  // A request in its default state and its handle; null when the handle
  // space is exhausted.
  T* acquire(int& handle) {
    int index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (next_ > kHandleIndexMask) return nullptr;
      index = next_++;
      if ((index >> kChunkBits) >= static_cast<int>(chunks_.size()))
        chunks_.push_back(std::make_unique<Slot[]>(kChunk));
    }
    Slot& s = slot(index);
    s.live = true;
    handle = make_handle(HandleKind::request, index);
    return &s;
  }

  // Null for the null handle, another kind's handle or a released request.
  T* find(int handle) {
    if (handle == kCompletedHandle) return &completed_;
    const int index = handle_index(HandleKind::request, handle);
    if (index <= 0 || index >= next_) return nullptr;
    Slot& s = slot(index);
    return s.live ? &s : nullptr;
  }

  // Resets the request to its default state (T::reset) and recycles its slot.
  bool release(int handle) {
    const int index = handle_index(HandleKind::request, handle);
    if (index <= 0 || index >= next_ || !slot(index).live) return false;
    release_found(handle, &slot(index));
    return true;
  }

  // release() for a request that find(handle) has just returned, never the
  // shared completed request: no second look-up of the handle (MPI_Wait and
  // MPI_Waitall, on every request).
  void release_found(int handle, T* found) {
    Slot* s = static_cast<Slot*>(found);  // every T the table hands out is a Slot
    s->live = false;
    s->reset();
    free_.push_back(handle_index(HandleKind::request, handle));
  }

  void clear() {
    chunks_.clear();
    free_.clear();
    next_ = 1;
  }

 private:
  // The request itself, so that a request found by its handle leads back to
  // its slot without a second look-up.
  struct Slot : T {
    bool live = false;
  };
  Slot& slot(int index) { return chunks_[index >> kChunkBits][index & (kChunk - 1)]; }

  T completed_;
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::vector<int> free_;
  int next_ = 1;  // index 0 is MPI_REQUEST_NULL
};

}  // namespace mpi
