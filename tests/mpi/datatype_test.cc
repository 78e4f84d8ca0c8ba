// The datatype engine alone: bounds, flattening, pack/unpack, elements.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "mpi.h"
#include "mpi/internal/builtin_types.hpp"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/handles.hpp"

using mpi::Datatype;
using mpi::TypePtr;

namespace {

TypePtr builtin(MPI_Datatype handle) {
  return mpi::builtin_types().at(mpi::predefined_slot(handle));
}

TypePtr committed(TypePtr t) {
  t->commit();
  return t;
}

}  // namespace

TEST_CASE("predefined types line up with their handles") {
  CHECK(builtin(MPI_CHAR)->name == "MPI_CHAR");
  CHECK(builtin(MPI_INT)->name == "MPI_INT");
  CHECK(builtin(MPI_PACKED)->name == "MPI_PACKED");
  CHECK(builtin(MPI_LONG_DOUBLE_INT)->name == "MPI_LONG_DOUBLE_INT");
  CHECK(builtin(MPI_CXX_LONG_DOUBLE_COMPLEX)->name == "MPI_CXX_LONG_DOUBLE_COMPLEX");
  CHECK(mpi::builtin_type_handles().size() == 65);
  CHECK(builtin(MPI_DOUBLE_PRECISION)->name == "MPI_DOUBLE_PRECISION");
  CHECK(builtin(MPI_2REAL)->size() == 8);
  CHECK(builtin(MPI_COMPLEX32)->size() == 32);
  // MPICH's handles carry the size of a builtin-kind type in bits 8-15.
  for (MPI_Datatype h : mpi::builtin_type_handles()) {
    CAPTURE(builtin(h)->name);
    CHECK(builtin(h)->is_builtin());
    if ((static_cast<unsigned>(h) >> 30) == 1) CHECK(((h >> 8) & 0xff) == builtin(h)->size());
  }
  CHECK(builtin(MPI_LONG_LONG)->size() == 8);
  CHECK(builtin(MPI_C_BOOL)->size() == 1);
  CHECK(builtin(MPI_INT64_T)->size() == 8);
  CHECK(builtin(MPI_C_DOUBLE_COMPLEX)->size() == 16);
  CHECK(builtin(MPI_C_DOUBLE_COMPLEX)->elements_per_instance() == 2);
}

TEST_CASE("pair types carry C struct padding") {
  TypePtr di = builtin(MPI_DOUBLE_INT);
  CHECK(di->size() == 12);
  CHECK(di->extent() == 16);
  CHECK(di->true_extent() == 12);
  CHECK(di->elements_per_instance() == 2);
  CHECK_FALSE(di->contiguous_for(2));
  CHECK(di->contiguous_for(1));
  TypePtr si = builtin(MPI_SHORT_INT);
  CHECK(si->size() == 6);
  CHECK(si->extent() == 8);
  CHECK(si->flat().blocks.size() == 2);
  TypePtr ti = builtin(MPI_2INT);
  CHECK(ti->contiguous_for(100));
}

TEST_CASE("contiguous of contiguous flattens to one block") {
  TypePtr t = committed(Datatype::contiguous(1 << 20, Datatype::contiguous(64, builtin(MPI_BYTE))));
  CHECK(t->size() == (1 << 26));
  CHECK(t->flat().blocks.size() == 1);
  CHECK(t->contiguous_for(3));
  CHECK(t->elements_per_instance() == (1 << 26));
}

TEST_CASE("vector: bounds, blocks, pack and unpack") {
  // 3 blocks of 2 ints, stride 4 ints.
  TypePtr t = committed(
      Datatype::hvector(3, 2, 4 * sizeof(int), builtin(MPI_INT), MPI_COMBINER_VECTOR));
  CHECK(t->size() == 24);
  CHECK(t->extent() == 40);
  CHECK(t->lb() == 0);
  // One block repeated 3 times 16 bytes apart (a loop, not 3 entries).
  REQUIRE(t->flat().blocks.size() == 1);
  CHECK(t->flat().blocks[0].len == 8);
  CHECK(t->flat().reps == 3);
  CHECK(t->flat().rep_stride == 16);
  CHECK_FALSE(t->contiguous_for(1));

  std::array<int, 12> src{};
  std::iota(src.begin(), src.end(), 0);
  std::array<int, 6> packed{};
  mpi::pack(*t, src.data(), 1, packed.data());
  CHECK(packed == std::array<int, 6>{0, 1, 4, 5, 8, 9});

  std::array<int, 12> back;
  back.fill(-1);
  mpi::unpack(*t, back.data(), 1, packed.data(), sizeof packed);
  CHECK(back == std::array<int, 12>{0, 1, -1, -1, 4, 5, -1, -1, 8, 9, -1, -1});
}

