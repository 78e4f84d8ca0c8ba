// The MPI-4.0 large-count forms of the datatype constructors, packing and
// MPI_Op_create (decoding, MPI_Type_get_envelope_c / get_contents_c, is in
// type_contents.cc).
//  - Constructors: Type_contiguous_c takes any count (a run type,
//    internal/large_count.hpp); the others call the int constructor, so
//    every count, block length, stride, displacement and size must fit an
//    int (MPI_Aint for the h forms' byte values), else MPI_ERR_COUNT naming
//    the argument. The new type then describes itself as the _c call that
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

using namespace mpi;

namespace {

constexpr const char* kTypeWhy = "the _c type constructors take values that fit an int (not yet)";

// Arguments of one constructor call, checked to fit the int form, and the
// large counts its envelope reports.
class Ints {
 public:
  // One value.
  int add(MPI_Count value, const char* arg) {
    counts_.push_back(value);
    return fits_int(value, arg, -1, kTypeWhy);
  }
  // An array of n (null with n > 0 is passed on as null: the int form
  // names it); its ints in `out`.
  int add_array(const MPI_Count* values, MPI_Count n, const char* arg, std::vector<int>& out) {
    if (values == nullptr || n <= 0) return MPI_SUCCESS;
    for (MPI_Count i = 0; i < n; ++i) {
      counts_.push_back(values[i]);
      if (int rc = fits_int(values[i], arg, i, kTypeWhy)) return rc;
      out.push_back(static_cast<int>(values[i]));
    }
    return MPI_SUCCESS;
  }
  // A byte value the int form takes as MPI_Aint: recorded only.
  void add_wide(MPI_Count value) { counts_.push_back(value); }
  void add_wide_array(const MPI_Count* values, MPI_Count n) {
    if (values != nullptr && n > 0) counts_.insert(counts_.end(), values, values + n);
  }
  std::vector<std::int64_t> take_counts() { return std::move(counts_); }

 private:
  std::vector<std::int64_t> counts_;
};

const int* data_or_null(const MPI_Count* given, const std::vector<int>& ints) {
  return given == nullptr ? nullptr : ints.data();
}

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

// The constructors' common ending: raise a fitting failure, else call the
// int form and describe its result.
template <typename IntForm>
int construct(const char* fn, int rc, MPI_Datatype* newtype, std::vector<int> ints, Ints& args,
              IntForm int_form) {
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  rc = int_form();
  if (rc == MPI_SUCCESS) describe_as_large(*newtype, std::move(ints), args.take_counts());
  return rc;
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

extern "C" int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_vector_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS) rc = a.add(blocklength, "blocklength");
  if (rc == MPI_SUCCESS) rc = a.add(stride, "stride");
  return construct("MPI_Type_vector_c", rc, newtype, {}, a, [&] {
    return MPI_Type_vector(small_count(count), small_count(blocklength), static_cast<int>(stride),
                           oldtype, newtype);
  });
}

extern "C" int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hvector_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS) rc = a.add(blocklength, "blocklength");
  a.add_wide(stride);
  return construct("MPI_Type_create_hvector_c", rc, newtype, {}, a, [&] {
    return MPI_Type_create_hvector(small_count(count), small_count(blocklength), stride, oldtype,
                                   newtype);
  });
}

// The indexed family: `fixed` (indexed_block) or per-block lengths;
// displacements in old extents (int) or bytes (MPI_Aint, `bytes`).
extern "C" int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                  const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_indexed_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  std::vector<int> lens, displs;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS)
    rc = a.add_array(array_of_blocklengths, count, "array_of_blocklengths", lens);
  if (rc == MPI_SUCCESS) {
    rc = a.add_array(array_of_displacements, count, "array_of_displacements", displs);
  }
  return construct("MPI_Type_indexed_c", rc, newtype, {}, a, [&] {
    return MPI_Type_indexed(small_count(count), data_or_null(array_of_blocklengths, lens),
                            data_or_null(array_of_displacements, displs), oldtype, newtype);
  });
}

extern "C" int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                          const MPI_Count array_of_displacements[],
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hindexed_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  std::vector<int> lens;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS)
    rc = a.add_array(array_of_blocklengths, count, "array_of_blocklengths", lens);
  if (rc == MPI_SUCCESS) a.add_wide_array(array_of_displacements, count);
  return construct("MPI_Type_create_hindexed_c", rc, newtype, {}, a, [&] {
    return MPI_Type_create_hindexed(small_count(count), data_or_null(array_of_blocklengths, lens),
                                    array_of_displacements, oldtype, newtype);
  });
}

