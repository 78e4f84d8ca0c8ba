#pragma once
// Turning (buffer, count, datatype) into the contiguous bytes mpcpi moves.
// Contiguous layouts pass through untouched (zero copy); others are packed
// into, or received into and unpacked from, a staging buffer.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "mpi/internal/datatype.hpp"
#include "mpi/internal/scratch.hpp"

namespace mpi {

// Uninitialised bytes (no memset for large messages).
struct Staging {
  std::unique_ptr<char[], ScratchDelete> data;
  std::size_t size = 0;
  void allocate(std::size_t n) {
    if (n > size || !data) {
      data.reset(scratch::take(n == 0 ? 1 : n, false));
      size = n;
    }
  }
  // As allocate(), but reports exhaustion instead of throwing (for sizes a
  // caller takes from the user unchecked, e.g. INT_MAX elements).
  [[nodiscard]] bool try_allocate(std::size_t n) {
    if (n <= size && data) return true;
    data.reset(scratch::take(n == 0 ? 1 : n, true));
    size = data ? n : 0;
    return data != nullptr;
  }
};

// Address of the first data byte of `count` instances at `buf` (MPI_BOTTOM
// + absolute displacement works because no pointer is dereferenced here).
inline char* data_start(const void* buf, const Datatype& type) {
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf) + type.data_offset());
}

struct SendBytes {
  const void* data = nullptr;
  std::size_t bytes = 0;
};

// Contiguous: points into the user buffer. Otherwise packs into `staging`.
inline SendBytes prepare_send(const void* buf, std::int64_t count, const Datatype& type,
                              Staging& staging) {
  std::size_t bytes = static_cast<std::size_t>(count * type.size());
  if (type.contiguous_for(count)) return {bytes == 0 ? buf : data_start(buf, type), bytes};
  staging.allocate(bytes);
  pack(type, buf, count, staging.data.get());
  return {staging.data.get(), bytes};
}

struct RecvBytes {
  void* data = nullptr;
  std::size_t capacity = 0;
  bool unpack = false;  // data is staging: unpack into the user buffer afterwards
};

inline RecvBytes prepare_recv(void* buf, std::int64_t count, const Datatype& type,
                              Staging& staging) {
  std::size_t bytes = static_cast<std::size_t>(count * type.size());
  if (type.contiguous_for(count)) return {bytes == 0 ? buf : data_start(buf, type), bytes, false};
  staging.allocate(bytes);
  return {staging.data.get(), bytes, true};
}

}  // namespace mpi