TEST_CASE("partial unpack writes nothing past the bytes received") {
  TypePtr t = committed(
      Datatype::hvector(3, 2, 4 * sizeof(int), builtin(MPI_INT), MPI_COMBINER_VECTOR));
  std::array<int, 6> packed{10, 11, 12, 13, 14, 15};
  std::array<int, 12> out;
  out.fill(-1);
  mpi::unpack(*t, out.data(), 1, packed.data(), 3 * sizeof(int));
  CHECK(out == std::array<int, 12>{10, 11, -1, -1, 12, -1, -1, -1, -1, -1, -1, -1});
  CHECK(mpi::elements_in(*t, 3 * sizeof(int)) == 3);
  CHECK(mpi::elements_in(*t, 3 * sizeof(int) + 1) == -1);
}

// One block per row takes a strided loop (datatype.cc's copy_one_block_type):
// rows of several instances, each block length it treats apart (1, 2, 4, 8,
// 16 bytes) and others, and a short message ending inside a block.
TEST_CASE("one block per row: several instances, any block length, a short message") {
  for (int len : {1, 2, 3, 4, 8, 12, 16, 40}) {
    CAPTURE(len);
    // 3 rows of `len` bytes, rows 2 * len + 1 apart, 2 instances.
    TypePtr t = committed(Datatype::hvector(3, len, 2 * len + 1, builtin(MPI_BYTE),
                                            MPI_COMBINER_HVECTOR));
    REQUIRE(t->flat().blocks.size() == 1);
    const std::int64_t ext = t->extent();
    std::vector<unsigned char> src(2 * ext);
    std::iota(src.begin(), src.end(), 0);
    std::vector<unsigned char> packed(2 * 3 * len);
    mpi::pack(*t, src.data(), 2, packed.data());
    std::vector<unsigned char> want;
    for (int i = 0; i < 2; ++i) {
      for (int r = 0; r < 3; ++r) {
        for (int b = 0; b < len; ++b) want.push_back(src[i * ext + r * (2 * len + 1) + b]);
      }
    }
    CHECK(packed == want);
    // All but half a block of the message: the rest of the buffer untouched.
    const std::int64_t got = static_cast<std::int64_t>(packed.size()) - (len + 1) / 2;
    std::vector<unsigned char> back(2 * ext, 0xee);
    mpi::unpack(*t, back.data(), 2, packed.data(), got);
    std::int64_t k = 0;
    for (int i = 0; i < 2; ++i) {
      for (int r = 0; r < 3; ++r) {
        for (int b = 0; b < len; ++b, ++k) {
          const std::int64_t at = i * ext + r * (2 * len + 1) + b;
          CHECK(back[at] == (k < got ? src[at] : 0xee));
          back[at] = 0xee;
        }
      }
    }
    CHECK(std::count(back.begin(), back.end(), 0xee) == static_cast<std::ptrdiff_t>(back.size()));
  }
  // No instances: the buffer is not looked at, whatever its value (the
  // block's offset once carried a pointer near the top of the address
  // space past its end; UndefinedBehaviorSanitizer's pointer-overflow check
  // in the fuzzer found it).
  std::array<std::int64_t, 1> one{1}, at_100{100};
  std::array<TypePtr, 1> byte{builtin(MPI_BYTE)};
  TypePtr far = committed(Datatype::hvector(2, 1, 5, Datatype::create_struct(one, at_100, byte),
                                            MPI_COMBINER_HVECTOR));
  REQUIRE(far->flat().blocks.size() == 1);
  REQUIRE(far->flat().blocks[0].offset == 100);
  const auto near_top = reinterpret_cast<void*>(std::uintptr_t{0} - 8);
  unsigned char nothing = 0x5a;
  mpi::pack(*far, near_top, 0, &nothing);
  mpi::unpack(*far, near_top, 0, &nothing, 0);
  CHECK(nothing == 0x5a);
  // A resized byte (one block per instance, no rows): every other byte.
  TypePtr every_other = committed(Datatype::resized(builtin(MPI_BYTE), 0, 2));
  std::vector<unsigned char> src(10);
  std::iota(src.begin(), src.end(), 0);
  std::vector<unsigned char> packed(5);
  mpi::pack(*every_other, src.data(), 5, packed.data());
  CHECK(packed == std::vector<unsigned char>{0, 2, 4, 6, 8});
  std::vector<unsigned char> back(10, 0xee);
  mpi::unpack(*every_other, back.data(), 5, packed.data(), 3);
  CHECK(back == std::vector<unsigned char>{0, 0xee, 2, 0xee, 4, 0xee, 0xee, 0xee, 0xee, 0xee});
}

