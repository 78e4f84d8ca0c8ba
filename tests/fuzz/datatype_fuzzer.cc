// Fuzzes MPI's derived datatypes through the C API (mpi/api/type_create.cc,
// mpi/api/large_count_types.cc, mpi/internal/type_build.cc, mpi/api/pack.cc,
// mpi/internal/datatype.cc): constructors of every kind, int and _c forms,
// nested on each other with arbitrary arguments (negative, huge, zero,
// overlapping, negative strides and extents), commit, and MPI_Pack /
// MPI_Unpack of the result.
//
// Input: a stream of operations (see below); each builds a type from the
// pool of types built so far (starting with some predefined ones), commits
// one, or packs and unpacks one. The MPI library runs as a singleton with
// MPI_ERRORS_RETURN, so bad arguments come back as error codes.
//
// Checks, besides the sanitizers: constructors either fail with an error
// code or give a type whose size, extent and pack size agree; pack then
// unpack then pack again gives the same bytes (overlapping typemaps
// included: every copy of a byte comes from one source byte).

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mpi.h"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

using lapis::fuzz::require;

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ == end_; }
  std::uint8_t byte() { return p_ == end_ ? 0 : *p_++; }
  // Small values mostly; now and then an edge (negative, zero, huge).
  int count() {
    const std::uint8_t b = byte();
    switch (b >> 5) {
      case 0: return -(b & 3) - 1;
      case 7: {
        constexpr int kEdges[] = {INT_MAX, INT_MIN, 1 << 20, 1 << 30, 65536, 0, 1, 255};
        return kEdges[b & 7];
      }
      default: return b & 15;
    }
  }
  // The _c constructors' MPI_Count values: count()'s, now and then beyond an int.
  MPI_Count big() {
    const std::uint8_t b = byte();
    if (b >= 0xf8) {
      constexpr MPI_Count kEdges[] = {INT64_MAX,    -3000000000ll, 1ll << 40, 1ll << 61,
                                      3000000000ll, INT_MAX + 1ll, 1ll << 33, 1ll << 62};
      return kEdges[b & 7];
    }
    return count();
  }
  // Displacements and strides: small, signed, sometimes huge.
  MPI_Aint aint() {
    const std::uint8_t b = byte();
    if (b >= 0xf8) {
      constexpr MPI_Aint kEdges[] = {INT64_MAX, INT64_MIN, INT64_MAX / 2, -(INT64_MAX / 2),
                                     1ll << 40, -(1ll << 40), 1ll << 31, INT_MIN};
      return kEdges[b & 7];
    }
    return static_cast<std::int8_t>(byte()) * static_cast<MPI_Aint>(b % 9);
  }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
};

