// The MPI-4.0 large-count forms of the datatype constructors, packing and
// MPI_Op_create (decoding, MPI_Type_get_envelope_c / get_contents_c, is in
// type_contents.cc).
//  - Constructors: the layout is built in 64-bit values as the int forms'
//    (internal/type_build.hpp), so counts, block lengths, strides and
//    displacements may pass INT_MAX; Type_contiguous_c beyond INT_MAX makes a
//    run type (internal/large_count.hpp). Type_create_darray_c still calls
//    the int form: its global sizes must fit an int, else MPI_ERR_COUNT
//    naming the argument. A new type describes itself as the _c call that
//    made it (MPI_Type_get_envelope_c: its MPI_Count arguments as large
//    counts, MPI 4.0 table 5.1).
//  - Packing: the packed format is the data's bytes with no header, so a
//    position beyond INT_MAX is handled by starting the int form's buffer
//    there; one call packs or unpacks at most INT_MAX bytes.
#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/large_count.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/type_build.hpp"

using namespace mpi;

namespace {

// After the int constructor made `handle`: its envelope says the _c call
// made it (`ints`: the int arguments the _c form keeps as int).
void describe_as_large(MPI_Datatype handle, std::vector<int> ints,
                       std::vector<std::int64_t> counts) {
  TypePtr* t = state().types.find(handle);
  if (t == nullptr || *t == nullptr || (*t)->envelope == nullptr) return;
  Envelope env = *(*t)->envelope;
  env.ints = std::move(ints);
  env.aints.clear();
  env.counts = std::move(counts);
  // A new object: nothing else refers to it yet.
  std::const_pointer_cast<Datatype>(*t)->envelope =
      std::make_shared<const Envelope>(std::move(env));
}

}  // namespace

// ---- constructors

extern "C" int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_contiguous_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  if (count <= INT_MAX) {
    const int rc = MPI_Type_contiguous(small_count(count), oldtype, newtype);
    if (rc == MPI_SUCCESS) describe_as_large(*newtype, {}, {count});
    return rc;
  }
  int rc = check_not_null(newtype, "newtype");
  TypePtr old;
  if (rc == MPI_SUCCESS) rc = lookup_type(oldtype, old, false, "oldtype");
  if (rc == MPI_SUCCESS) rc = run_of(count, old, oldtype, "count", *newtype);
  // A constructor's result is not committed: run_of's is (the run types
  // move data at once), which MPI_Type_commit accepts again.
  return raise(nullptr, "MPI_Type_contiguous_c", rc);
}

namespace {

// The envelope of a type a _c constructor made: its MPI_Count arguments as
// large counts (MPI 4.0 table 5.1), `ints` the ones it keeps as int.
DescribeArgs large(int combiner, std::vector<int> ints, std::vector<std::int64_t> counts) {
  return [=] {
    Envelope env{combiner, ints};
    env.counts = counts;
    return env;
  };
}

// An envelope's large counts: `head`, then the first n of each array given.
std::vector<std::int64_t> counts_of(std::initializer_list<MPI_Count> head,
                                    std::initializer_list<const MPI_Count*> arrays, MPI_Count n) {
  std::vector<std::int64_t> out(head);
  for (const MPI_Count* a : arrays) {
    if (a != nullptr && n > 0) out.insert(out.end(), a, a + n);
  }
  return out;
}

}  // namespace

extern "C" int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_vector_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_vector_c";
  if (int rc = check_running(kFn)) return rc;
  return raise(nullptr, kFn,
               build_vector(count, blocklength, stride, false, MPI_COMBINER_VECTOR, oldtype,
                            newtype, large(MPI_COMBINER_VECTOR, {}, {count, blocklength, stride})));
}

extern "C" int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hvector_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_hvector_c";
  if (int rc = check_running(kFn)) return rc;
  return raise(
      nullptr, kFn,
      build_vector(count, blocklength, stride, true, MPI_COMBINER_HVECTOR, oldtype, newtype,
                   large(MPI_COMBINER_HVECTOR, {}, {count, blocklength, stride})));
}

