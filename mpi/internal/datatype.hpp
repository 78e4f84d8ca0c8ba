#pragma once
// The datatype engine, independent of the rest of MPI's state.
//
// A constructor records its layout (a list of (displacement, block length,
// child type) entries, repeated `count` times at `stride`) and computes size
// and bounds at once. commit() flattens the typemap ONCE into
// (offset, length) blocks in typemap order, merging neighbours, so packing is
// a loop of memcpy and a contiguous type is a single block: the send and
// receive paths hand such a buffer to mpcpi unchanged (zero copy).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace mpi {

struct Block {
  std::int64_t offset;
  std::int64_t len;
};

// How a primitive element looks in MPI's "external32" representation
// (big-endian, the standard's sizes; external32.hpp), where the native one
// differs by more than byte order.
enum class Ext32 : std::uint8_t {
  same_size,    // byte-reversed (1-byte elements unchanged)
  long_4,       // C long: 4 bytes
  ulong_4,      // C unsigned long: 4 bytes
  wchar_2,      // wchar_t: 2 bytes
  long_double,  // x87 long double: IEEE binary128
};

// `count` consecutive primitive elements of `elem_size` bytes (for
// MPI_Get_elements and external32).
struct ElementRun {
  std::int64_t elem_size;
  std::int64_t count;
  Ext32 ext32 = Ext32::same_size;
};

// One instance of a type, flattened: `reps` rows, row r at r * rep_stride
// bytes, each row the `blocks` (offsets from the row's start). A type's
// outermost repetition stays a loop (reps), so committing
// MPI_Type_vector(1 << 28, 1, 2, MPI_INT) stores one block, not 2^28;
// repetitions inside a child are expanded when the child is embedded.
// `elements` covers the whole instance: its runs `element_reps` times over
// (runs of one size merge, so a repeated row of one element size is one run;
// a row of several sizes repeated at the outermost level stays one row, so
// MPI_Type_contiguous_c(2^40, MPI_DOUBLE_INT) is two runs, not 2^41).
struct FlatType {
  std::vector<Block> blocks;
  std::vector<ElementRun> elements;
  std::int64_t reps = 1;
  std::int64_t rep_stride = 0;
  std::int64_t element_reps = 1;
};

class Datatype;
using TypePtr = std::shared_ptr<const Datatype>;

struct LayoutEntry {
  std::int64_t displacement;  // bytes
  std::int64_t blocklen;      // consecutive children, each one child extent apart
  TypePtr type;
};

// MPI_LB and MPI_UB (MPI-1's bound markers, removed in MPI 3.0 but still in
// old programs and MPICH's mpi.h): pseudo-types of no size that only mark
// where a type's lower or upper bound lies.
enum class Marker : std::uint8_t { none, lb, ub };

struct BuiltinSpec {
  const char* name;
  std::int64_t extent;                  // sizeof the C type (or pair struct)
  std::int64_t alignment;
  std::vector<ElementRun> fields;       // field sizes (pair types have two)
  std::vector<std::int64_t> offsets;    // field offsets
  int id = 0;                           // handle index (MPI_CHAR = 1, ...)
  Marker marker = Marker::none;
};

// The constructor call that made a derived type, as
// MPI_Type_get_envelope/contents report it (MPI_COMBINER_* and the integer,
// address and datatype arguments in the standard's order).
struct Envelope {
  int combiner = 0;
  std::vector<int> ints = {};
  std::vector<std::int64_t> aints = {};
  std::vector<int> type_handles = {};  // as the program passed them
  std::vector<TypePtr> types = {};     // the objects, kept while this type lives
  // MPI-4's large counts: the MPI_Count arguments of the _c constructors
  // (MPI_Type_get_contents_c's array_of_large_counts). A type that has any
  // is not described by the int MPI_Type_get_envelope.
  std::vector<std::int64_t> counts = {};
};

class Datatype {
 public:
  static TypePtr builtin(const BuiltinSpec& spec);
  // Layout constructors. Arguments are validated by the caller (mpi/api);
  // a type whose size or bounds would pass +-2^61 bytes (or a null `old`)
  // gives null.
  static TypePtr contiguous(std::int64_t count, TypePtr old);
  static TypePtr hvector(std::int64_t count, std::int64_t blocklen, std::int64_t stride_bytes,
                         TypePtr old, int combiner);
  static TypePtr hindexed(std::span<const std::int64_t> blocklens,
                          std::span<const std::int64_t> displs_bytes, TypePtr old, int combiner);
  static TypePtr create_struct(std::span<const std::int64_t> blocklens,
                               std::span<const std::int64_t> displs_bytes,
                               std::span<const TypePtr> types);
  static TypePtr resized(TypePtr old, std::int64_t lb, std::int64_t extent);
  // order: true = C (row-major), false = Fortran.
  static TypePtr subarray(std::span<const std::int64_t> sizes,
                          std::span<const std::int64_t> subsizes,
                          std::span<const std::int64_t> starts, bool c_order, TypePtr old);
  static TypePtr dup(const TypePtr& old);