void init_mpi() {
  static const bool done = [] {
    int provided = 0;
    require(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    require(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    return true;
  }();
  (void)done;
}

constexpr MPI_Datatype kBuiltins[] = {MPI_BYTE,   MPI_CHAR,       MPI_SHORT, MPI_INT,
                                      MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_2INT,  MPI_DOUBLE_INT,
                                      MPI_FLOAT};

constexpr std::int64_t kMaxBytes = 1 << 20;  // what the harness packs, at most

struct Pool {
  std::vector<MPI_Datatype> types;    // builtins first, then derived
  std::vector<MPI_Datatype> derived;  // to free

  MPI_Datatype pick(Input& in) const { return types[in.byte() % types.size()]; }
  void add(int rc, MPI_Datatype t) {
    if (rc != MPI_SUCCESS) return;
    require(t != MPI_DATATYPE_NULL);
    types.push_back(t);
    derived.push_back(t);
  }
};

void build(Input& in, Pool& pool, std::uint8_t kind) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const MPI_Datatype old = pool.pick(in);
  const int n = std::min(in.count(), 16);  // array lengths stay small
  std::vector<int> lens(static_cast<std::size_t>(std::max(n, 0)));
  std::vector<int> idispls(lens.size());
  std::vector<MPI_Aint> displs(lens.size());
  std::vector<MPI_Datatype> types(lens.size());
  for (std::size_t i = 0; i < lens.size(); ++i) {
    lens[i] = in.count();
    displs[i] = in.aint();
    idispls[i] = static_cast<int>(std::clamp<MPI_Aint>(displs[i], INT_MIN, INT_MAX));
    types[i] = pool.pick(in);
  }
  int rc = MPI_ERR_OTHER;
  switch (kind % 11) {
    case 0: rc = MPI_Type_contiguous(in.count(), old, &t); break;
    case 1: {
      const int count = in.count(), blocklength = in.count(), stride = in.count();
      // Negative strides too (not below INT_MIN).
      rc = MPI_Type_vector(count, blocklength, stride > INT_MIN + 4 ? stride - 4 : stride, old, &t);
      break;
    }
    case 2: rc = MPI_Type_create_hvector(in.count(), in.count(), in.aint(), old, &t); break;
    case 3: rc = MPI_Type_indexed(n, lens.data(), idispls.data(), old, &t); break;
    case 4: rc = MPI_Type_create_hindexed(n, lens.data(), displs.data(), old, &t); break;
    case 5: rc = MPI_Type_create_indexed_block(n, in.count(), idispls.data(), old, &t); break;
    case 6: rc = MPI_Type_create_hindexed_block(n, in.count(), displs.data(), old, &t); break;
    case 7: rc = MPI_Type_create_struct(n, lens.data(), displs.data(), types.data(), &t); break;
    case 8: rc = MPI_Type_create_resized(old, in.aint(), in.aint(), &t); break;
    case 9: {
      // sizes, subsizes and starts from the same small counts: often valid
      std::vector<int> sizes(lens.size()), subs(lens.size()), starts(lens.size());
      for (std::size_t i = 0; i < lens.size(); ++i) {
        sizes[i] = in.count();
        subs[i] = in.count();
        starts[i] = in.count();
      }
      rc = MPI_Type_create_subarray(n, sizes.data(), subs.data(), starts.data(),
                                    in.byte() % 3 == 0 ? MPI_ORDER_FORTRAN : MPI_ORDER_C, old, &t);
      break;
    }
    case 10: rc = MPI_Type_dup(old, &t); break;
  }
  pool.add(rc, t);
}

// The same constructors' large-count (_c) forms, whose values may pass INT_MAX.
void build_large(Input& in, Pool& pool, std::uint8_t kind) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const MPI_Datatype old = pool.pick(in);
  const int n = std::min(in.count(), 16);
  std::vector<MPI_Count> lens(static_cast<std::size_t>(std::max(n, 0))), displs(lens.size());
  std::vector<MPI_Datatype> types(lens.size());
  for (std::size_t i = 0; i < lens.size(); ++i) {
    lens[i] = in.big();
    displs[i] = in.byte() & 1 ? in.aint() : in.big();
    types[i] = pool.pick(in);
  }
  int rc = MPI_ERR_OTHER;
  switch (kind % 10) {
    case 0: {
      // Beyond INT_MAX it commits at once (a run type): only over a type the
      // harness would commit itself, as flattening is linear in its blocks.
      MPI_Count count = in.big(), old_size = 0;
      if (count > INT_MAX &&
          (MPI_Type_size_c(old, &old_size) != MPI_SUCCESS || old_size > kMaxBytes)) {
        count = in.count();
      }
      rc = MPI_Type_contiguous_c(count, old, &t);
      break;
    }
    case 1: rc = MPI_Type_vector_c(in.big(), in.big(), in.big(), old, &t); break;
    case 2: rc = MPI_Type_create_hvector_c(in.big(), in.big(), in.aint(), old, &t); break;
    case 3: rc = MPI_Type_indexed_c(n, lens.data(), displs.data(), old, &t); break;
    case 4: rc = MPI_Type_create_hindexed_c(n, lens.data(), displs.data(), old, &t); break;
    case 5: rc = MPI_Type_create_indexed_block_c(n, in.big(), displs.data(), old, &t); break;
    case 6: rc = MPI_Type_create_hindexed_block_c(n, in.big(), displs.data(), old, &t); break;
    case 7: rc = MPI_Type_create_struct_c(n, lens.data(), displs.data(), types.data(), &t); break;
    case 8: rc = MPI_Type_create_resized_c(old, in.aint(), in.aint(), &t); break;
    case 9: {
      std::vector<MPI_Count> sizes(lens.size()), subs(lens.size()), starts(lens.size());
      for (std::size_t i = 0; i < lens.size(); ++i) {
        sizes[i] = in.big();
        subs[i] = in.big();
        starts[i] = in.big();
      }
      rc = MPI_Type_create_subarray_c(n, sizes.data(), subs.data(), starts.data(),
                                      in.byte() % 3 == 0 ? MPI_ORDER_FORTRAN : MPI_ORDER_C, old,
                                      &t);
      break;
    }
  }
  pool.add(rc, t);
}

