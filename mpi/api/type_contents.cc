// Decoding datatypes: MPI_Type_get_envelope, MPI_Type_get_contents (the
// constructor call that made a type, from its Envelope), their MPI-4.0
// large-count forms, and MPI_Type_match_size. A type made by a _c
// constructor (or a run type, internal/large_count.hpp) has large counts:
// only the _c forms describe it; the int forms refuse it with
// MPI_ERR_TYPE, as MPI 4.0 section 5.1.13 asks. The _c forms describe
// every type.
#include <algorithm>
#include <span>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

int needs_large_form(MPI_Datatype datatype) {
  return fail(MPI_ERR_TYPE,
              "datatype {:#x} was made by a large-count constructor: its arguments are "
              "described by MPI_Type_get_envelope_c / MPI_Type_get_contents_c only",
              datatype);
}

// Derived children as new handles to the same objects, which the program
// frees (MPI 3.1, 4.1.13); predefined ones as their handles.
int child_handles(const Envelope& e, MPI_Datatype* out) {
  const int nd = static_cast<int>(e.types.size());
  for (int i = 0; i < nd; ++i) {
    if (e.types[i]->is_builtin()) {
      out[i] = e.type_handles[i];
      continue;
    }
    MPI_Datatype h = state().types.insert(e.types[i]);
    if (h == MPI_DATATYPE_NULL) {
      for (int j = 0; j < i; ++j) {
        if (!e.types[j]->is_builtin()) state().types.erase(out[j]);
      }
      return fail(MPI_ERR_INTERN, "too many datatypes");
    }
    out[i] = h;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                     int* num_datatypes, int* combiner) {
  const ApiCall call("MPI_Type_get_envelope");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_envelope";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(num_integers, "num_integers");
  if (rc == MPI_SUCCESS) rc = check_not_null(num_addresses, "num_addresses");
  if (rc == MPI_SUCCESS) rc = check_not_null(num_datatypes, "num_datatypes");
  if (rc == MPI_SUCCESS) rc = check_not_null(combiner, "combiner");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const Envelope* e = t->envelope.get();
  if (e != nullptr && !e->counts.empty()) {
    return raise(nullptr, kFn, needs_large_form(datatype));
  }
  if (e == nullptr) {
    *num_integers = *num_addresses = *num_datatypes = 0;
    *combiner = MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
  }
  *num_integers = static_cast<int>(e->ints.size());
  *num_addresses = static_cast<int>(e->aints.size());
  *num_datatypes = static_cast<int>(e->types.size());
  *combiner = e->combiner;
  return MPI_SUCCESS;
}

// Predefined children come back as their handles; derived ones as new
// handles to the same objects, which the program frees (MPI 3.1, 4.1.13).
extern "C" int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                     int max_datatypes, int array_of_integers[],
                                     MPI_Aint array_of_addresses[],
                                     MPI_Datatype array_of_datatypes[]) {
  const ApiCall call("MPI_Type_get_contents");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_contents";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  int rc = lookup_type(datatype, t, false);
  const Envelope* e = t ? t->envelope.get() : nullptr;
  if (rc == MPI_SUCCESS && e == nullptr) {
    rc = fail(MPI_ERR_TYPE, "datatype {} is predefined (combiner MPI_COMBINER_NAMED)", t->name);
  }
  if (rc == MPI_SUCCESS && !e->counts.empty()) rc = needs_large_form(datatype);
  const int ni = e ? static_cast<int>(e->ints.size()) : 0;
  const int na = e ? static_cast<int>(e->aints.size()) : 0;
  const int nd = e ? static_cast<int>(e->types.size()) : 0;
  if (rc == MPI_SUCCESS && (max_integers < ni || max_addresses < na || max_datatypes < nd)) {
    rc = fail(MPI_ERR_ARG,
              "max_integers={}, max_addresses={}, max_datatypes={} are less than the {}, {}, {} "
              "MPI_Type_get_envelope gives",
              max_integers, max_addresses, max_datatypes, ni, na, nd);
  }
  if (rc == MPI_SUCCESS && ni > 0) rc = check_not_null(array_of_integers, "array_of_integers");
  if (rc == MPI_SUCCESS && na > 0) rc = check_not_null(array_of_addresses, "array_of_addresses");
  if (rc == MPI_SUCCESS && nd > 0) rc = check_not_null(array_of_datatypes, "array_of_datatypes");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  std::copy(e->ints.begin(), e->ints.end(), array_of_integers);
  std::copy(e->aints.begin(), e->aints.end(), array_of_addresses);
  return raise(nullptr, kFn, child_handles(*e, array_of_datatypes));
}

