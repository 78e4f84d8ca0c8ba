#include "mpi/internal/builtin_types.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "mpi.h"
#include "mpi/internal/handles.hpp"

namespace mpi {
namespace {

// The C layouts of MPI's pair types (for MINLOC/MAXLOC), which dictate their
// padding and extent. Fortran's pairs (MPI_2REAL ...) index with the value's
// own type.
template <typename V, typename I>
struct Pair { V v; I i; };

template <typename T>
BuiltinSpec scalar() {
  return {nullptr, sizeof(T), alignof(T), {{sizeof(T), 1}}, {0}};
}

// A type the library only moves (no arithmetic): gfortran's REAL*16,
// MPIX_C_FLOAT16.
BuiltinSpec opaque(std::int64_t size, std::int64_t elements = 1) {
  return {nullptr, size * elements, size, {{size, elements}}, {0}};
}

// Complex numbers are two primitive elements of the real type.
template <typename Real>
BuiltinSpec complex_of() {
  return {nullptr, 2 * sizeof(Real), alignof(Real), {{sizeof(Real), 2}}, {0}};
}

template <typename V, typename I = int>
BuiltinSpec pair() {
  using P = Pair<V, I>;
  return {nullptr, sizeof(P), alignof(P), {{sizeof(V), 1}, {sizeof(I), 1}},
          {offsetof(P, v), offsetof(P, i)}};
}

// The same layout with the first `fields` fields (all: -1) marked as
// converted for external32.
BuiltinSpec ext32(BuiltinSpec spec, Ext32 kind, int fields = -1) {
  for (std::size_t i = 0; i < spec.fields.size(); ++i) {
    if (fields < 0 || static_cast<int>(i) < fields) spec.fields[i].ext32 = kind;
  }
  return spec;
}

struct Entry {
  MPI_Datatype handle;
  const char* name;
  BuiltinSpec spec;
};

// MPI_LB or MPI_UB: no bytes, no elements, only a bound (datatype.hpp).
BuiltinSpec marker(Marker which) {
  BuiltinSpec spec{nullptr, 0, 1, {}, {}};
  spec.marker = which;
  return spec;
}

// Every predefined datatype of mpi.h the library implements, with the C (or
// gfortran) layout it stands for. (MPI_INTEGER16 is MPI_DATATYPE_NULL, as in
// MPICH.)
#define LAPIS_ENTRY(handle, spec) {handle, #handle, spec}
std::vector<Entry> entries() {
  return {
      LAPIS_ENTRY(MPI_CHAR, scalar<char>()),
      LAPIS_ENTRY(MPI_SIGNED_CHAR, scalar<signed char>()),
      LAPIS_ENTRY(MPI_UNSIGNED_CHAR, scalar<unsigned char>()),
      LAPIS_ENTRY(MPI_BYTE, scalar<unsigned char>()),
      LAPIS_ENTRY(MPI_WCHAR, ext32(scalar<wchar_t>(), Ext32::wchar_2)),
      LAPIS_ENTRY(MPI_SHORT, scalar<short>()),
      LAPIS_ENTRY(MPI_UNSIGNED_SHORT, scalar<unsigned short>()),
      LAPIS_ENTRY(MPI_INT, scalar<int>()),
      LAPIS_ENTRY(MPI_UNSIGNED, scalar<unsigned>()),
      LAPIS_ENTRY(MPI_LONG, ext32(scalar<long>(), Ext32::long_4)),
      LAPIS_ENTRY(MPI_UNSIGNED_LONG, ext32(scalar<unsigned long>(), Ext32::ulong_4)),
      LAPIS_ENTRY(MPI_LONG_LONG_INT, scalar<long long>()),
      LAPIS_ENTRY(MPI_UNSIGNED_LONG_LONG, scalar<unsigned long long>()),
      LAPIS_ENTRY(MPI_FLOAT, scalar<float>()),
      LAPIS_ENTRY(MPI_DOUBLE, scalar<double>()),
      LAPIS_ENTRY(MPI_LONG_DOUBLE, ext32(scalar<long double>(), Ext32::long_double)),
      LAPIS_ENTRY(MPI_INT8_T, scalar<std::int8_t>()),
      LAPIS_ENTRY(MPI_INT16_T, scalar<std::int16_t>()),
      LAPIS_ENTRY(MPI_INT32_T, scalar<std::int32_t>()),
      LAPIS_ENTRY(MPI_INT64_T, scalar<std::int64_t>()),
      LAPIS_ENTRY(MPI_UINT8_T, scalar<std::uint8_t>()),
      LAPIS_ENTRY(MPI_UINT16_T, scalar<std::uint16_t>()),
      LAPIS_ENTRY(MPI_UINT32_T, scalar<std::uint32_t>()),
      LAPIS_ENTRY(MPI_UINT64_T, scalar<std::uint64_t>()),
      LAPIS_ENTRY(MPI_C_BOOL, scalar<bool>()),
      LAPIS_ENTRY(MPI_C_COMPLEX, complex_of<float>()),  // MPICH's name for MPI_C_FLOAT_COMPLEX too
      LAPIS_ENTRY(MPI_C_DOUBLE_COMPLEX, complex_of<double>()),
      LAPIS_ENTRY(MPI_C_LONG_DOUBLE_COMPLEX, ext32(complex_of<long double>(), Ext32::long_double)),
      LAPIS_ENTRY(MPIX_C_FLOAT16, opaque(2)),
      LAPIS_ENTRY(MPI_AINT, scalar<MPI_Aint>()),
      LAPIS_ENTRY(MPI_OFFSET, scalar<MPI_Offset>()),
      LAPIS_ENTRY(MPI_COUNT, scalar<MPI_Count>()),
      LAPIS_ENTRY(MPI_PACKED, scalar<unsigned char>()),
      LAPIS_ENTRY(MPI_FLOAT_INT, (pair<float>())),
      LAPIS_ENTRY(MPI_DOUBLE_INT, (pair<double>())),
      LAPIS_ENTRY(MPI_LONG_INT, ext32(pair<long>(), Ext32::long_4, 1)),
      LAPIS_ENTRY(MPI_2INT, (pair<int>())),
      LAPIS_ENTRY(MPI_SHORT_INT, (pair<short>())),
      LAPIS_ENTRY(MPI_LONG_DOUBLE_INT, ext32(pair<long double>(), Ext32::long_double, 1)),
      LAPIS_ENTRY(MPI_CXX_BOOL, scalar<bool>()),
      LAPIS_ENTRY(MPI_CXX_FLOAT_COMPLEX, complex_of<float>()),
      LAPIS_ENTRY(MPI_CXX_DOUBLE_COMPLEX, complex_of<double>()),
      LAPIS_ENTRY(MPI_CXX_LONG_DOUBLE_COMPLEX, ext32(complex_of<long double>(), Ext32::long_double)),
      // Fortran named types, as gfortran lays them out (LOGICAL is 4 bytes).
      LAPIS_ENTRY(MPI_CHARACTER, scalar<char>()),
      LAPIS_ENTRY(MPI_LOGICAL, scalar<int>()),
      LAPIS_ENTRY(MPI_INTEGER, scalar<int>()),
      LAPIS_ENTRY(MPI_REAL, scalar<float>()),
      LAPIS_ENTRY(MPI_DOUBLE_PRECISION, scalar<double>()),
      LAPIS_ENTRY(MPI_COMPLEX, complex_of<float>()),
      LAPIS_ENTRY(MPI_DOUBLE_COMPLEX, complex_of<double>()),
      LAPIS_ENTRY(MPI_2INTEGER, (pair<int, int>())),
      LAPIS_ENTRY(MPI_2REAL, (pair<float, float>())),
      LAPIS_ENTRY(MPI_2DOUBLE_PRECISION, (pair<double, double>())),
      LAPIS_ENTRY(MPI_INTEGER1, scalar<std::int8_t>()),
      LAPIS_ENTRY(MPI_INTEGER2, scalar<std::int16_t>()),
      LAPIS_ENTRY(MPI_INTEGER4, scalar<std::int32_t>()),
      LAPIS_ENTRY(MPI_INTEGER8, scalar<std::int64_t>()),
      LAPIS_ENTRY(MPI_REAL4, scalar<float>()),
      LAPIS_ENTRY(MPI_REAL8, scalar<double>()),
      LAPIS_ENTRY(MPI_REAL16, opaque(16)),
      LAPIS_ENTRY(MPI_COMPLEX8, complex_of<float>()),
      LAPIS_ENTRY(MPI_COMPLEX16, complex_of<double>()),
      LAPIS_ENTRY(MPI_COMPLEX32, opaque(16, 2)),
      // MPI-1's bound markers, for old programs (MPI_Type_struct with MPI_UB ...).
      LAPIS_ENTRY(MPI_LB, marker(Marker::lb)),
      LAPIS_ENTRY(MPI_UB, marker(Marker::ub)),
  };
}
#undef LAPIS_ENTRY

struct Builtins {
  std::vector<TypePtr> types;
  std::vector<MPI_Datatype> handles;
};

Builtins build() {
  Builtins b;
  std::vector<TypePtr>& types = b.types;
  for (Entry& e : entries()) {
    const int slot = predefined_slot(e.handle);
    if (slot >= static_cast<int>(types.size())) types.resize(slot + 1);
    // MPICH's handles keep the size in bits 8-15 for builtin-kind types.
    if (slot == 0 || types[slot] != nullptr ||
        (predefined_slot(e.handle) < 256 && ((e.handle >> 8) & 0xff) != e.spec.extent)) {
      std::fprintf(stderr, "lapis: predefined datatype %s (0x%x) clashes or has the wrong size\n",
                   e.name, static_cast<unsigned>(e.handle));
      std::abort();
    }
    e.spec.name = e.name;
    e.spec.id = slot;
    types[slot] = Datatype::builtin(e.spec);
    b.handles.push_back(e.handle);
  }
  return b;
}

const Builtins& builtins() {
  static const Builtins b = build();
  return b;
}

}  // namespace

const std::vector<TypePtr>& builtin_types() { return builtins().types; }

const std::vector<MPI_Datatype>& builtin_type_handles() { return builtins().handles; }

}  // namespace mpi
