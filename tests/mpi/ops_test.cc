// Reduction operations alone: which predefined op takes which predefined
// type (every pair checked against the standard's table), the arithmetic of
// each op, pair types, derived types and user functions.
#include <doctest/doctest.h>

#include <complex>
#include <cstring>
#include <set>
#include <vector>

#include "mpi.h"
#include "mpi/internal/builtin_types.hpp"
#include "mpi/internal/coll/ops.hpp"
#include "mpi/internal/handles.hpp"

using mpi::Datatype;
using mpi::Op;
using mpi::OpKind;
using mpi::TypePtr;

namespace {

TypePtr builtin(MPI_Datatype handle) {
  return mpi::builtin_types().at(mpi::predefined_slot(handle));
}

const Op& op(MPI_Op handle) {
  for (int i = 1; i <= mpi::kNumPredefinedOps; ++i) {
    if (mpi::builtin_op_handle(static_cast<OpKind>(i)) == handle) return *mpi::builtin_ops()[i];
  }
  FAIL("not a predefined op: ", handle);
  return *mpi::builtin_ops()[1];
}

TypePtr committed(TypePtr t) {
  t->commit();
  return t;
}

// inout = in op inout on n instances in the user's layout.
template <typename T>
void reduce(MPI_Op o, MPI_Datatype type, const std::vector<T>& in, std::vector<T>& inout,
            std::int64_t n = -1) {
  TypePtr t = builtin(type);
  REQUIRE(mpi::op_accepts(op(o), *t));
  mpi::reduce_layout({&op(o), t.get(), type}, in.data(), inout.data(),
                     n < 0 ? static_cast<std::int64_t>(in.size()) : n);
}

// The standard's classes (MPI 3.1, 5.9.2), written out independently of the
// library's table, with MPICH's and Open MPI's extension: MPI_CHAR is a C
// integer.
const std::set<MPI_Datatype> kCInteger = {
    MPI_INT,        MPI_LONG,          MPI_SHORT,         MPI_UNSIGNED_SHORT, MPI_UNSIGNED,
    MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR,
    MPI_UNSIGNED_CHAR, MPI_INT8_T,     MPI_INT16_T,       MPI_INT32_T,        MPI_INT64_T,
    MPI_UINT8_T,    MPI_UINT16_T,      MPI_UINT32_T,      MPI_UINT64_T,
    MPI_CHAR,  // the extension
    // Fortran integers
    MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
const std::set<MPI_Datatype> kMultiLanguage = {MPI_AINT, MPI_OFFSET, MPI_COUNT};
// (gfortran's REAL*16 / COMPLEX*32 are __float128: moved, not reduced.)
const std::set<MPI_Datatype> kFloating = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL,
                                          MPI_DOUBLE_PRECISION, MPI_REAL4, MPI_REAL8};
const std::set<MPI_Datatype> kLogical = {MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL};
const std::set<MPI_Datatype> kComplex = {MPI_C_FLOAT_COMPLEX,   MPI_C_DOUBLE_COMPLEX,
                                         MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX,
                                         MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX,
                                         MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_COMPLEX8,
                                         MPI_COMPLEX16};
const std::set<MPI_Datatype> kByte = {MPI_BYTE};
const std::set<MPI_Datatype> kPairs = {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
                                       MPI_2INT,      MPI_SHORT_INT,  MPI_LONG_DOUBLE_INT,
                                       MPI_2INTEGER,  MPI_2REAL,      MPI_2DOUBLE_PRECISION};

bool in_any(MPI_Datatype t, std::initializer_list<const std::set<MPI_Datatype>*> sets) {
  for (const auto* s : sets) {
    if (s->count(t)) return true;
  }
  return false;
}

bool standard_allows(MPI_Op o, MPI_Datatype t) {
  if (o == MPI_MAX || o == MPI_MIN) return in_any(t, {&kCInteger, &kMultiLanguage, &kFloating});
  if (o == MPI_SUM || o == MPI_PROD)
    return in_any(t, {&kCInteger, &kMultiLanguage, &kFloating, &kComplex});
  // Second extension: the logical ops on the multi-language integers
  // (MPI_AINT, MPI_OFFSET, MPI_COUNT), which MPICH 4.0 takes too.
  if (o == MPI_LAND || o == MPI_LOR || o == MPI_LXOR)
    return in_any(t, {&kCInteger, &kMultiLanguage, &kLogical});
  if (o == MPI_BAND || o == MPI_BOR || o == MPI_BXOR)
    return in_any(t, {&kCInteger, &kMultiLanguage, &kByte});
  if (o == MPI_MINLOC || o == MPI_MAXLOC) return kPairs.count(t) != 0;
  return o == MPI_REPLACE || o == MPI_NO_OP;
}

}  // namespace