// Pack `count` instances out of a patterned buffer, unpack into a clean
// one, pack again: the same bytes.
void round_trip(Input& in, const Pool& pool) {
  const MPI_Datatype t = pool.pick(in);
  const int count = in.byte() % 4;
  int size = 0;
  if (MPI_Type_size(t, &size) != MPI_SUCCESS || size == MPI_UNDEFINED) return;
  MPI_Count size_x = 0;
  MPI_Aint true_lb = 0, true_extent = 0, lb = 0, extent = 0;
  require(MPI_Type_size_x(t, &size_x) == MPI_SUCCESS);
  require(MPI_Type_get_true_extent(t, &true_lb, &true_extent) == MPI_SUCCESS);
  require(MPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS);
  require(size_x >= 0);
  if (size_x > kMaxBytes || true_extent > kMaxBytes || extent > kMaxBytes || extent < -kMaxBytes ||
      true_lb > kMaxBytes || true_lb < -kMaxBytes) {
    return;
  }
  if (MPI_Type_commit(const_cast<MPI_Datatype*>(&t)) != MPI_SUCCESS) return;
  int pack_size = -1;
  require(MPI_Pack_size(count, t, MPI_COMM_WORLD, &pack_size) == MPI_SUCCESS);
  require(pack_size == count * size);
  // Instance i covers [i * extent + true_lb, i * extent + true_lb + true_extent).
  const MPI_Aint first = std::min<MPI_Aint>(0, (count - 1) * extent) + true_lb;
  const MPI_Aint last = std::max<MPI_Aint>(0, (count - 1) * extent) + true_lb + true_extent;
  const std::size_t span = count == 0 ? 0 : static_cast<std::size_t>(last - first);
  std::vector<std::uint8_t> source(span), target(span);
  for (std::size_t i = 0; i < span; ++i) source[i] = static_cast<std::uint8_t>(i * 131 + 7);
  // base + true_lb is the first byte of instance 0, so base may lie outside
  // the buffer: compute it as an address, as an MPI program would.
  const auto base_of = [&](std::vector<std::uint8_t>& v) {
    return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(v.data()) - first);
  };
  std::vector<std::uint8_t> packed(static_cast<std::size_t>(pack_size) + 1),
      repacked(packed.size());
  int pos = 0;
  if (count > 0 && span == 0 && size > 0) return;  // no room to build a buffer
  require(MPI_Pack(base_of(source), count, t, packed.data(), pack_size, &pos, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
  require(pos == pack_size);
  pos = 0;
  require(MPI_Unpack(packed.data(), pack_size, &pos, base_of(target), count, t, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
  require(pos == pack_size);
  pos = 0;
  require(MPI_Pack(base_of(target), count, t, repacked.data(), pack_size, &pos, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
  require(std::memcmp(packed.data(), repacked.data(), static_cast<std::size_t>(pack_size)) == 0);
  // Too small an output buffer is refused, never overrun.
  if (pack_size > 0) {
    pos = 0;
    require(MPI_Pack(base_of(source), count, t, repacked.data(), pack_size - 1, &pos,
                     MPI_COMM_WORLD) == MPI_ERR_TRUNCATE);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  init_mpi();
  Input in(data, size);
  Pool pool;
  pool.types.assign(std::begin(kBuiltins), std::end(kBuiltins));
  for (int ops = 0; !in.empty() && ops < 32; ++ops) {
    const std::uint8_t op = in.byte();
    if (op < 160) {
      build(in, pool, op);
    } else if (op < 192) {
      build_large(in, pool, op);
    } else if (op < 224) {
      MPI_Datatype t = pool.pick(in);
      int size = 0;
      // Commit only what the harness could pack: flattening is linear in the type's bytes.
      if (MPI_Type_size(t, &size) == MPI_SUCCESS && size != MPI_UNDEFINED && size <= kMaxBytes) {
        (void)MPI_Type_commit(&t);
      }
    } else {
      round_trip(in, pool);
    }
  }
  for (MPI_Datatype& t : pool.derived) require(MPI_Type_free(&t) == MPI_SUCCESS);
  return 0;
}
