#include "mpi/internal/coll/op_kernels.hpp"

#include <complex>
#include <cstring>
#include <type_traits>

#include "mpi.h"
#include "mpi/internal/handles.hpp"

// GCC 12's -O2 vectorises only loops that need no run-time check, and an
// op's two vectors might overlap as far as it can tell: every kernel ran an
// element per cycle (an MPI_Accumulate of 64 KiB of MPI_CHAR 16 us against
// Open MPI's 0.78, OSU osu_acc_latency). The dynamic cost model lets it
// check and vectorise. (A pragma, not a copt: clang, which builds the
// fuzzers, has no such option.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

namespace mpi {
namespace {

// The standard's type classes (MPI 3.1, section 5.9.2), which decide which
// ops a predefined type takes. Two extensions: MPI_CHAR counts as a C
// integer, as in MPICH and Open MPI, which both reduce it (programs rely on
// it: the OSU one-sided benchmarks accumulate MPI_CHAR with MPI_SUM); and
// the logical ops take the multi-language integers (MPI_AINT, MPI_OFFSET,
// MPI_COUNT) like any C integer, as MPICH 4.0 does (the standard's table
// leaves them out of MPI_LAND/LOR/LXOR only).
enum class TypeClass : std::uint8_t {
  none,        // MPI_WCHAR, MPI_CHARACTER, MPI_PACKED: only REPLACE / NO_OP
  c_integer,   // MPI_INT, MPI_UNSIGNED_LONG, MPI_INT8_T, MPI_SIGNED_CHAR, MPI_CHAR ...
  multi_lang,  // MPI_AINT, MPI_OFFSET, MPI_COUNT
  floating,    // MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE
  complex,     // MPI_C_*_COMPLEX, MPI_CXX_*_COMPLEX
  logical,     // MPI_C_BOOL, MPI_CXX_BOOL
  byte,        // MPI_BYTE
  pair,        // MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT
};

constexpr int idx(MPI_Datatype t) { return predefined_slot(t); }

TypeClass type_class(int id) {
  switch (id) {
    case idx(MPI_CHAR): case idx(MPI_SIGNED_CHAR): case idx(MPI_UNSIGNED_CHAR): case idx(MPI_SHORT):
    case idx(MPI_UNSIGNED_SHORT): case idx(MPI_INT): case idx(MPI_UNSIGNED):
    case idx(MPI_LONG): case idx(MPI_UNSIGNED_LONG): case idx(MPI_LONG_LONG_INT):
    case idx(MPI_UNSIGNED_LONG_LONG): case idx(MPI_INT8_T): case idx(MPI_INT16_T):
    case idx(MPI_INT32_T): case idx(MPI_INT64_T): case idx(MPI_UINT8_T):
    case idx(MPI_UINT16_T): case idx(MPI_UINT32_T): case idx(MPI_UINT64_T):
    case idx(MPI_INTEGER): case idx(MPI_INTEGER1): case idx(MPI_INTEGER2):
    case idx(MPI_INTEGER4): case idx(MPI_INTEGER8):  // Fortran integers take the same ops
      return TypeClass::c_integer;
    case idx(MPI_AINT): case idx(MPI_OFFSET): case idx(MPI_COUNT):
      return TypeClass::multi_lang;
    case idx(MPI_FLOAT): case idx(MPI_DOUBLE): case idx(MPI_LONG_DOUBLE):
    case idx(MPI_REAL): case idx(MPI_DOUBLE_PRECISION): case idx(MPI_REAL4):
    case idx(MPI_REAL8):
      return TypeClass::floating;
    case idx(MPI_C_FLOAT_COMPLEX): case idx(MPI_C_DOUBLE_COMPLEX):
    case idx(MPI_C_LONG_DOUBLE_COMPLEX): case idx(MPI_CXX_FLOAT_COMPLEX):
    case idx(MPI_CXX_DOUBLE_COMPLEX): case idx(MPI_CXX_LONG_DOUBLE_COMPLEX):
    case idx(MPI_COMPLEX): case idx(MPI_DOUBLE_COMPLEX): case idx(MPI_COMPLEX8):
    case idx(MPI_COMPLEX16):
      return TypeClass::complex;
    case idx(MPI_C_BOOL): case idx(MPI_CXX_BOOL): case idx(MPI_LOGICAL):
      return TypeClass::logical;
    case idx(MPI_BYTE):
      return TypeClass::byte;
    case idx(MPI_FLOAT_INT): case idx(MPI_DOUBLE_INT): case idx(MPI_LONG_INT):
    case idx(MPI_2INT): case idx(MPI_SHORT_INT): case idx(MPI_LONG_DOUBLE_INT):
    case idx(MPI_2INTEGER): case idx(MPI_2REAL): case idx(MPI_2DOUBLE_PRECISION):
      return TypeClass::pair;
    default:
      return TypeClass::none;
  }
}

// Which classes each op takes (MPI 3.1 section 5.9.2).
bool op_takes(OpKind op, TypeClass c) {
  using C = TypeClass;
  switch (op) {
    case OpKind::max: case OpKind::min:
      return c == C::c_integer || c == C::multi_lang || c == C::floating;
    case OpKind::sum: case OpKind::prod:
      return c == C::c_integer || c == C::multi_lang || c == C::floating || c == C::complex;
    case OpKind::land: case OpKind::lor: case OpKind::lxor:
      return c == C::c_integer || c == C::multi_lang || c == C::logical;
    case OpKind::band: case OpKind::bor: case OpKind::bxor:
      return c == C::c_integer || c == C::multi_lang || c == C::byte;
    case OpKind::minloc: case OpKind::maxloc:
      return c == C::pair;
    default:
      return false;
  }
}

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(char* p, const T& v) {
  std::memcpy(p, &v, sizeof v);
}

// Integer arithmetic wraps (as in C for unsigned types; signed overflow
// would be undefined behaviour): computed in an unsigned type at least as
// wide as unsigned int, so no promotion to signed int can overflow either.
template <typename T>
T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = decltype(std::make_unsigned_t<T>{} + 0u);
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
T mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = decltype(std::make_unsigned_t<T>{} + 0u);
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// One functor per op: f(in, inout) -> new inout. `takes<T>` keeps ill-formed
// instantiations (MPI_MAX of a complex) out of the kernel table.
struct Max {
  template <typename T> static constexpr bool takes = std::is_arithmetic_v<T>;
  template <typename T> static T f(T a, T b) { return b < a ? a : b; }
};
struct Min {
  template <typename T> static constexpr bool takes = std::is_arithmetic_v<T>;
  template <typename T> static T f(T a, T b) { return a < b ? a : b; }
};
struct Sum {
  template <typename T> static constexpr bool takes = true;
  template <typename T> static T f(T a, T b) { return add(a, b); }
};
struct Prod {
  template <typename T> static constexpr bool takes = true;
  template <typename T> static T f(T a, T b) { return mul(a, b); }
};
// Logical ops give 0 or 1 of the element type; any non-zero input is true
// (booleans are handled as their bytes, so no invalid bool is ever loaded).
struct Land {
  template <typename T> static constexpr bool takes = std::is_integral_v<T>;
  template <typename T> static T f(T a, T b) { return static_cast<T>(a != 0 && b != 0); }
};
struct Lor {
  template <typename T> static constexpr bool takes = std::is_integral_v<T>;
  template <typename T> static T f(T a, T b) { return static_cast<T>(a != 0 || b != 0); }
};
struct Lxor {
  template <typename T> static constexpr bool takes = std::is_integral_v<T>;
  template <typename T> static T f(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }
};
struct Band {
  template <typename T> static constexpr bool takes = std::is_integral_v<T>;
  template <typename T> static T f(T a, T b) { return static_cast<T>(a & b); }
};
struct Bor {
  template <typename T> static constexpr bool takes = std::is_integral_v<T>;
  template <typename T> static T f(T a, T b) { return static_cast<T>(a | b); }
};
struct Bxor {
  template <typename T> static constexpr bool takes = std::is_integral_v<T>;
  template <typename T> static T f(T a, T b) { return static_cast<T>(a ^ b); }
};

template <typename T, typename F>
void elementwise(const void* in, void* inout, std::int64_t n) {
  const auto* a = static_cast<const char*>(in);
  auto* b = static_cast<char*>(inout);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = i * static_cast<std::int64_t>(sizeof(T));
    store<T>(b + at, F::template f<T>(load<T>(a + at), load<T>(b + at)));
  }
}

// MINLOC / MAXLOC on (value, index) pairs, packed: value then index (an int,
// or the value's type for Fortran's MPI_2REAL ...). Ties keep the smaller
// index, so the result does not depend on the order the pairs are combined
// in.
template <typename V, bool kMax, typename I = int>
void locate(const void* in, void* inout, std::int64_t n) {
  constexpr std::int64_t kSize = sizeof(V) + sizeof(I);
  const auto* a = static_cast<const char*>(in);
  auto* b = static_cast<char*>(inout);
  for (std::int64_t i = 0; i < n; ++i) {
    const char* pa = a + i * kSize;
    char* pb = b + i * kSize;
    const V va = load<V>(pa), vb = load<V>(pb);
    const I ia = load<I>(pa + sizeof(V)), ib = load<I>(pb + sizeof(V));
    const bool a_wins = kMax ? vb < va : va < vb;
    if (a_wins) {
      store<V>(pb, va);
      store<I>(pb + sizeof(V), ia);
    } else if (!(va < vb) && !(vb < va) && ia < ib) {
      store<I>(pb + sizeof(V), ia);
    }
  }
}

template <bool kMax>
OpKernel pair_kernel(int id) {
  switch (id) {
    case idx(MPI_FLOAT_INT): return &locate<float, kMax>;
    case idx(MPI_DOUBLE_INT): return &locate<double, kMax>;
    case idx(MPI_LONG_INT): return &locate<long, kMax>;
    case idx(MPI_2INT): case idx(MPI_2INTEGER): return &locate<int, kMax>;
    case idx(MPI_2REAL): return &locate<float, kMax, float>;
    case idx(MPI_2DOUBLE_PRECISION): return &locate<double, kMax, double>;
    case idx(MPI_SHORT_INT): return &locate<short, kMax>;
    case idx(MPI_LONG_DOUBLE_INT): return &locate<long double, kMax>;
    default: return nullptr;
  }
}

template <typename F, typename T>
OpKernel make() {
  if constexpr (F::template takes<T>) {
    return &elementwise<T, F>;
  } else {
    return nullptr;
  }
}

// The C type a kernel computes in for each predefined type. Booleans are
// their byte; MPI_BYTE is an unsigned char.
template <typename F>
OpKernel typed_kernel(int id) {
  switch (id) {
    case idx(MPI_CHAR): return make<F, char>();  // C's char, signed or not as the ABI says
    case idx(MPI_SIGNED_CHAR): return make<F, signed char>();
    case idx(MPI_UNSIGNED_CHAR): case idx(MPI_BYTE): return make<F, unsigned char>();
    case idx(MPI_SHORT): return make<F, short>();
    case idx(MPI_UNSIGNED_SHORT): return make<F, unsigned short>();
    case idx(MPI_INT): case idx(MPI_INTEGER): case idx(MPI_INTEGER4): return make<F, int>();
    case idx(MPI_UNSIGNED): return make<F, unsigned>();
    case idx(MPI_LONG): return make<F, long>();
    case idx(MPI_UNSIGNED_LONG): return make<F, unsigned long>();
    case idx(MPI_LONG_LONG_INT): return make<F, long long>();
    case idx(MPI_UNSIGNED_LONG_LONG): return make<F, unsigned long long>();
    case idx(MPI_FLOAT): case idx(MPI_REAL): case idx(MPI_REAL4): return make<F, float>();
    case idx(MPI_DOUBLE): case idx(MPI_DOUBLE_PRECISION): case idx(MPI_REAL8):
      return make<F, double>();
    case idx(MPI_LONG_DOUBLE): return make<F, long double>();
    case idx(MPI_INT8_T): case idx(MPI_INTEGER1): return make<F, std::int8_t>();
    case idx(MPI_INT16_T): case idx(MPI_INTEGER2): return make<F, std::int16_t>();
    case idx(MPI_INT32_T): return make<F, std::int32_t>();
    case idx(MPI_INT64_T): case idx(MPI_INTEGER8): return make<F, std::int64_t>();
    case idx(MPI_UINT8_T): return make<F, std::uint8_t>();
    case idx(MPI_UINT16_T): return make<F, std::uint16_t>();
    case idx(MPI_UINT32_T): return make<F, std::uint32_t>();
    case idx(MPI_UINT64_T): return make<F, std::uint64_t>();
    case idx(MPI_C_BOOL): case idx(MPI_CXX_BOOL): return make<F, std::uint8_t>();
    case idx(MPI_LOGICAL): return make<F, int>();  // gfortran: 4 bytes, 0 or 1
    case idx(MPI_C_FLOAT_COMPLEX): case idx(MPI_CXX_FLOAT_COMPLEX): case idx(MPI_COMPLEX):
    case idx(MPI_COMPLEX8):
      return make<F, std::complex<float>>();
    case idx(MPI_C_DOUBLE_COMPLEX): case idx(MPI_CXX_DOUBLE_COMPLEX):
    case idx(MPI_DOUBLE_COMPLEX): case idx(MPI_COMPLEX16):
      return make<F, std::complex<double>>();
    case idx(MPI_C_LONG_DOUBLE_COMPLEX): case idx(MPI_CXX_LONG_DOUBLE_COMPLEX):
      return make<F, std::complex<long double>>();
    case idx(MPI_AINT): return make<F, MPI_Aint>();
    case idx(MPI_OFFSET): return make<F, MPI_Offset>();
    case idx(MPI_COUNT): return make<F, MPI_Count>();
    default: return nullptr;
  }
}

}  // namespace

OpKernel find_kernel(OpKind op, int element_id) {
  if (!op_takes(op, type_class(element_id))) return nullptr;
  switch (op) {
    case OpKind::max: return typed_kernel<Max>(element_id);
    case OpKind::min: return typed_kernel<Min>(element_id);
    case OpKind::sum: return typed_kernel<Sum>(element_id);
    case OpKind::prod: return typed_kernel<Prod>(element_id);
    case OpKind::land: return typed_kernel<Land>(element_id);
    case OpKind::lor: return typed_kernel<Lor>(element_id);
    case OpKind::lxor: return typed_kernel<Lxor>(element_id);
    case OpKind::band: return typed_kernel<Band>(element_id);
    case OpKind::bor: return typed_kernel<Bor>(element_id);
    case OpKind::bxor: return typed_kernel<Bxor>(element_id);
    case OpKind::minloc: return pair_kernel<false>(element_id);
    case OpKind::maxloc: return pair_kernel<true>(element_id);
    default: return nullptr;
  }
}

}  // namespace mpi
