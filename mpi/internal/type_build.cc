#include "mpi/internal/type_build.hpp"

#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

namespace {

int check_blocklength(std::int64_t value, const char* arg, std::int64_t index = -1) {
  if (value >= 0) return MPI_SUCCESS;
  if (index < 0) return fail(MPI_ERR_ARG, "{}={} is negative", arg, value);
  return fail(MPI_ERR_ARG, "{}[{}]={} is negative", arg, index, value);
}

// Stores `t`, described by `describe` and its one old type.
int store_described(TypePtr t, MPI_Datatype* newtype, const DescribeArgs& describe,
                    MPI_Datatype oldtype, TypePtr old) {
  Envelope env = describe();
  env.type_handles = {oldtype};
  env.types = {std::move(old)};
  return store_type(std::move(t), newtype, std::move(env));
}

// A count of old extents in bytes; false when it does not fit in 64 bits.
bool scaled(std::int64_t n, const Datatype& old, std::int64_t& bytes) {
  return !__builtin_mul_overflow(n, old.extent(), &bytes);
}

}  // namespace

int common_checks(std::int64_t count, MPI_Datatype oldtype, MPI_Datatype* newtype, TypePtr& old) {
  int rc = check_count(count);
  if (rc == MPI_SUCCESS) rc = lookup_type(oldtype, old, false, "oldtype");
  if (rc == MPI_SUCCESS) rc = check_not_null(newtype, "newtype");
  return rc;
}

int check_array(std::int64_t count, const void* array, const char* arg) {
  if (count == 0 || array != nullptr) return MPI_SUCCESS;
  return fail(MPI_ERR_ARG, "{} is NULL with count={}", arg, count);
}

int store_type(TypePtr t, MPI_Datatype* out, Envelope env) {
  if (t == nullptr) {
    return fail(MPI_ERR_ARG, "the new type's size or bounds do not fit in +-2^61 bytes");
  }
  // A new object: nothing else refers to it yet.
  std::const_pointer_cast<Datatype>(t)->envelope = std::make_shared<const Envelope>(std::move(env));
  MPI_Datatype h = state().types.insert(std::move(t));
  if (h == MPI_DATATYPE_NULL) return fail(MPI_ERR_INTERN, "too many datatypes");
  *out = h;
  return MPI_SUCCESS;
}

int build_vector(std::int64_t count, std::int64_t blocklen, std::int64_t stride,
                 bool stride_in_bytes, int combiner, MPI_Datatype oldtype, MPI_Datatype* newtype,
                 const DescribeArgs& describe) {
  TypePtr old;
  int rc = common_checks(count, oldtype, newtype, old);
  if (rc == MPI_SUCCESS) rc = check_blocklength(blocklen, "blocklength");
  std::int64_t stride_bytes = stride;
  if (rc == MPI_SUCCESS && !stride_in_bytes && !scaled(stride, *old, stride_bytes)) {
    rc = fail(MPI_ERR_ARG, "stride={} old extents overflow 64 bits", stride);
  }
  if (rc != MPI_SUCCESS) return rc;
  return store_described(Datatype::hvector(count, blocklen, stride_bytes, old, combiner), newtype,
                         describe, oldtype, old);
}

int build_indexed(std::int64_t count, const std::int64_t* blocklens, std::int64_t fixed_len,
                  const std::int64_t* displs, bool displs_in_bytes, int combiner,
                  MPI_Datatype oldtype, MPI_Datatype* newtype, const DescribeArgs& describe) {
  const bool fixed = one_block_length(combiner);
  TypePtr old;
  int rc = common_checks(count, oldtype, newtype, old);
  if (rc == MPI_SUCCESS && fixed) rc = check_blocklength(fixed_len, "blocklength");
  if (rc == MPI_SUCCESS && !fixed) rc = check_array(count, blocklens, "array_of_blocklengths");
  if (rc == MPI_SUCCESS) rc = check_array(count, displs, "array_of_displacements");
  // Sized for a valid count only: a negative one was refused above.
  const std::size_t n = rc == MPI_SUCCESS ? static_cast<std::size_t>(count) : 0;
  std::vector<std::int64_t> lens(n), bytes(n);
  for (std::size_t i = 0; rc == MPI_SUCCESS && i < n; ++i) {
    lens[i] = fixed ? fixed_len : blocklens[i];
    rc = check_blocklength(lens[i], "array_of_blocklengths", static_cast<std::int64_t>(i));
    bytes[i] = displs[i];
    if (rc == MPI_SUCCESS && !displs_in_bytes && !scaled(displs[i], *old, bytes[i])) {
      rc = fail(MPI_ERR_ARG, "array_of_displacements[{}]={} old extents overflow 64 bits", i,
                displs[i]);
    }
  }
  if (rc != MPI_SUCCESS) return rc;
  return store_described(Datatype::hindexed(lens, bytes, old, combiner), newtype, describe, oldtype,
                         old);
}