TEST_CASE("predefined ops line up with their handles") {
  CHECK(mpi::builtin_ops().size() == 15);
  CHECK(op(MPI_MAX).name == "MPI_MAX");
  CHECK(op(MPI_SUM).kind == OpKind::sum);
  CHECK(op(MPI_MAXLOC).name == "MPI_MAXLOC");
  CHECK(op(MPI_NO_OP).kind == OpKind::no_op);
  for (int i = 1; i <= mpi::kNumPredefinedOps; ++i) CHECK(mpi::builtin_ops()[i]->commutative);
}

TEST_CASE("every predefined op against every predefined type follows the standard's table") {
  int accepted = 0;
  for (int o = 1; o <= mpi::kNumPredefinedOps; ++o) {
    MPI_Op handle = mpi::builtin_op_handle(static_cast<OpKind>(o));
    for (MPI_Datatype type : mpi::builtin_type_handles()) {
      INFO(op(handle).name, " on ", builtin(type)->name);
      const bool allowed = standard_allows(handle, type);
      CHECK(mpi::op_accepts(op(handle), *builtin(type)) == allowed);
      if (allowed) ++accepted;
    }
  }
  // 65 types: 24 integer (19 C with MPI_CHAR, 5 Fortran), 3 multi-language,
  // 7 floating, 10 complex, 3 logical, 1 byte, 9 pairs, 6 others (wide and
  // Fortran characters, packed, 16-bit float, REAL*16, COMPLEX*32), and the
  // MPI_LB/MPI_UB markers.
  REQUIRE(mpi::builtin_type_handles().size() == 65);
  // MAX/MIN 2 x 34, SUM/PROD 2 x 44, LAND.. 3 x 30, BAND.. 3 x 28, MINLOC/MAXLOC
  // 2 x 9, REPLACE/NO_OP 2 x 65
  CHECK(accepted == 68 + 88 + 90 + 84 + 18 + 130);
}

TEST_CASE("derived types made of one predefined type take its ops; mixed ones do not") {
  TypePtr vec = committed(Datatype::hvector(3, 2, 4 * sizeof(int), builtin(MPI_INT), 4));
  CHECK(vec->element_id() == builtin(MPI_INT)->element_id());
  CHECK(mpi::op_accepts(op(MPI_SUM), *vec));
  CHECK_FALSE(mpi::op_accepts(op(MPI_MINLOC), *vec));
  TypePtr pairs = committed(Datatype::contiguous(4, builtin(MPI_DOUBLE_INT)));
  CHECK(mpi::op_accepts(op(MPI_MAXLOC), *pairs));
  CHECK_FALSE(mpi::op_accepts(op(MPI_SUM), *pairs));
  std::int64_t lens[] = {1, 1}, displs[] = {0, 8};
  TypePtr mixed_types[] = {builtin(MPI_INT), builtin(MPI_DOUBLE)};
  TypePtr mixed = committed(Datatype::create_struct(lens, displs, mixed_types));
  CHECK(mixed->element_id() == 0);
  CHECK_FALSE(mpi::op_accepts(op(MPI_SUM), *mixed));
  CHECK(mpi::op_accepts(op(MPI_REPLACE), *mixed));
  TypePtr same_types[] = {builtin(MPI_INT), builtin(MPI_INT)};
  TypePtr same = committed(Datatype::create_struct(lens, displs, same_types));
  CHECK(mpi::op_accepts(op(MPI_BXOR), *same));
  // A struct whose first member is itself mixed stays mixed.
  TypePtr nested_types[] = {mixed, builtin(MPI_INT)};
  std::int64_t nested_displs[] = {0, 16};
  CHECK(committed(Datatype::create_struct(lens, nested_displs, nested_types))->element_id() == 0);
  Op user{OpKind::user, nullptr, false, "user op"};
  CHECK(mpi::op_accepts(user, *mixed));
}