TEST_CASE("struct rounds its extent up to the strictest alignment") {
  std::array<std::int64_t, 2> lens{1, 1};
  std::array<std::int64_t, 2> displs{0, 8};
  std::array<TypePtr, 2> types{builtin(MPI_DOUBLE), builtin(MPI_INT)};
  TypePtr t = committed(Datatype::create_struct(lens, displs, types));
  CHECK(t->size() == 12);
  CHECK(t->extent() == 16);
  CHECK(t->true_extent() == 12);
  CHECK(t->elements_per_instance() == 2);
  CHECK(mpi::elements_in(*t, 8) == 1);
  CHECK(mpi::elements_in(*t, 12 + 8) == 3);
  CHECK(mpi::elements_in(*t, 10) == -1);

  struct S { double d; int i; };
  std::array<S, 3> in{{{1.5, 1}, {2.5, 2}, {3.5, 3}}};
  std::vector<char> buf(3 * 12);
  mpi::pack(*t, in.data(), 3, buf.data());
  std::array<S, 3> out{};
  mpi::unpack(*t, out.data(), 3, buf.data(), buf.size());
  for (int k = 0; k < 3; ++k) {
    CHECK(out[k].d == in[k].d);
    CHECK(out[k].i == in[k].i);
  }
}

TEST_CASE("negative displacements and resized bounds") {
  std::array<std::int64_t, 2> lens{1, 2};
  std::array<std::int64_t, 2> displs{-8, 16};
  TypePtr t = committed(Datatype::hindexed(lens, displs, builtin(MPI_INT), MPI_COMBINER_HINDEXED));
  CHECK(t->lb() == -8);
  CHECK(t->ub() == 24);
  CHECK(t->true_lb() == -8);
  CHECK(t->size() == 12);

  TypePtr r = committed(Datatype::resized(builtin(MPI_INT), -4, 16));
  CHECK(r->lb() == -4);
  CHECK(r->extent() == 16);
  CHECK(r->true_lb() == 0);
  CHECK(r->true_extent() == 4);
  // Three resized ints sit 16 bytes apart.
  TypePtr c = committed(Datatype::contiguous(3, r));
  REQUIRE(c->flat().blocks.size() == 1);
  CHECK(c->flat().reps == 3);
  CHECK(c->flat().rep_stride == 16);
  CHECK(c->extent() == 48);

  TypePtr d = committed(Datatype::dup(r));
  CHECK(d->lb() == -4);
  CHECK(d->extent() == 16);
}