  std::int64_t size() const { return size_; }
  std::int64_t lb() const { return lb_; }
  std::int64_t ub() const { return ub_; }
  std::int64_t extent() const { return ub_ - lb_; }
  std::int64_t true_lb() const { return true_lb_; }
  std::int64_t true_ub() const { return true_ub_; }
  std::int64_t true_extent() const { return true_ub_ - true_lb_; }
  std::int64_t alignment() const { return alignment_; }
  // Whether the bound comes from a marker (MPI_LB/MPI_UB in the typemap, or
  // MPI_Type_create_resized, whose typemap the standard writes with both).
  // Markers are sticky: a type built from this one takes its bound from its
  // children's markers alone where any child has one.
  bool explicit_lb() const { return explicit_lb_; }
  bool explicit_ub() const { return explicit_ub_; }
  int combiner() const { return combiner_; }
  bool is_builtin() const { return builtin_; }
  // The handle index of the one predefined type every element of this type
  // is made of (what reduction operations work on), or 0 when it mixes
  // several or has none.
  int element_id() const { return element_id_; }

  bool committed() const { return flat_ != nullptr; }
  // Flattens (once; later calls are no-ops). Builtin types are born committed.
  // May throw std::bad_alloc (a huge nested type); the type then stays
  // uncommitted.
  void commit() const;
  // Valid after commit().
  const FlatType& flat() const { return *flat_; }

  // True when `count` instances occupy count * size() contiguous bytes
  // starting at base + data_offset(): such buffers go to mpcpi unchanged.
  // Valid after commit().
  bool contiguous_for(std::int64_t count) const {
    return layout_ == Layout::dense || (layout_ == Layout::one_block && count <= 1);
  }
  std::int64_t data_offset() const { return data_offset_; }
  // Primitive elements in one instance.
  std::int64_t elements_per_instance() const { return elements_per_instance_; }

  std::string name;  // MPI_Type_set_name / get_name; predefined names preset
  // Set by the MPI constructor that made the type (null for predefined ones).
  std::shared_ptr<const Envelope> envelope;

 private:
  Datatype() = default;
  static TypePtr from_layout(std::int64_t count, std::int64_t stride,
                             std::vector<LayoutEntry> entries, int combiner);
  FlatType flatten() const;

  int combiner_ = 0;
  bool builtin_ = false;
  int element_id_ = 0;
  std::int64_t size_ = 0;
  std::int64_t lb_ = 0, ub_ = 0;
  std::int64_t true_lb_ = 0, true_ub_ = 0;
  std::int64_t alignment_ = 1;
  Marker marker_ = Marker::none;  // MPI_LB or MPI_UB itself
  bool explicit_lb_ = false, explicit_ub_ = false;
  // Layout: `entries` repeated `count_` times, each repetition `stride_`
  // bytes after the previous (builtins: fields_ instead).
  std::int64_t count_ = 1;
  std::int64_t stride_ = 0;
  std::vector<LayoutEntry> entries_;
  FlatType builtin_flat_;
  // Set by commit(); const methods may fill it because flattening does not
  // change the type's meaning.
  mutable std::unique_ptr<FlatType> flat_;
  // What commit() learnt about the flattened layout, for the per-call
  // contiguity checks: `dense` = any count of instances is one block (or
  // there are no bytes), `one_block` = one instance is, `scattered` = not.
  enum class Layout : std::uint8_t { scattered, one_block, dense };
  mutable Layout layout_ = Layout::scattered;
  mutable std::int64_t data_offset_ = 0;
  mutable std::int64_t elements_per_instance_ = 0;
};

// --- moving data (types must be committed) ---------------------------------

// Packs `count` instances found at `base` into `out` (count * size bytes).
void pack(const Datatype& type, const void* base, std::int64_t count, void* out);

// Unpacks the first `nbytes` bytes of `in` (at most count * size) into
// `count` instances at `base`; a partial last instance is filled as far as
// the bytes go and nothing beyond is written.
void unpack(const Datatype& type, void* base, std::int64_t count, const void* in,
            std::int64_t nbytes);

// Number of primitive elements in `nbytes` of packed data, or -1 when the
// bytes end inside a primitive element (MPI_UNDEFINED).
std::int64_t elements_in(const Datatype& type, std::int64_t nbytes);

}  // namespace mpi