TEST_CASE("arithmetic ops on integers wrap and on floats follow IEEE") {
  std::vector<int> a = {1, -5, 0x7fffffff, 7}, b = {2, 3, 1, -7};
  auto r = b;
  reduce(MPI_SUM, MPI_INT, a, r);
  CHECK(r == std::vector<int>{3, -2, static_cast<int>(0x80000000u), 0});
  r = b;
  reduce(MPI_PROD, MPI_INT, a, r);
  CHECK(r == std::vector<int>{2, -15, 0x7fffffff, -49});
  r = b;
  reduce(MPI_MAX, MPI_INT, a, r);
  CHECK(r == std::vector<int>{2, 3, 0x7fffffff, 7});
  r = b;
  reduce(MPI_MIN, MPI_INT, a, r);
  CHECK(r == std::vector<int>{1, -5, 1, -7});
  std::vector<unsigned short> us = {65535, 300}, us2 = {65535, 300};
  reduce(MPI_PROD, MPI_UNSIGNED_SHORT, us, us2);
  CHECK(us2 == std::vector<unsigned short>{1, static_cast<unsigned short>(90000 % 65536)});
  std::vector<double> d = {0.5, -1.0, 1e300}, d2 = {0.25, 2.0, 1e300};
  reduce(MPI_SUM, MPI_DOUBLE, d, d2);
  CHECK(d2 == std::vector<double>{0.75, 1.0, 2e300});
  reduce(MPI_PROD, MPI_DOUBLE, d, d2);
  CHECK(d2[0] == 0.375);
  CHECK(d2[2] == HUGE_VAL);
  std::vector<long double> ld = {1.5L, -2.0L}, ld2 = {2.0L, -3.0L};
  reduce(MPI_MIN, MPI_LONG_DOUBLE, ld, ld2);
  CHECK(ld2 == std::vector<long double>{1.5L, -3.0L});
  std::vector<MPI_Count> c = {5, 6}, c2 = {1, 2};
  reduce(MPI_BAND, MPI_COUNT, c, c2);
  CHECK(c2 == std::vector<MPI_Count>{1, 2});
}

TEST_CASE("complex sum and product") {
  using C = std::complex<double>;
  std::vector<C> a = {{1, 2}, {0, 1}}, b = {{3, -1}, {0, 1}};
  reduce(MPI_PROD, MPI_C_DOUBLE_COMPLEX, a, b);
  CHECK(b[0] == C(5, 5));
  CHECK(b[1] == C(-1, 0));
  std::vector<std::complex<float>> f = {{1, 1}}, g = {{2, -3}};
  reduce(MPI_SUM, MPI_CXX_FLOAT_COMPLEX, f, g);
  CHECK(g[0] == std::complex<float>(3, -2));
}

TEST_CASE("logical ops give 0 or 1 and treat any non-zero as true; bitwise ops on bytes") {
  std::vector<int> a = {0, 5, 0, -1}, b = {0, 0, 9, 2};
  auto r = b;
  reduce(MPI_LAND, MPI_INT, a, r);
  CHECK(r == std::vector<int>{0, 0, 0, 1});
  r = b;
  reduce(MPI_LOR, MPI_INT, a, r);
  CHECK(r == std::vector<int>{0, 1, 1, 1});
  r = b;
  reduce(MPI_LXOR, MPI_INT, a, r);
  CHECK(r == std::vector<int>{0, 1, 1, 0});
  // C _Bool / C++ bool bytes; a byte of 2 is still true.
  std::vector<unsigned char> p = {1, 0, 2}, q = {1, 1, 0};
  reduce(MPI_LXOR, MPI_C_BOOL, p, q);
  CHECK(q == std::vector<unsigned char>{0, 1, 1});
  std::vector<unsigned char> x = {0xf0, 0x0f}, y = {0x3c, 0x3c};
  auto z = y;
  reduce(MPI_BAND, MPI_BYTE, x, z);
  CHECK(z == std::vector<unsigned char>{0x30, 0x0c});
  z = y;
  reduce(MPI_BOR, MPI_BYTE, x, z);
  CHECK(z == std::vector<unsigned char>{0xfc, 0x3f});
  z = y;
  reduce(MPI_BXOR, MPI_BYTE, x, z);
  CHECK(z == std::vector<unsigned char>{0xcc, 0x33});
}

