#pragma once
// A user buffer holding one block per rank (gather's and allgather's
// receive buffer, scatter's send buffer): block r is counts[r] instances of
// one datatype at buf + displs[r] * extent. The algorithms see the blocks
// packed back to back in rank order; when the user's blocks already lie
// that way (a dense type, displacements following the counts) that is the
// user's memory itself, otherwise a staging copy that load()/store() fill
// from or empty into the user's buffer.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi/internal/buffers.hpp"
#include "mpi/internal/datatype.hpp"

namespace mpi {

class BlockArea {
 public:
  // counts/displs: one per rank (displs null = regular: block r at r * counts[0]
  // ... i.e. prefix sums of the counts).
  BlockArea(void* buf, const Datatype& type, const int* counts, const int* displs, int n);

  char* packed() { return packed_; }
  const std::vector<std::size_t>& offsets() const { return offsets_; }
  std::size_t offset(int r) const { return offsets_[r]; }
  std::size_t bytes(int r) const { return offsets_[r + 1] - offsets_[r]; }
  std::size_t total_bytes() const { return offsets_.back(); }
  // Packs user block r (or all of them) into the packed area; no-op when
  // the area is the user's memory.
  void load(int r);
  void load_all();
  // Unpacks the packed area into the user's blocks (all, or all but `skip`).
  void store_all(int skip = -1);

 private:
  char* user_block(int r) const;

  char* buf_;
  const Datatype& type_;
  std::vector<std::int64_t> counts_, displs_;
  std::vector<std::size_t> offsets_;
  Staging staging_;
  char* packed_ = nullptr;
  bool direct_ = false;
};

// Packs `count` instances at buf into `out` (resized to hold them).
inline char* pack_to(Staging& out, const void* buf, std::int64_t count, const Datatype& type) {
  out.allocate(static_cast<std::size_t>(count * type.size()));
  pack(type, buf, count, out.data.get());
  return out.data.get();
}

// Copies `scount` instances of `stype` at sbuf into `rcount` instances of
// `rtype` at rbuf (a rank's own block). MPI_ERR_TRUNCATE when the data does
// not fit.
int local_copy(const void* sbuf, std::int64_t scount, const Datatype& stype, void* rbuf,
               std::int64_t rcount, const Datatype& rtype);

}  // namespace mpi
