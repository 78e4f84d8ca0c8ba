#pragma once
// How a request refers to its communicator and datatype. Predefined objects
// live until MPI_Finalize, so a plain pointer is enough; a user-created one
// may be freed while the operation is pending (MPI allows it), so the
// request shares its ownership. Requests on predefined objects — the common
// case — thus cost no atomic reference counting.

#include <memory>

namespace mpi {

template <typename T>
class ObjectRef {
 public:
  ObjectRef() = default;
  ObjectRef(const std::shared_ptr<T>& object, bool predefined) : ptr_(object.get()) {
    if (!predefined) owner_ = object;
  }

  T* get() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  T* operator->() const { return ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }

  // As constructing from (object, predefined), into an empty ref: no
  // shared_ptr move-assignment on the predefined path (MPI_Isend/Irecv).
  void assign(const std::shared_ptr<T>& object, bool predefined) {
    ptr_ = object.get();
    if (!predefined) owner_ = object;
  }

  // Empty again; drops a user object's reference (none to drop for a
  // predefined one, the common case: no shared_ptr traffic).
  void reset() {
    ptr_ = nullptr;
    if (owner_) owner_.reset();
  }

  // A shared_ptr that keeps the object alive at least as long as this ref
  // does: owning for user objects, non-owning for predefined ones.
  std::shared_ptr<T> share() const {
    return owner_ ? owner_ : std::shared_ptr<T>(std::shared_ptr<T>{}, ptr_);
  }
  // Same, handing over this ref's ownership (no reference-count traffic);
  // empties this.
  std::shared_ptr<T> release() {
    T* p = ptr_;
    ptr_ = nullptr;
    if (owner_) return std::move(owner_);
    return std::shared_ptr<T>(std::shared_ptr<T>{}, p);
  }

 private:
  T* ptr_ = nullptr;
  std::shared_ptr<T> owner_;
};

}  // namespace mpi
