// Derived datatype constructors, the int forms. Each validates, converts
// displacements to bytes and hands the layout to the datatype engine; vector,
// hvector, the indexed family, struct and subarray through the 64-bit core
// they share with the large-count forms (internal/type_build.hpp).
#include <algorithm>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/type_attributes.hpp"
#include "mpi/internal/type_build.hpp"

using namespace mpi;

extern "C" int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_contiguous");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_contiguous";
  if (int rc = check_running(kFn)) return rc;
  TypePtr old;
  int rc = common_checks(count, oldtype, newtype, old);
  if (rc == MPI_SUCCESS) {
    rc = store_type(Datatype::contiguous(count, old), newtype,
                    {MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype}, {old}});
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_vector");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_vector";
  if (int rc = check_running(kFn)) return rc;
  const int rc =
      build_vector(count, blocklength, stride, false, MPI_COMBINER_VECTOR, oldtype, newtype, [&] {
        return Envelope{MPI_COMBINER_VECTOR, {count, blocklength, stride}};
      });
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                       MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hvector");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_hvector";
  if (int rc = check_running(kFn)) return rc;
  const int rc =
      build_vector(count, blocklength, stride, true, MPI_COMBINER_HVECTOR, oldtype, newtype, [&] {
        return Envelope{MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}};
      });
  return raise(nullptr, kFn, rc);
}

namespace {

// The indexed family's int forms: every block `fixed_len` long for the
// _BLOCK combiners; displacements in old extents (int) or bytes (MPI_Aint).
template <typename Disp>
int indexed_common(const char* fn, int count, const int* blocklens, int fixed_len,
                   const Disp* displs, bool displs_in_bytes, MPI_Datatype oldtype,
                   MPI_Datatype* newtype, int combiner) {
  const std::vector<std::int64_t> lens = widened(blocklens, count), disps = widened(displs, count);
  const int rc = build_indexed(count, widened_or_null(blocklens, lens), fixed_len,
                               widened_or_null(displs, disps), displs_in_bytes, combiner, oldtype,
                               newtype, [&] {
                                 // The arguments as MPI_Type_get_contents gives them back.
                                 Envelope env{combiner, {count}};
                                 if (one_block_length(combiner)) {
                                   env.ints.push_back(fixed_len);
                                 } else {
                                   env.ints.insert(env.ints.end(), blocklens, blocklens + count);
                                 }
                                 for (int i = 0; i < count; ++i) {
                                   if (displs_in_bytes) {
                                     env.aints.push_back(static_cast<std::int64_t>(displs[i]));
                                   } else {
                                     env.ints.push_back(static_cast<int>(displs[i]));
                                   }
                                 }
                                 return env;
                               });
  return raise(nullptr, fn, rc);
}

}  // namespace

extern "C" int MPI_Type_indexed(int count, const int blocklens[], const int displs[],
                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_indexed");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_indexed";
  if (int rc = check_running(kFn)) return rc;
  return indexed_common(kFn, count, blocklens, 0, displs, false, oldtype, newtype,
                        MPI_COMBINER_INDEXED);
}

extern "C" int MPI_Type_create_hindexed(int count, const int blocklens[], const MPI_Aint displs[],
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hindexed");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_hindexed";
  if (int rc = check_running(kFn)) return rc;
  return indexed_common(kFn, count, blocklens, 0, displs, true, oldtype, newtype,
                        MPI_COMBINER_HINDEXED);
}

extern "C" int MPI_Type_create_indexed_block(int count, int blocklength, const int displs[],
                                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_indexed_block");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_indexed_block";
  if (int rc = check_running(kFn)) return rc;
  return indexed_common<int>(kFn, count, nullptr, blocklength, displs, false, oldtype, newtype,
                             MPI_COMBINER_INDEXED_BLOCK);
}

extern "C" int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displs[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hindexed_block");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_hindexed_block";
  if (int rc = check_running(kFn)) return rc;
  return indexed_common<MPI_Aint>(kFn, count, nullptr, blocklength, displs, true, oldtype,
                                  newtype, MPI_COMBINER_HINDEXED_BLOCK);
}