TEST_CASE("logical ops on MPI_AINT, MPI_OFFSET and MPI_COUNT, as on any C integer") {
  const std::vector<MPI_Aint> a = {0, 5, 0, -1, 1L << 40}, b = {0, 0, 9, 2, 0};
  for (MPI_Datatype t : {MPI_AINT, MPI_OFFSET, MPI_COUNT}) {
    INFO(builtin(t)->name);
    auto r = b;
    reduce(MPI_LAND, t, a, r);
    CHECK(r == std::vector<MPI_Aint>{0, 0, 0, 1, 0});
    r = b;
    reduce(MPI_LOR, t, a, r);
    CHECK(r == std::vector<MPI_Aint>{0, 1, 1, 1, 1});
    r = b;
    reduce(MPI_LXOR, t, a, r);
    CHECK(r == std::vector<MPI_Aint>{0, 1, 1, 0, 1});
  }
}

TEST_CASE("MINLOC and MAXLOC on every pair type; ties keep the smaller index") {
  struct DI { double v; int i; };
  std::vector<DI> a = {{1.0, 4}, {5.0, 1}, {2.0, 9}}, b = {{2.0, 0}, {5.0, 3}, {2.0, 2}};
  // Padding bytes of the destination must not be touched: mark them.
  std::vector<DI> r = b;
  for (auto& e : r) std::memset(reinterpret_cast<char*>(&e) + 12, 0x5a, 4);
  reduce(MPI_MINLOC, MPI_DOUBLE_INT, a, r);
  CHECK(r[0].v == 1.0);
  CHECK(r[0].i == 4);
  CHECK(r[1].i == 1);  // tie on 5.0: index 1 < 3
  CHECK(r[2].i == 2);  // tie on 2.0: index 2 < 9
  CHECK(reinterpret_cast<unsigned char*>(&r[0])[12] == 0x5a);
  r = b;
  reduce(MPI_MAXLOC, MPI_DOUBLE_INT, a, r);
  CHECK(r[0].v == 2.0);
  CHECK(r[0].i == 0);
  CHECK(r[1].i == 1);
  struct SI { short v; int i; };
  std::vector<SI> s = {{-3, 7}}, t = {{2, 1}};
  reduce(MPI_MINLOC, MPI_SHORT_INT, s, t);
  CHECK(t[0].v == -3);
  CHECK(t[0].i == 7);
  struct LDI { long double v; int i; };
  std::vector<LDI> l = {{1.0L, 2}}, m = {{1.0L, 1}};
  reduce(MPI_MAXLOC, MPI_LONG_DOUBLE_INT, l, m);
  CHECK(m[0].i == 1);
  std::vector<int> two = {3, 0, 8, 1}, two2 = {3, 5, 9, 2};  // MPI_2INT: (value, index)
  reduce(MPI_MAXLOC, MPI_2INT, two, two2, 2);
  CHECK(two2 == std::vector<int>{3, 0, 9, 2});
  struct FI { float v; int i; };
  std::vector<FI> f = {{0.5f, 3}}, g = {{0.25f, 8}};
  reduce(MPI_MINLOC, MPI_FLOAT_INT, f, g);
  CHECK(g[0].i == 8);
  struct LI { long v; int i; };
  std::vector<LI> h = {{10, 3}}, k = {{11, 8}};
  reduce(MPI_MAXLOC, MPI_LONG_INT, h, k);
  CHECK(k[0].i == 8);
}

TEST_CASE("ops on a vector type work element-wise and leave the gaps alone") {
  // 3 blocks of 2 ints, stride 4 ints: elements at 0,1, 4,5, 8,9.
  TypePtr vec = committed(Datatype::hvector(3, 2, 4 * sizeof(int), builtin(MPI_INT), 4));
  std::vector<int> in(12), inout(12, -1);
  for (int i = 0; i < 12; ++i) in[i] = i;
  for (int i : {0, 1, 4, 5, 8, 9}) inout[i] = 100;
  mpi::reduce_layout({&op(MPI_SUM), vec.get(), 0}, in.data(), inout.data(), 1);
  CHECK(inout == std::vector<int>{100, 101, -1, -1, 104, 105, -1, -1, 108, 109, -1, -1});
  // Packed: the same six elements back to back.
  std::vector<int> pin = {1, 2, 3, 4, 5, 6}, pout = {10, 20, 30, 40, 50, 60};
  mpi::reduce_packed({&op(MPI_MAX), vec.get(), 0}, pin.data(), pout.data(), 1);
  CHECK(pout == std::vector<int>{10, 20, 30, 40, 50, 60});
  mpi::reduce_packed({&op(MPI_REPLACE), vec.get(), 0}, pin.data(), pout.data(), 1);
  CHECK(pout == pin);
  mpi::reduce_packed({&op(MPI_NO_OP), vec.get(), 0}, pout.data(), pin.data(), 1);
  CHECK(pin == std::vector<int>{1, 2, 3, 4, 5, 6});
}