int build_struct(std::int64_t count, const std::int64_t* blocklens, const std::int64_t* displs,
                 const MPI_Datatype* types, MPI_Datatype* newtype, const DescribeArgs& describe) {
  int rc = check_count(count);
  if (rc == MPI_SUCCESS) rc = check_array(count, blocklens, "array_of_blocklengths");
  if (rc == MPI_SUCCESS) rc = check_array(count, displs, "array_of_displacements");
  if (rc == MPI_SUCCESS) rc = check_array(count, types, "array_of_types");
  if (rc == MPI_SUCCESS) rc = check_not_null(newtype, "newtype");
  const std::size_t n = rc == MPI_SUCCESS ? static_cast<std::size_t>(count) : 0;
  std::vector<std::int64_t> lens(n), bytes(n);
  std::vector<TypePtr> children(n);
  for (std::size_t i = 0; rc == MPI_SUCCESS && i < n; ++i) {
    rc = check_blocklength(blocklens[i], "array_of_blocklengths", static_cast<std::int64_t>(i));
    if (rc == MPI_SUCCESS && lookup_type(types[i], children[i], false) != MPI_SUCCESS) {
      rc = fail(MPI_ERR_TYPE, "array_of_types[{}]={:#x} is not a datatype", i, types[i]);
    }
    lens[i] = blocklens[i];
    bytes[i] = displs[i];
  }
  if (rc != MPI_SUCCESS) return rc;
  Envelope env = describe();
  env.type_handles.assign(types, types + n);
  env.types = children;
  return store_type(Datatype::create_struct(lens, bytes, children), newtype, std::move(env));
}

int build_subarray(int ndims, const std::int64_t* sizes, const std::int64_t* subsizes,
                   const std::int64_t* starts, int order, MPI_Datatype oldtype,
                   MPI_Datatype* newtype, const DescribeArgs& describe) {
  TypePtr old;
  int rc = common_checks(0, oldtype, newtype, old);
  if (rc == MPI_SUCCESS && ndims <= 0) rc = fail(MPI_ERR_ARG, "ndims={} is not positive", ndims);
  if (rc == MPI_SUCCESS) rc = check_array(ndims, sizes, "array_of_sizes");
  if (rc == MPI_SUCCESS) rc = check_array(ndims, subsizes, "array_of_subsizes");
  if (rc == MPI_SUCCESS) rc = check_array(ndims, starts, "array_of_starts");
  if (rc == MPI_SUCCESS && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    rc = fail(MPI_ERR_ARG, "order={} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  for (int d = 0; rc == MPI_SUCCESS && d < ndims; ++d) {
    if (sizes[d] <= 0) {
      rc = fail(MPI_ERR_ARG, "array_of_sizes[{}]={} is not positive", d, sizes[d]);
    } else if (subsizes[d] < 0 || subsizes[d] > sizes[d]) {
      rc = fail(MPI_ERR_ARG, "array_of_subsizes[{}]={} is outside 0..{}", d, subsizes[d], sizes[d]);
    } else if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d]) {
      rc = fail(MPI_ERR_ARG, "array_of_starts[{}]={} is outside 0..{}", d, starts[d],
                sizes[d] - subsizes[d]);
    }
  }
  if (rc != MPI_SUCCESS) return rc;
  const auto dims = static_cast<std::size_t>(ndims);
  return store_described(Datatype::subarray({sizes, dims}, {subsizes, dims}, {starts, dims},
                                            order == MPI_ORDER_C, old),
                         newtype, describe, oldtype, old);
}

int build_resized(MPI_Datatype oldtype, std::int64_t lb, std::int64_t extent, MPI_Datatype* newtype,
                  const DescribeArgs& describe) {
  TypePtr old;
  const int rc = common_checks(0, oldtype, newtype, old);
  if (rc != MPI_SUCCESS) return rc;
  return store_described(Datatype::resized(old, lb, extent), newtype, describe, oldtype, old);
}

}  // namespace mpi