// The indexed family: per-block lengths or one `fixed`; displacements in old
// extents or bytes. The envelope's large counts: count, the lengths (or the
// one), the displacements.
namespace {

int indexed_c(const char* fn, MPI_Count count, const MPI_Count* blocklens, MPI_Count fixed_len,
              const MPI_Count* displs, bool displs_in_bytes, int combiner, MPI_Datatype oldtype,
              MPI_Datatype* newtype) {
  if (int rc = check_running(fn)) return rc;
  const std::vector<std::int64_t> counts = one_block_length(combiner)
                                               ? counts_of({count, fixed_len}, {displs}, count)
                                               : counts_of({count}, {blocklens, displs}, count);
  return raise(nullptr, fn,
               build_indexed(count, blocklens, fixed_len, displs, displs_in_bytes, combiner,
                             oldtype, newtype, large(combiner, {}, counts)));
}

}  // namespace

extern "C" int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                  const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_indexed_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return indexed_c("MPI_Type_indexed_c", count, array_of_blocklengths, 0, array_of_displacements,
                   false, MPI_COMBINER_INDEXED, oldtype, newtype);
}

extern "C" int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                          const MPI_Count array_of_displacements[],
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hindexed_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return indexed_c("MPI_Type_create_hindexed_c", count, array_of_blocklengths, 0,
                   array_of_displacements, true, MPI_COMBINER_HINDEXED, oldtype, newtype);
}

extern "C" int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                               const MPI_Count array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_indexed_block_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return indexed_c("MPI_Type_create_indexed_block_c", count, nullptr, blocklength,
                   array_of_displacements, false, MPI_COMBINER_INDEXED_BLOCK, oldtype, newtype);
}

extern "C" int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[],
                                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hindexed_block_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return indexed_c("MPI_Type_create_hindexed_block_c", count, nullptr, blocklength,
                   array_of_displacements, true, MPI_COMBINER_HINDEXED_BLOCK, oldtype, newtype);
}

extern "C" int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                        const MPI_Count array_of_displacements[],
                                        const MPI_Datatype array_of_types[],
                                        MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_struct_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_struct_c";
  if (int rc = check_running(kFn)) return rc;
  return raise(
      nullptr, kFn,
      build_struct(
          count, array_of_blocklengths, array_of_displacements, array_of_types, newtype,
          large(MPI_COMBINER_STRUCT, {},
                counts_of({count}, {array_of_blocklengths, array_of_displacements}, count))));
}

extern "C" int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                         MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_resized_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_resized_c";
  if (int rc = check_running(kFn)) return rc;
  return raise(
      nullptr, kFn,
      build_resized(oldtype, lb, extent, newtype, large(MPI_COMBINER_RESIZED, {}, {lb, extent})));
}

extern "C" int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                          const MPI_Count array_of_subsizes[],
                                          const MPI_Count array_of_starts[], int order,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_subarray_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_subarray_c";
  if (int rc = check_running(kFn)) return rc;
  const std::vector<std::int64_t> counts =
      counts_of({}, {array_of_sizes, array_of_subsizes, array_of_starts}, ndims);
  return raise(
      nullptr, kFn,
      build_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype,
                     newtype, large(MPI_COMBINER_SUBARRAY, {ndims, order}, counts)));
}

extern "C" int MPI_Type_create_darray_c(int size, int rank, int ndims,
                                        const MPI_Count array_of_gsizes[],
                                        const int array_of_distribs[], const int array_of_dargs[],
                                        const int array_of_psizes[], int order,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_darray_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_darray_c";
  // The int form builds it: global sizes must fit an int (null is passed on: it names it).
  IntArray gsizes;
  if (int rc =
          gsizes.set(array_of_gsizes, ndims, "array_of_gsizes",
                     "MPI_Type_create_darray_c takes global sizes that fit an int (not yet)")) {
    return raise(nullptr, kFn, rc);
  }
  const int rc = MPI_Type_create_darray(size, rank, ndims, gsizes.data(), array_of_distribs,
                                        array_of_dargs, array_of_psizes, order, oldtype, newtype);
  if (rc != MPI_SUCCESS) return rc;
  // The int arguments as MPI_Type_get_contents_c gives them back: size,
  // rank, ndims, distribs, dargs, psizes, order (the arrays when given).
  std::vector<int> ints{size, rank, ndims};
  for (const int* array : {array_of_distribs, array_of_dargs, array_of_psizes}) {
    if (array != nullptr && ndims > 0) ints.insert(ints.end(), array, array + ndims);
  }
  ints.push_back(order);
  describe_as_large(*newtype, std::move(ints), counts_of({}, {array_of_gsizes}, ndims));
  return rc;
}

// ---- packing