extern "C" int MPI_Type_create_struct(int count, const int blocklens[], const MPI_Aint displs[],
                                      const MPI_Datatype types[], MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_struct");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_struct";
  if (int rc = check_running(kFn)) return rc;
  const std::vector<std::int64_t> lens = widened(blocklens, count), disps = widened(displs, count);
  const int rc = build_struct(count, widened_or_null(blocklens, lens),
                              widened_or_null(displs, disps), types, newtype, [&] {
                                Envelope env{MPI_COMBINER_STRUCT, {count}};
                                env.ints.insert(env.ints.end(), blocklens, blocklens + count);
                                env.aints.assign(displs, displs + count);
                                return env;
                              });
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                       MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_resized");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_resized";
  if (int rc = check_running(kFn)) return rc;
  const int rc = build_resized(oldtype, lb, extent, newtype, [&] {
    return Envelope{MPI_COMBINER_RESIZED, {}, {lb, extent}};
  });
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                                        const int starts[], int order, MPI_Datatype oldtype,
                                        MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_subarray");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_subarray";
  if (int rc = check_running(kFn)) return rc;
  const std::vector<std::int64_t> sz = widened(sizes, ndims), sub = widened(subsizes, ndims),
                                  st = widened(starts, ndims);
  const int rc = build_subarray(ndims, widened_or_null(sizes, sz), widened_or_null(subsizes, sub),
                                widened_or_null(starts, st), order, oldtype, newtype, [&] {
                                  Envelope env{MPI_COMBINER_SUBARRAY, {ndims}};
                                  env.ints.insert(env.ints.end(), sizes, sizes + ndims);
                                  env.ints.insert(env.ints.end(), subsizes, subsizes + ndims);
                                  env.ints.insert(env.ints.end(), starts, starts + ndims);
                                  env.ints.push_back(order);
                                  return env;
                                });
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_dup");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_dup";
  if (int rc = check_running(kFn)) return rc;
  TypePtr old;
  int rc = common_checks(0, oldtype, newtype, old);
  if (rc == MPI_SUCCESS) {
    TypePtr t = Datatype::dup(old);
    // A duplicate of a committed type is committed (MPI 3.1, 4.1.10).
    if (old->committed()) rc = commit_type(*t);
    if (rc == MPI_SUCCESS) {
      rc = store_type(std::move(t), newtype, {MPI_COMBINER_DUP, {}, {}, {oldtype}, {old}});
    }
  }
  if (rc == MPI_SUCCESS) {
    rc = copy_type_attributes(oldtype, *newtype);
    // A copy callback failed: no half-copied type is left, newtype is MPI_DATATYPE_NULL, and
    // what was copied gets its delete callbacks.
    if (rc != MPI_SUCCESS) (void)release_type(newtype);
  }
  return raise(nullptr, kFn, rc);
}

namespace {

// One dimension of a darray: the blocks (first global index, length) this
// process owns along it. MPI 3.1 section 4.1.4.
struct DimBlocks {
  std::vector<std::int64_t> starts, lens;
};

int darray_dim(int d, int gsize, int distrib, int darg, int psize, int coord, DimBlocks& out) {
  if (gsize <= 0) return fail(MPI_ERR_ARG, "array_of_gsizes[{}]={} is not positive", d, gsize);
  if (psize <= 0) return fail(MPI_ERR_ARG, "array_of_psizes[{}]={} is not positive", d, psize);
  if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0) {
    return fail(MPI_ERR_ARG, "array_of_dargs[{}]={} is not positive or MPI_DISTRIBUTE_DFLT_DARG",
                d, darg);
  }
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
      if (psize != 1) {
        return fail(MPI_ERR_ARG, "array_of_psizes[{}]={} must be 1 with MPI_DISTRIBUTE_NONE", d,
                    psize);
      }
      out.starts.push_back(0);
      out.lens.push_back(gsize);
      return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK: {
      const std::int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG
                                 ? (std::int64_t{gsize} + psize - 1) / psize
                                 : std::int64_t{darg};
      if (b * psize < gsize) {
        return fail(MPI_ERR_ARG,
                    "array_of_dargs[{}]={} times array_of_psizes[{}]={} does not cover "
                    "array_of_gsizes[{}]={}",
                    d, darg, d, psize, d, gsize);
      }
      const std::int64_t first = b * coord;
      out.starts.push_back(first);
      out.lens.push_back(std::max<std::int64_t>(0, std::min<std::int64_t>(b, gsize - first)));
      return MPI_SUCCESS;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      const std::int64_t k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
      for (std::int64_t j = k * coord; j < gsize; j += k * psize) {
        out.starts.push_back(j);
        out.lens.push_back(std::min<std::int64_t>(k, gsize - j));
      }
      return MPI_SUCCESS;
    }
    default:
      return fail(MPI_ERR_ARG, "array_of_distribs[{}]={} is not an MPI_DISTRIBUTE_ value", d,
                  distrib);
  }
}

}  // namespace