TEST_CASE("MPI_LB and MPI_UB markers set the bounds, and stick in types built from them") {
  TypePtr lb = builtin(MPI_LB), ub = builtin(MPI_UB), i = builtin(MPI_INT), d = builtin(MPI_DOUBLE);
  CHECK(lb->size() == 0);
  CHECK(lb->extent() == 0);
  CHECK(lb->name == "MPI_LB");
  CHECK(ub->name == "MPI_UB");
  // The old idiom for an int with room for 4: {int at 0, UB at 16}. No
  // alignment padding is added after an upper-bound marker.
  std::int64_t one2[] = {1, 1}, at_0_16[] = {0, 16};
  TypePtr padded_types[] = {i, ub};
  TypePtr padded = committed(Datatype::create_struct(one2, at_0_16, padded_types));
  CHECK(padded->lb() == 0);
  CHECK(padded->extent() == 16);
  CHECK(padded->size() == 4);
  CHECK(padded->true_extent() == 4);
  CHECK(padded->explicit_ub());
  CHECK_FALSE(padded->explicit_lb());
  // Markers alone decide a bound where present, even inside the data:
  // {LB at 8, int at 0, double at 16, UB at 20} has lb 8, ub 20.
  std::int64_t one4[] = {1, 1, 1, 1}, displs[] = {8, 0, 16, 20};
  TypePtr inner_types[] = {lb, i, d, ub};
  TypePtr inner = committed(Datatype::create_struct(one4, displs, inner_types));
  CHECK(inner->lb() == 8);
  CHECK(inner->ub() == 20);
  CHECK(inner->true_lb() == 0);
  CHECK(inner->true_ub() == 24);
  CHECK(inner->size() == 12);
  // Sticky: 3 of them side by side step by the marked extent (12) and keep
  // the markers; a struct putting one beside a double at 100 takes its upper
  // bound from the marker alone, and its lower one from the marker too.
  TypePtr three = committed(Datatype::contiguous(3, inner));
  CHECK(three->lb() == 8);
  CHECK(three->ub() == 8 + 3 * 12);
  CHECK(three->explicit_lb());
  CHECK(three->explicit_ub());
  std::int64_t at_0_100[] = {0, 100};
  TypePtr mixed_types[] = {inner, d};
  TypePtr mixed = committed(Datatype::create_struct(one2, at_0_100, mixed_types));
  CHECK(mixed->lb() == 8);
  CHECK(mixed->ub() == 20);
  CHECK(mixed->true_ub() == 108);
  // Data still moves: packing 2 of `padded` takes the ints 16 bytes apart.
  int src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int out[2] = {};
  mpi::pack(*padded, src, 2, out);
  CHECK(out[0] == 1);
  CHECK(out[1] == 5);
  // A bound with neither marker nor data is 0 (MPICH's struct_no_real_types):
  // {LB at 10} alone spans [10, 0).
  std::int64_t at_10[] = {10};
  TypePtr lb_only_types[] = {lb};
  TypePtr lb_only = committed(Datatype::create_struct({one2, 1}, at_10, lb_only_types));
  CHECK(lb_only->size() == 0);
  CHECK(lb_only->lb() == 10);
  CHECK(lb_only->extent() == -10);
  // Resized types carry both markers, as the standard writes their typemap.
  TypePtr resized = Datatype::resized(i, -4, 12);
  CHECK(resized->explicit_lb());
  CHECK(resized->explicit_ub());
}

TEST_CASE("subarray in C and Fortran order") {
  // A 4x5 int array; the 2x3 block starting at row 1, column 2.
  std::array<std::int64_t, 2> sizes{4, 5}, subsizes{2, 3}, starts{1, 2};
  TypePtr c = committed(Datatype::subarray(sizes, subsizes, starts, true, builtin(MPI_INT)));
  CHECK(c->size() == 24);
  CHECK(c->extent() == 80);
  CHECK(c->lb() == 0);
  CHECK(c->combiner() == MPI_COMBINER_SUBARRAY);
  std::array<int, 20> a;
  std::iota(a.begin(), a.end(), 0);
  std::array<int, 6> p{};
  mpi::pack(*c, a.data(), 1, p.data());
  CHECK(p == std::array<int, 6>{7, 8, 9, 12, 13, 14});

  // Fortran order: dimension 0 varies fastest.
  TypePtr f = committed(Datatype::subarray(sizes, subsizes, starts, false, builtin(MPI_INT)));
  mpi::pack(*f, a.data(), 1, p.data());
  // element (i, j) lives at i + 4 * j
  CHECK(p == std::array<int, 6>{9, 10, 13, 14, 17, 18});
}

