#pragma once
// The arithmetic of MPI's predefined reduction operations, on packed element
// streams: what a reduction of n elements of one predefined type does,
// independent of how the user laid them out (ops.hpp deals with layouts).
//
// A packed stream holds the elements back to back with no padding (a pair
// type's value then its int: 12 bytes for MPI_DOUBLE_INT), so it may be
// unaligned; the kernels load and store through memcpy.

#include <cstdint>

namespace mpi {

// The predefined operations, numbered like the low bits of their handles
// (MPI_MAX = 1 ... MPI_NO_OP = 14); `user` is an MPI_Op_create function.
enum class OpKind : std::uint8_t {
  user = 0,
  max = 1,
  min,
  sum,
  prod,
  land,
  band,
  lor,
  bor,
  lxor,
  bxor,
  minloc,
  maxloc,
  replace,
  no_op,
};
inline constexpr int kNumPredefinedOps = 14;

// inout[i] = in[i] op inout[i] for n packed elements.
using OpKernel = void (*)(const void* in, void* inout, std::int64_t n);

// The kernel of `op` for elements of the predefined type with element id
// `element_id` (predefined_slot(MPI_INT) ...), or null when the standard does not
// define the op on that type (MPI_SUM on MPI_CHAR, MPI_BAND on MPI_FLOAT,
// MINLOC on MPI_INT, anything on MPI_PACKED, ...). MPI_REPLACE and
// MPI_NO_OP take every type and work on bytes, so they have no kernel here
// (ops.hpp copies or leaves the bytes).
OpKernel find_kernel(OpKind op, int element_id);

}  // namespace mpi