// Built dimension by dimension from the fastest-varying one: the blocks
// this process owns along a dimension, as an hindexed type of the type
// built so far, resized to the whole dimension (so the next dimension
// strides over full rows). The result spans the whole global array.
extern "C" int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                      const int array_of_distribs[], const int array_of_dargs[],
                                      const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_darray");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_darray";
  if (int rc = check_running(kFn)) return rc;
  TypePtr old;
  int rc = common_checks(0, oldtype, newtype, old);
  if (rc == MPI_SUCCESS && size <= 0) rc = fail(MPI_ERR_ARG, "size={} is not positive", size);
  if (rc == MPI_SUCCESS && (rank < 0 || rank >= size)) {
    rc = fail(MPI_ERR_ARG, "rank={} is not in 0..{}", rank, size - 1);
  }
  if (rc == MPI_SUCCESS && ndims <= 0) rc = fail(MPI_ERR_ARG, "ndims={} is not positive", ndims);
  if (rc == MPI_SUCCESS) rc = check_array(ndims, array_of_gsizes, "array_of_gsizes");
  if (rc == MPI_SUCCESS) rc = check_array(ndims, array_of_distribs, "array_of_distribs");
  if (rc == MPI_SUCCESS) rc = check_array(ndims, array_of_dargs, "array_of_dargs");
  if (rc == MPI_SUCCESS) rc = check_array(ndims, array_of_psizes, "array_of_psizes");
  if (rc == MPI_SUCCESS && order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
    rc = fail(MPI_ERR_ARG, "order={} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  }
  long long procs = 1;
  for (int d = 0; rc == MPI_SUCCESS && d < ndims; ++d) {
    procs *= array_of_psizes[d] > 0 ? array_of_psizes[d] : 1;
    if (procs > size) break;
  }
  if (rc == MPI_SUCCESS && procs != size) {
    rc = fail(MPI_ERR_ARG, "the product of array_of_psizes is not size={}", size);
  }
  // This process's coordinates: row-major over the process grid whatever
  // the array order.
  std::vector<int> coords(rc == MPI_SUCCESS ? ndims : 0);
  for (int d = ndims - 1, r = rank; rc == MPI_SUCCESS && d >= 0; --d) {
    coords[d] = r % array_of_psizes[d];
    r /= array_of_psizes[d];
  }
  TypePtr t = old;
  for (int i = 0; rc == MPI_SUCCESS && i < ndims; ++i) {
    const int d = order == MPI_ORDER_C ? ndims - 1 - i : i;
    DimBlocks blocks;
    rc = darray_dim(d, array_of_gsizes[d], array_of_distribs[d], array_of_dargs[d],
                    array_of_psizes[d], coords[d], blocks);
    if (rc != MPI_SUCCESS) break;
    const std::int64_t unit = t->extent();
    std::vector<std::int64_t> bytes(blocks.starts.size());
    for (std::size_t b = 0; b < bytes.size(); ++b) bytes[b] = blocks.starts[b] * unit;
    TypePtr dim = Datatype::hindexed(blocks.lens, bytes, t, MPI_COMBINER_HINDEXED);
    if (dim != nullptr) dim = Datatype::resized(dim, 0, unit * array_of_gsizes[d]);
    if (dim == nullptr) {
      rc = fail(MPI_ERR_ARG, "the array's size does not fit in +-2^61 bytes");
      break;
    }
    t = std::move(dim);
  }
  if (rc == MPI_SUCCESS) {
    Envelope env{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {oldtype}, {old}};
    for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes}) {
      env.ints.insert(env.ints.end(), a, a + ndims);
    }
    env.ints.push_back(order);
    rc = store_type(std::move(t), newtype, std::move(env));
  }
  return raise(nullptr, kFn, rc);
}