namespace {

// One call's packed bytes: at most INT_MAX (the int form's position).
int check_packed_bytes(MPI_Count count, MPI_Datatype type, const char* count_arg) {
  const Datatype* t = nullptr;
  if (count <= 0 || lookup_type(type, t, false) != MPI_SUCCESS)
    return MPI_SUCCESS;  // int form says
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(count, t->size(), &bytes) || bytes > INT_MAX) {
    return fail(MPI_ERR_COUNT,
                "{}={} of {} bytes each exceeds INT_MAX bytes: one pack or unpack call moves at "
                "most INT_MAX bytes (not yet)",
                count_arg, count, t->size());
  }
  return MPI_SUCCESS;
}

// The int form's view of a packed buffer from `position` on: its room, at
// most INT_MAX (what one call moves fits in it, check_packed_bytes).
int room_after(MPI_Count size, MPI_Count position, const char* size_arg, int& room) {
  if (size < 0) return fail(MPI_ERR_COUNT, "{}={} is negative", size_arg, size);
  if (position < 0 || position > size) {
    return fail(MPI_ERR_TRUNCATE, "position={} is outside 0..{}={}", position, size_arg, size);
  }
  room = static_cast<int>(std::min<MPI_Count>(size - position, INT_MAX));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                          MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  const ApiCall call("MPI_Pack_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Pack_c";
  int room = 0;
  int rc = check_not_null(position, "position");
  if (rc == MPI_SUCCESS) rc = room_after(outsize, *position, "outsize", room);
  if (rc == MPI_SUCCESS) rc = check_packed_bytes(incount, datatype, "incount");
  if (rc != MPI_SUCCESS) return raise_on(comm, kFn, rc);
  int moved = 0;
  rc = MPI_Pack(inbuf, small_count(incount), datatype, at(outbuf, *position), room, &moved, comm);
  if (rc == MPI_SUCCESS) *position += moved;
  return rc;
}

extern "C" int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                            MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  const ApiCall call("MPI_Unpack_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Unpack_c";
  int room = 0;
  int rc = check_not_null(position, "position");
  if (rc == MPI_SUCCESS) rc = room_after(insize, *position, "insize", room);
  if (rc == MPI_SUCCESS) rc = check_packed_bytes(outcount, datatype, "outcount");
  if (rc != MPI_SUCCESS) return raise_on(comm, kFn, rc);
  int moved = 0;
  rc =
      MPI_Unpack(at(inbuf, *position), room, &moved, outbuf, small_count(outcount), datatype, comm);
  if (rc == MPI_SUCCESS) *position += moved;
  return rc;
}

// The packed size is the data's size: any count.
extern "C" int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                               MPI_Count* size) {
  const ApiCall call("MPI_Pack_size_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Pack_size_c";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  TypePtr t;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && incount < 0) {
    rc = fail(MPI_ERR_COUNT, "incount={} is negative", incount);
  }
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(size, "size");
  std::int64_t need = 0;
  if (rc == MPI_SUCCESS && __builtin_mul_overflow(incount, t->size(), &need)) {
    rc = fail(MPI_ERR_COUNT, "incount={} x {} bytes overflows 64 bits", incount, t->size());
  }
  if (rc == MPI_SUCCESS) *size = need;
  return raise(c, kFn, rc);
}

// external32: the int forms already take MPI_Aint sizes and positions; the
// count is narrowed to a run type.
extern "C" int MPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount,
                                   MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                                   MPI_Count* position) {
  const ApiCall call("MPI_Pack_external_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Narrowed n;
  if (int rc = n.set(incount, datatype, "incount", "datatype")) {
    return raise(nullptr, "MPI_Pack_external_c", rc);
  }
  return MPI_Pack_external(datarep, inbuf, n.count(), n.type(), outbuf, outsize, position);
}

extern "C" int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                                     MPI_Count* position, void* outbuf, MPI_Count outcount,
                                     MPI_Datatype datatype) {
  const ApiCall call("MPI_Unpack_external_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Narrowed n;
  if (int rc = n.set(outcount, datatype, "outcount", "datatype")) {
    return raise(nullptr, "MPI_Unpack_external_c", rc);
  }
  return MPI_Unpack_external(datarep, inbuf, insize, position, outbuf, n.count(), n.type());
}

extern "C" int MPI_Pack_external_size_c(const char* datarep, MPI_Count incount,
                                        MPI_Datatype datatype, MPI_Count* size) {
  const ApiCall call("MPI_Pack_external_size_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Narrowed n;
  if (int rc = n.set(incount, datatype, "incount", "datatype")) {
    return raise(nullptr, "MPI_Pack_external_size_c", rc);
  }
  return MPI_Pack_external_size(datarep, n.count(), n.type(), size);
}