namespace {

// Non-commutative: inout = in * 10 + inout, on ints; records the datatype
// handle and length it was given.
MPI_Datatype g_seen_type;
int g_seen_len;
void shift_digits(void* in, void* inout, int* len, MPI_Datatype* type) {
  g_seen_type = *type;
  g_seen_len = *len;
  // The user's layout: a vector of 2 ints with stride 3 (ints 0, 1 and 3, 4
  // of each instance... here one instance per element pair).
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) {
    for (int k : {0, 1, 3, 4}) b[i * 6 + k] = a[i * 6 + k] * 10 + b[i * 6 + k];
  }
}

}  // namespace

TEST_CASE("a user op sees the user's layout, datatype handle and count, also from packed data") {
  // Instance: vector(2 blocks of 2 ints, stride 3), resized to 6 ints.
  TypePtr vec = Datatype::hvector(2, 2, 3 * sizeof(int), builtin(MPI_INT), 4);
  TypePtr inst = committed(Datatype::resized(vec, 0, 6 * sizeof(int)));
  Op user{OpKind::user, &shift_digits, false, "user op"};
  const MPI_Datatype handle = mpi::make_handle(mpi::HandleKind::datatype, 77);
  // Packed: 2 instances x 4 ints.
  std::vector<int> in = {1, 2, 3, 4, 5, 6, 7, 8}, inout = {9, 8, 7, 6, 5, 4, 3, 2};
  mpi::reduce_packed({&user, inst.get(), handle}, in.data(), inout.data(), 2);
  CHECK(g_seen_type == handle);
  CHECK(g_seen_len == 2);
  CHECK(inout == std::vector<int>{19, 28, 37, 46, 55, 64, 73, 82});
  // A contiguous type goes to the function without copies.
  TypePtr ints = builtin(MPI_INT);
  Op add_shift{OpKind::user,
               [](void* a, void* b, int* len, MPI_Datatype*) {
                 for (int i = 0; i < *len; ++i)
                   static_cast<int*>(b)[i] = static_cast<int*>(a)[i] * 10 + static_cast<int*>(b)[i];
               },
               false, "user op"};
  std::vector<int> x = {1, 2}, y = {3, 4};
  mpi::reduce_packed({&add_shift, ints.get(), MPI_INT}, x.data(), y.data(), 2);
  CHECK(y == std::vector<int>{13, 24});
}

TEST_CASE("Fortran's types reduce: LOGICAL as 4-byte 0/1, MPI_2REAL pairs, DOUBLE COMPLEX") {
  std::vector<std::int32_t> l_in = {1, 0, 1, 0}, l_io = {1, 1, 0, 0};
  reduce(MPI_LAND, MPI_LOGICAL, l_in, l_io);
  CHECK(l_io == std::vector<std::int32_t>{1, 0, 0, 0});
  // (value, index) with the index a REAL: minloc keeps the smaller value,
  // and on ties the smaller index.
  std::vector<float> p_in = {1.5f, 3.0f, 2.0f, 1.0f}, p_io = {2.5f, 4.0f, 2.0f, 7.0f};
  reduce(MPI_MINLOC, MPI_2REAL, p_in, p_io, 2);
  CHECK(p_io == std::vector<float>{1.5f, 3.0f, 2.0f, 1.0f});
  std::vector<double> d_in = {1.0, 5.0}, d_io = {3.0, 2.0};
  reduce(MPI_MAXLOC, MPI_2DOUBLE_PRECISION, d_in, d_io, 1);
  CHECK(d_io == std::vector<double>{3.0, 2.0});
  std::vector<std::complex<double>> c_in = {{1, 2}}, c_io = {{3, -1}};
  reduce(MPI_PROD, MPI_DOUBLE_COMPLEX, c_in, c_io);
  CHECK(c_io[0] == std::complex<double>(5, 5));
  std::vector<std::int64_t> i_in = {5}, i_io = {-7};
  reduce(MPI_SUM, MPI_INTEGER8, i_in, i_io);
  CHECK(i_io[0] == -2);
  CHECK(builtin(MPI_2DOUBLE_PRECISION)->name == "MPI_2DOUBLE_PRECISION");
}
