#pragma once
// The hidden fields of MPI_Status in MPICH's layout: a byte count split over
// count_lo and bits 1..31 of count_hi_and_cancelled, whose bit 0 is the
// cancel flag (MPICH's MPIR_STATUS_SET_COUNT and friends). The high part is
// read as unsigned: a count of 2^62 or more sets the int's sign bit.

#include <cstdint>

#include "mpi.h"

namespace mpi {

inline MPI_Count status_count(const MPI_Status& s) {
  return static_cast<MPI_Count>(static_cast<unsigned>(s.count_lo)) +
         (static_cast<MPI_Count>(static_cast<std::uint32_t>(s.count_hi_and_cancelled) >> 1) << 32);
}

inline void set_status_count(MPI_Status& s, MPI_Count bytes) {
  s.count_lo = static_cast<int>(static_cast<std::uint32_t>(bytes));
  s.count_hi_and_cancelled =
      (s.count_hi_and_cancelled & 1) | static_cast<int>(static_cast<std::uint32_t>(bytes >> 32) << 1);
}

inline bool status_cancelled(const MPI_Status& s) { return (s.count_hi_and_cancelled & 1) != 0; }

inline void set_status_cancelled(MPI_Status& s, bool cancelled) {
  s.count_hi_and_cancelled = (s.count_hi_and_cancelled & ~1) | (cancelled ? 1 : 0);
}

}  // namespace mpi
