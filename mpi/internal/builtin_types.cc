#include "mpi/internal/builtin_types.hpp"

#include <cstddef>
#include <cstdint>

#include "mpi.h"

namespace mpi {
namespace {

// The C layouts of MPI's pair types (for MINLOC/MAXLOC), which dictate their
// padding and extent.
struct FloatInt { float v; int i; };
struct DoubleInt { double v; int i; };
struct LongInt { long v; int i; };
struct TwoInt { int v; int i; };
struct ShortInt { short v; int i; };
struct LongDoubleInt { long double v; int i; };

template <typename T>
BuiltinSpec scalar(const char* name) {
  return {name, sizeof(T), alignof(T), {{sizeof(T), 1}}, {0}};
}

// Complex numbers are two primitive elements of the real type.
template <typename Real>
BuiltinSpec complex_of(const char* name) {
  return {name, 2 * sizeof(Real), alignof(Real), {{sizeof(Real), 2}}, {0}};
}

// Fortran's pair types (MPI_2REAL ...): value and index of the same type.
template <typename T>
BuiltinSpec twin(const char* name) {
  return {name, 2 * sizeof(T), alignof(T), {{sizeof(T), 2}}, {0}};
}

template <typename Pair, typename V>
BuiltinSpec pair(const char* name) {
  return {name, sizeof(Pair), alignof(Pair), {{sizeof(V), 1}, {sizeof(int), 1}},
          {offsetof(Pair, v), offsetof(Pair, i)}};
}

std::vector<TypePtr> build() {
  std::vector<BuiltinSpec> specs = {
      scalar<char>("MPI_CHAR"),
      scalar<signed char>("MPI_SIGNED_CHAR"),
      scalar<unsigned char>("MPI_UNSIGNED_CHAR"),
      scalar<unsigned char>("MPI_BYTE"),
      scalar<wchar_t>("MPI_WCHAR"),
      scalar<short>("MPI_SHORT"),
      scalar<unsigned short>("MPI_UNSIGNED_SHORT"),
      scalar<int>("MPI_INT"),
      scalar<unsigned>("MPI_UNSIGNED"),
      scalar<long>("MPI_LONG"),
      scalar<unsigned long>("MPI_UNSIGNED_LONG"),
      scalar<long long>("MPI_LONG_LONG_INT"),
      scalar<unsigned long long>("MPI_UNSIGNED_LONG_LONG"),
      scalar<float>("MPI_FLOAT"),
      scalar<double>("MPI_DOUBLE"),
      scalar<long double>("MPI_LONG_DOUBLE"),
      scalar<std::int8_t>("MPI_INT8_T"),
      scalar<std::int16_t>("MPI_INT16_T"),
      scalar<std::int32_t>("MPI_INT32_T"),
      scalar<std::int64_t>("MPI_INT64_T"),
      scalar<std::uint8_t>("MPI_UINT8_T"),
      scalar<std::uint16_t>("MPI_UINT16_T"),
      scalar<std::uint32_t>("MPI_UINT32_T"),
      scalar<std::uint64_t>("MPI_UINT64_T"),
      scalar<bool>("MPI_C_BOOL"),
      complex_of<float>("MPI_C_FLOAT_COMPLEX"),
      complex_of<double>("MPI_C_DOUBLE_COMPLEX"),
      complex_of<long double>("MPI_C_LONG_DOUBLE_COMPLEX"),
      scalar<MPI_Aint>("MPI_AINT"),
      scalar<MPI_Offset>("MPI_OFFSET"),
      scalar<MPI_Count>("MPI_COUNT"),
      scalar<unsigned char>("MPI_PACKED"),
      pair<FloatInt, float>("MPI_FLOAT_INT"),
      pair<DoubleInt, double>("MPI_DOUBLE_INT"),
      pair<LongInt, long>("MPI_LONG_INT"),
      pair<TwoInt, int>("MPI_2INT"),
      pair<ShortInt, short>("MPI_SHORT_INT"),
      pair<LongDoubleInt, long double>("MPI_LONG_DOUBLE_INT"),
      scalar<bool>("MPI_CXX_BOOL"),
      complex_of<float>("MPI_CXX_FLOAT_COMPLEX"),
      complex_of<double>("MPI_CXX_DOUBLE_COMPLEX"),
      complex_of<long double>("MPI_CXX_LONG_DOUBLE_COMPLEX"),
      // Fortran (gfortran's default kinds).
      scalar<char>("MPI_CHARACTER"),
      scalar<std::int32_t>("MPI_LOGICAL"),
      scalar<std::int32_t>("MPI_INTEGER"),
      scalar<float>("MPI_REAL"),
      scalar<double>("MPI_DOUBLE_PRECISION"),
      complex_of<float>("MPI_COMPLEX"),
      complex_of<double>("MPI_DOUBLE_COMPLEX"),
      scalar<std::int8_t>("MPI_INTEGER1"),
      scalar<std::int16_t>("MPI_INTEGER2"),
      scalar<std::int32_t>("MPI_INTEGER4"),
      scalar<std::int64_t>("MPI_INTEGER8"),
      scalar<float>("MPI_REAL4"),
      scalar<double>("MPI_REAL8"),
      complex_of<float>("MPI_COMPLEX8"),
      complex_of<double>("MPI_COMPLEX16"),
      twin<std::int32_t>("MPI_2INTEGER"),
      twin<float>("MPI_2REAL"),
      twin<double>("MPI_2DOUBLE_PRECISION"),
  };
  static_assert(LAPIS_NUM_BUILTIN_TYPES == 60, "one spec per predefined datatype");
  std::vector<TypePtr> types(1);
  for (BuiltinSpec& s : specs) {
    s.id = static_cast<int>(types.size());
    types.push_back(Datatype::builtin(s));
  }
  return types;
}

}  // namespace

const std::vector<TypePtr>& builtin_types() {
  static const std::vector<TypePtr> types = build();
  return types;
}

}  // namespace mpi