extern "C" int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                               const MPI_Count array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_indexed_block_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  std::vector<int> displs;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS) rc = a.add(blocklength, "blocklength");
  if (rc == MPI_SUCCESS) {
    rc = a.add_array(array_of_displacements, count, "array_of_displacements", displs);
  }
  return construct("MPI_Type_create_indexed_block_c", rc, newtype, {}, a, [&] {
    return MPI_Type_create_indexed_block(small_count(count), small_count(blocklength),
                                         data_or_null(array_of_displacements, displs), oldtype,
                                         newtype);
  });
}

extern "C" int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[],
                                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_hindexed_block_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS) rc = a.add(blocklength, "blocklength");
  if (rc == MPI_SUCCESS) a.add_wide_array(array_of_displacements, count);
  return construct("MPI_Type_create_hindexed_block_c", rc, newtype, {}, a, [&] {
    return MPI_Type_create_hindexed_block(small_count(count), small_count(blocklength),
                                          array_of_displacements, oldtype, newtype);
  });
}

extern "C" int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                        const MPI_Count array_of_displacements[],
                                        const MPI_Datatype array_of_types[],
                                        MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_struct_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  std::vector<int> lens;
  int rc = a.add(count, "count");
  if (rc == MPI_SUCCESS)
    rc = a.add_array(array_of_blocklengths, count, "array_of_blocklengths", lens);
  if (rc == MPI_SUCCESS) a.add_wide_array(array_of_displacements, count);
  return construct("MPI_Type_create_struct_c", rc, newtype, {}, a, [&] {
    return MPI_Type_create_struct(small_count(count), data_or_null(array_of_blocklengths, lens),
                                  array_of_displacements, array_of_types, newtype);
  });
}

extern "C" int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                         MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_resized_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  a.add_wide(lb);
  a.add_wide(extent);
  return construct("MPI_Type_create_resized_c", MPI_SUCCESS, newtype, {}, a,
                   [&] { return MPI_Type_create_resized(oldtype, lb, extent, newtype); });
}

extern "C" int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                          const MPI_Count array_of_subsizes[],
                                          const MPI_Count array_of_starts[], int order,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_subarray_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  std::vector<int> sizes, subsizes, starts;
  int rc = a.add_array(array_of_sizes, ndims, "array_of_sizes", sizes);
  if (rc == MPI_SUCCESS) rc = a.add_array(array_of_subsizes, ndims, "array_of_subsizes", subsizes);
  if (rc == MPI_SUCCESS) rc = a.add_array(array_of_starts, ndims, "array_of_starts", starts);
  return construct("MPI_Type_create_subarray_c", rc, newtype, {ndims, order}, a, [&] {
    return MPI_Type_create_subarray(ndims, data_or_null(array_of_sizes, sizes),
                                    data_or_null(array_of_subsizes, subsizes),
                                    data_or_null(array_of_starts, starts), order, oldtype, newtype);
  });
}

extern "C" int MPI_Type_create_darray_c(int size, int rank, int ndims,
                                        const MPI_Count array_of_gsizes[],
                                        const int array_of_distribs[], const int array_of_dargs[],
                                        const int array_of_psizes[], int order,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_darray_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Ints a;
  std::vector<int> gsizes;
  const int rc = a.add_array(array_of_gsizes, ndims, "array_of_gsizes", gsizes);
  // The int arguments as MPI_Type_get_contents_c gives them back: size,
  // rank, ndims, distribs, dargs, psizes, order (the arrays when given).
  std::vector<int> ints{size, rank, ndims};
  for (const int* array : {array_of_distribs, array_of_dargs, array_of_psizes}) {
    if (array != nullptr && ndims > 0) ints.insert(ints.end(), array, array + ndims);
  }
  ints.push_back(order);
  return construct("MPI_Type_create_darray_c", rc, newtype, std::move(ints), a, [&] {
    return MPI_Type_create_darray(size, rank, ndims, data_or_null(array_of_gsizes, gsizes),
                                  array_of_distribs, array_of_dargs, array_of_psizes, order,
                                  oldtype, newtype);
  });
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
