#include "mpi/internal/coll/blocks.hpp"

#include <cstring>

#include "mpi.h"
#include "mpi/internal/errors.hpp"

namespace mpi {

BlockArea::BlockArea(void* buf, const Datatype& type, const int* counts, const int* displs, int n)
    : buf_(static_cast<char*>(buf)), type_(type), counts_(n), displs_(n), offsets_(n + 1, 0) {
  std::int64_t next = 0;
  direct_ = type.contiguous_for(2);  // dense: any count of instances is one block
  for (int r = 0; r < n; ++r) {
    counts_[r] = counts[r];
    displs_[r] = displs ? displs[r] : next;
    if (displs && displs_[r] != displs_[0] + next) direct_ = false;
    next += counts_[r];
    offsets_[r + 1] = offsets_[r] + static_cast<std::size_t>(counts_[r] * type.size());
  }
  if (direct_) {
    packed_ = n > 0 ? data_start(user_block(0), type) : buf_;
  } else {
    staging_.allocate(offsets_.back());
    packed_ = staging_.data.get();
  }
}

char* BlockArea::user_block(int r) const {
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(buf_) +
                                 displs_[r] * type_.extent());
}

void BlockArea::load(int r) {
  if (!direct_) pack(type_, user_block(r), counts_[r], packed_ + offsets_[r]);
}

void BlockArea::load_all() {
  for (int r = 0; r < static_cast<int>(counts_.size()); ++r) load(r);
}

void BlockArea::store_all(int skip) {
  if (direct_) return;
  for (int r = 0; r < static_cast<int>(counts_.size()); ++r) {
    if (r == skip) continue;
    unpack(type_, user_block(r), counts_[r], packed_ + offsets_[r],
           static_cast<std::int64_t>(bytes(r)));
  }
}

int local_copy(const void* sbuf, std::int64_t scount, const Datatype& stype, void* rbuf,
               std::int64_t rcount, const Datatype& rtype) {
  const std::int64_t sbytes = scount * stype.size(), rbytes = rcount * rtype.size();
  if (sbytes > rbytes) {
    return fail(MPI_ERR_TRUNCATE, "this rank's own block of {} bytes is longer than its receive "
                "block ({} bytes)", sbytes, rbytes);
  }
  if (sbytes == 0) return MPI_SUCCESS;
  Staging staging;
  SendBytes sb = prepare_send(sbuf, scount, stype, staging);
  unpack(rtype, rbuf, rcount, sb.data, sbytes);
  return MPI_SUCCESS;
}

}  // namespace mpi