extern "C" int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                                       MPI_Count* num_addresses, MPI_Count* num_large_counts,
                                       MPI_Count* num_datatypes, int* combiner) {
  const ApiCall call("MPI_Type_get_envelope_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_envelope_c";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(num_integers, "num_integers");
  if (rc == MPI_SUCCESS) rc = check_not_null(num_addresses, "num_addresses");
  if (rc == MPI_SUCCESS) rc = check_not_null(num_large_counts, "num_large_counts");
  if (rc == MPI_SUCCESS) rc = check_not_null(num_datatypes, "num_datatypes");
  if (rc == MPI_SUCCESS) rc = check_not_null(combiner, "combiner");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  const Envelope* e = t->envelope.get();
  *num_integers = e ? static_cast<MPI_Count>(e->ints.size()) : 0;
  *num_addresses = e ? static_cast<MPI_Count>(e->aints.size()) : 0;
  *num_large_counts = e ? static_cast<MPI_Count>(e->counts.size()) : 0;
  *num_datatypes = e ? static_cast<MPI_Count>(e->types.size()) : 0;
  *combiner = e ? e->combiner : MPI_COMBINER_NAMED;
  return MPI_SUCCESS;
}

extern "C" int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                       MPI_Count max_addresses, MPI_Count max_large_counts,
                                       MPI_Count max_datatypes, int array_of_integers[],
                                       MPI_Aint array_of_addresses[],
                                       MPI_Count array_of_large_counts[],
                                       MPI_Datatype array_of_datatypes[]) {
  const ApiCall call("MPI_Type_get_contents_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_get_contents_c";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  int rc = lookup_type(datatype, t, false);
  const Envelope* e = t ? t->envelope.get() : nullptr;
  if (rc == MPI_SUCCESS && e == nullptr) {
    rc = fail(MPI_ERR_TYPE, "datatype {} is predefined (combiner MPI_COMBINER_NAMED)", t->name);
  }
  const MPI_Count ni = e ? static_cast<MPI_Count>(e->ints.size()) : 0;
  const MPI_Count na = e ? static_cast<MPI_Count>(e->aints.size()) : 0;
  const MPI_Count nc = e ? static_cast<MPI_Count>(e->counts.size()) : 0;
  const MPI_Count nd = e ? static_cast<MPI_Count>(e->types.size()) : 0;
  if (rc == MPI_SUCCESS && (max_integers < ni || max_addresses < na || max_large_counts < nc ||
                            max_datatypes < nd)) {
    rc = fail(MPI_ERR_ARG,
              "max_integers={}, max_addresses={}, max_large_counts={}, max_datatypes={} are "
              "less than the {}, {}, {}, {} MPI_Type_get_envelope_c gives",
              max_integers, max_addresses, max_large_counts, max_datatypes, ni, na, nc, nd);
  }
  if (rc == MPI_SUCCESS && ni > 0) rc = check_not_null(array_of_integers, "array_of_integers");
  if (rc == MPI_SUCCESS && na > 0) rc = check_not_null(array_of_addresses, "array_of_addresses");
  if (rc == MPI_SUCCESS && nc > 0) {
    rc = check_not_null(array_of_large_counts, "array_of_large_counts");
  }
  if (rc == MPI_SUCCESS && nd > 0) rc = check_not_null(array_of_datatypes, "array_of_datatypes");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  std::copy(e->ints.begin(), e->ints.end(), array_of_integers);
  std::copy(e->aints.begin(), e->aints.end(), array_of_addresses);
  std::copy(e->counts.begin(), e->counts.end(), array_of_large_counts);
  return raise(nullptr, kFn, child_handles(*e, array_of_datatypes));
}

// The first C type of the class with that size, in the order MPICH looks
// them up (so both libraries give the same handle).
extern "C" int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const ApiCall call("MPI_Type_match_size");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Type_match_size";
  if (int rc = check_running(kFn)) return rc;
  static const MPI_Datatype kReal[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
  static const MPI_Datatype kInteger[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG};
  static const MPI_Datatype kComplex[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                          MPI_C_LONG_DOUBLE_COMPLEX};
  int rc = check_not_null(datatype, "datatype");
  std::span<const MPI_Datatype> candidates;
  if (rc == MPI_SUCCESS) {
    switch (typeclass) {
      case MPI_TYPECLASS_REAL:
        candidates = kReal;
        break;
      case MPI_TYPECLASS_INTEGER:
        candidates = kInteger;
        break;
      case MPI_TYPECLASS_COMPLEX:
        candidates = kComplex;
        break;
      default:
        rc = fail(MPI_ERR_ARG, "typeclass={} is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX",
                  typeclass);
    }
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  for (MPI_Datatype h : candidates) {
    const Datatype* t = nullptr;
    if (lookup_type(h, t, false) == MPI_SUCCESS && t->size() == size) {
      *datatype = h;
      return MPI_SUCCESS;
    }
  }
  return raise(
      nullptr, kFn,
      fail(MPI_ERR_ARG, "no predefined type of typeclass {} has size {}", typeclass, size));
}
