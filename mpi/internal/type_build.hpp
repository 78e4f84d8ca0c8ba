#pragma once
// The derived-datatype constructors' common work, in 64-bit values, shared by
// the int forms (api/type_create.cc) and MPI-4's large-count _c forms
// (api/large_count_types.cc), so a count, block length, stride or
// displacement beyond INT_MAX builds the same layout an int one does:
// validate (the error names the argument), convert displacements to bytes,
// build, store the new handle in *newtype. `describe` gives the arguments as
// MPI_Type_get_contents[_c] returns them (combiner, ints, addresses, large
// counts); it runs only once they passed, and the builder adds the types.
// Each returns an MPI error code, not yet raised: the caller raises it under
// its own name.

#include <cstdint>
#include <functional>
#include <vector>

#include "mpi.h"
#include "mpi/internal/datatype.hpp"

namespace mpi {

using DescribeArgs = std::function<Envelope()>;

// Stores a new type (null: its size or bounds do not fit) with `env`.
int store_type(TypePtr t, MPI_Datatype* out, Envelope env);
// Checks shared by every constructor: count, old type (into `old`), newtype.
int common_checks(std::int64_t count, MPI_Datatype oldtype, MPI_Datatype* newtype, TypePtr& old);
// An array argument may be null only with count 0.
int check_array(std::int64_t count, const void* array, const char* arg);

// count blocks of blocklen old types, `stride` apart (old extents, or bytes
// with stride_in_bytes). combiner: MPI_COMBINER_VECTOR or _HVECTOR.
int build_vector(std::int64_t count, std::int64_t blocklen, std::int64_t stride,
                 bool stride_in_bytes, int combiner, MPI_Datatype oldtype, MPI_Datatype* newtype,
                 const DescribeArgs& describe);
// The indexed family: every block fixed_len long for the _BLOCK combiners,
// else blocklens[i]; displacements in old extents, or bytes with
// displs_in_bytes.
int build_indexed(std::int64_t count, const std::int64_t* blocklens, std::int64_t fixed_len,
                  const std::int64_t* displs, bool displs_in_bytes, int combiner,
                  MPI_Datatype oldtype, MPI_Datatype* newtype, const DescribeArgs& describe);
// Whether the combiner's blocks share one length (indexed_block, hindexed_block).
inline bool one_block_length(int combiner) {
  return combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
}
int build_struct(std::int64_t count, const std::int64_t* blocklens, const std::int64_t* displs,
                 const MPI_Datatype* types, MPI_Datatype* newtype, const DescribeArgs& describe);
int build_resized(MPI_Datatype oldtype, std::int64_t lb, std::int64_t extent, MPI_Datatype* newtype,
                  const DescribeArgs& describe);
int build_subarray(int ndims, const std::int64_t* sizes, const std::int64_t* subsizes,
                   const std::int64_t* starts, int order, MPI_Datatype oldtype,
                   MPI_Datatype* newtype, const DescribeArgs& describe);

// The first n of `values` as 64-bit values (none when null or n <= 0).
template <typename T>
std::vector<std::int64_t> widened(const T* values, std::int64_t n) {
  if (values == nullptr || n <= 0) return {};
  return std::vector<std::int64_t>(values, values + n);
}
// What to pass for an array the caller gave as `given`: null stays null.
template <typename T>
const std::int64_t* widened_or_null(const T* given, const std::vector<std::int64_t>& wide) {
  return given == nullptr ? nullptr : wide.data();
}

}  // namespace mpi