TEST_CASE("a derived type may be built from uncommitted parts") {
  TypePtr inner = Datatype::hvector(2, 1, 8, builtin(MPI_INT), MPI_COMBINER_VECTOR);
  CHECK_FALSE(inner->committed());
  TypePtr outer = committed(Datatype::contiguous(2, inner));
  CHECK_FALSE(inner->committed());
  CHECK(outer->size() == 16);
  // inner extent is 12: its blocks at 0 and 8 (expanded), twice 12 apart
  REQUIRE(outer->flat().blocks.size() == 2);
  CHECK(outer->flat().blocks[1].offset == 8);
  CHECK(outer->flat().reps == 2);
  CHECK(outer->flat().rep_stride == 12);
  std::array<int, 6> src{0, 1, 2, 3, 4, 5}, packed{};
  mpi::pack(*outer, src.data(), 1, packed.data());
  CHECK(packed == std::array<int, 6>{0, 2, 3, 5, 0, 0});
}

TEST_CASE("empty types") {
  TypePtr z = committed(Datatype::contiguous(0, builtin(MPI_INT)));
  CHECK(z->size() == 0);
  CHECK(z->extent() == 0);
  CHECK(z->contiguous_for(5));
  CHECK(mpi::elements_in(*z, 0) == 0);
  std::array<std::int64_t, 2> lens{0, 0}, displs{4, 8};
  TypePtr e = committed(Datatype::hindexed(lens, displs, builtin(MPI_INT), MPI_COMBINER_INDEXED));
  CHECK(e->size() == 0);
  CHECK(e->flat().blocks.empty());
}

// tests/fuzz/datatype_fuzzer found signed overflow (undefined behaviour) in
// the size and bounds of nested huge types; such types are now refused.
TEST_CASE("a type whose size or bounds overflow is refused, not computed") {
  const TypePtr dbl = builtin(MPI_DOUBLE);
  const TypePtr big = Datatype::contiguous(std::int64_t{1} << 40, dbl);  // 8 TiB: fine
  REQUIRE(big != nullptr);
  CHECK(big->size() == std::int64_t{8} << 40);
  CHECK(Datatype::contiguous(std::int64_t{1} << 30, big) == nullptr);  // 2^73 bytes
  CHECK(Datatype::hvector(2, 1, INT64_MAX, dbl, MPI_COMBINER_HVECTOR) == nullptr);
  const std::int64_t len = 1, far = INT64_MAX - 4;
  CHECK(Datatype::hindexed({&len, 1}, {&far, 1}, dbl, MPI_COMBINER_HINDEXED) == nullptr);
  CHECK(Datatype::resized(dbl, INT64_MAX, INT64_MAX) == nullptr);
  CHECK(Datatype::resized(dbl, -8, 16) != nullptr);
  const std::int64_t sizes[] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  const std::int64_t subs[] = {1, 1}, starts[] = {0, 0};
  CHECK(Datatype::subarray(sizes, subs, starts, true, dbl) == nullptr);
  // Built on a refused type: refused too.
  CHECK(Datatype::contiguous(2, nullptr) == nullptr);
  CHECK(Datatype::dup(nullptr) == nullptr);
}

// tests/fuzz/datatype_fuzzer: a vector of count 0 with a huge block length
// built the row it never repeats (2^31 blocks) on commit.
TEST_CASE("a zero-count type with a huge block length commits to nothing") {
  const TypePtr t = Datatype::hvector(0, 1 << 30, -6, builtin(MPI_DOUBLE_INT), MPI_COMBINER_VECTOR);
  REQUIRE(t != nullptr);
  CHECK(t->size() == 0);
  t->commit();
  CHECK(t->flat().blocks.empty());
  CHECK(t->flat().elements.empty());
  CHECK(t->contiguous_for(5));
}

// tests/fuzz/datatype_fuzzer: an entry of block length 0 flattened its
// (uncommitted, huge) child anyway.
TEST_CASE("an entry of block length 0 does not flatten its child") {
  // 2^30 scattered doubles: 2^30 blocks if it were ever flattened.
  const TypePtr huge = Datatype::hvector(1 << 30, 1, 16, builtin(MPI_DOUBLE), MPI_COMBINER_HVECTOR);
  REQUIRE(huge != nullptr);
  const TypePtr t = Datatype::hvector(1000, 0, 8, huge, MPI_COMBINER_HVECTOR);
  REQUIRE(t != nullptr);
  CHECK(t->size() == 0);
  t->commit();
  CHECK(t->flat().blocks.empty());
  const std::int64_t lens[] = {0, 1};
  const std::int64_t displs[] = {0, 64};
  const TypePtr parts[] = {huge, builtin(MPI_INT)};
  const TypePtr s = Datatype::create_struct(lens, displs, parts);
  REQUIRE(s != nullptr);
  s->commit();
  REQUIRE(s->flat().blocks.size() == 1);
  CHECK(s->flat().blocks[0].offset == 64);
}

TEST_CASE("a vector of 2^28 blocks commits to one block and a loop") {
  TypePtr t = committed(
      Datatype::hvector(std::int64_t{1} << 28, 1, 8, builtin(MPI_INT), MPI_COMBINER_VECTOR));
  CHECK(t->size() == std::int64_t{1} << 30);
  REQUIRE(t->flat().blocks.size() == 1);
  CHECK(t->flat().reps == std::int64_t{1} << 28);
  REQUIRE(t->flat().elements.size() == 1);
  CHECK(t->flat().elements[0].count == std::int64_t{1} << 28);
  CHECK(t->elements_per_instance() == std::int64_t{1} << 28);
  CHECK_FALSE(t->contiguous_for(1));
  // Blocks that touch collapse into one dense block as before.
  TypePtr dense = committed(
      Datatype::hvector(std::int64_t{1} << 28, 2, 8, builtin(MPI_INT), MPI_COMBINER_VECTOR));
  REQUIRE(dense->flat().blocks.size() == 1);
  CHECK(dense->flat().reps == 1);
  CHECK(dense->contiguous_for(3));
}

// One instance of one child keeps the child's loop: MPICH's datatype/large_count
// resized a vector of 2^30 blocks, and committing it expanded every block (16 GiB).
TEST_CASE("resized, dup and a one-block hindexed of a 2^28-block vector commit to a loop") {
  const TypePtr v =
      Datatype::hvector(std::int64_t{1} << 28, 1, 12, builtin(MPI_INT), MPI_COMBINER_VECTOR);
  std::int64_t one = 1;
  std::int64_t disp = 8;
  const TypePtr wrapped[] = {
      committed(Datatype::resized(v, 1 << 30, -1024)),
      committed(Datatype::dup(v)),
      committed(Datatype::hindexed({&one, 1}, {&disp, 1}, v, MPI_COMBINER_HINDEXED)),
  };
  for (const TypePtr& t : wrapped) {
    CHECK(t->size() == std::int64_t{1} << 30);
    REQUIRE(t->flat().blocks.size() == 1);
    CHECK(t->flat().reps == std::int64_t{1} << 28);
    CHECK(t->flat().rep_stride == 12);
    CHECK(t->elements_per_instance() == std::int64_t{1} << 28);
  }
  CHECK(wrapped[2]->flat().blocks[0].offset == 8);
  // Moved by its displacement, such a type packs and unpacks as before.
  const TypePtr small = Datatype::hvector(3, 1, 8, builtin(MPI_INT), MPI_COMBINER_VECTOR);
  const TypePtr moved =
      committed(Datatype::hindexed({&one, 1}, {&disp, 1}, small, MPI_COMBINER_HINDEXED));
  std::array<int, 8> src{};
  std::iota(src.begin(), src.end(), 0);
  std::array<int, 3> packed{};
  mpi::pack(*moved, src.data(), 1, packed.data());
  CHECK(packed == std::array<int, 3>{2, 4, 6});
  std::array<int, 8> back;
  back.fill(-1);
  mpi::unpack(*moved, back.data(), 1, packed.data(), sizeof packed);
  CHECK(back == std::array<int, 8>{-1, -1, 2, -1, 4, -1, 6, -1});
}
