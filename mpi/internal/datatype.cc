#include "mpi/internal/datatype.hpp"

#include <algorithm>
#include <cstring>

#include "lapi/line_copy.hpp"
#include "mpi.h"

namespace mpi {
namespace {

void emit_block(FlatType& out, std::int64_t offset, std::int64_t len) {
  if (len <= 0) return;
  if (!out.blocks.empty()) {
    Block& last = out.blocks.back();
    if (last.offset + last.len == offset) {
      last.len += len;
      return;
    }
  }
  out.blocks.push_back({offset, len});
}

void emit_run(FlatType& out, const ElementRun& run, std::int64_t count) {
  if (count <= 0) return;
  if (!out.elements.empty() && out.elements.back().elem_size == run.elem_size &&
      out.elements.back().ext32 == run.ext32) {
    out.elements.back().count += count;
    return;
  }
  out.elements.push_back({run.elem_size, count, run.ext32});
}

// Appends the blocks of one instance of `in` (its rows expanded), shifted
// by `base`.
void append_blocks(FlatType& out, const FlatType& in, std::int64_t base) {
  for (std::int64_t r = 0; r < in.reps; ++r) {
    for (const Block& b : in.blocks) emit_block(out, base + r * in.rep_stride + b.offset, b.len);
  }
}

// Appends `n` copies of `in`, the i-th shifted by base + i * stride. A dense
// single block (the common case: contiguous children) becomes one block, so
// flattening a large contiguous type costs O(1), not O(count).
void append_repeated(FlatType& out, const FlatType& in, std::int64_t base, std::int64_t n,
                     std::int64_t stride) {
  if (n <= 0 || in.blocks.empty()) return;
  if (in.reps == 1 && in.blocks.size() == 1 && in.blocks[0].len == stride) {
    emit_block(out, base + in.blocks[0].offset, n * stride);
  } else {
    for (std::int64_t i = 0; i < n; ++i) append_blocks(out, in, base + i * stride);
  }
  if (in.elements.size() == 1) {
    emit_run(out, in.elements[0], in.elements[0].count * in.element_reps * n);
  } else {
    for (std::int64_t i = 0; i < n * in.element_reps; ++i) {
      for (const ElementRun& r : in.elements) emit_run(out, r, r.count);
    }
  }
}

// Sizes and bounds of a type stay within +-kTypeByteLimit, so that an
// extent (ub - lb) and a sum of two bounds never overflow; a constructor
// whose result would not fit returns null. Each step is checked: the
// arguments come straight from MPI calls.
constexpr std::int64_t kTypeByteLimit = std::int64_t{1} << 61;

struct Checked {
  bool ok = true;
  std::int64_t mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    ok &= !__builtin_mul_overflow(a, b, &r);
    return r;
  }
  std::int64_t add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    ok &= !__builtin_add_overflow(a, b, &r);
    return r;
  }
};

bool fits(std::int64_t v) { return v >= -kTypeByteLimit && v <= kTypeByteLimit; }

// The smallest or largest of the values seen, if any.
struct Extreme {
  bool any = false;
  std::int64_t v = 0;
  void min(std::int64_t x) {
    v = any ? std::min(v, x) : x;
    any = true;
  }
  void max(std::int64_t x) {
    v = any ? std::max(v, x) : x;
    any = true;
  }
};

// A typemap's bounds: where no entry carries a marker of a bound, the
// entries' extremes; where any does, the markers' alone (MPI 3.1 4.1.6).
// True bounds never count markers.
struct Bounds {
  Extreme lb, ub, lb_marker, ub_marker, true_lb, true_ub;

  bool any() const { return lb.any || ub.any || lb_marker.any || ub_marker.any; }
  // A bound neither marked nor set by an entry is 0, as in MPICH: a struct
  // of MPI_LB at 10 alone has extent -10 (its struct_no_real_types test).
  std::int64_t lower() const { return lb_marker.any ? lb_marker.v : lb.v; }
  std::int64_t upper() const { return ub_marker.any ? ub_marker.v : ub.v; }
};

}  // namespace

TypePtr Datatype::builtin(const BuiltinSpec& spec) {
  auto t = std::shared_ptr<Datatype>(new Datatype());
  t->combiner_ = MPI_COMBINER_NAMED;
  t->builtin_ = true;
  t->element_id_ = spec.id;
  t->name = spec.name;
  t->alignment_ = spec.alignment;
  t->lb_ = 0;
  t->ub_ = spec.extent;
  t->marker_ = spec.marker;
  t->explicit_lb_ = spec.marker == Marker::lb;
  t->explicit_ub_ = spec.marker == Marker::ub;
  Extreme true_lb, true_ub;
  for (std::size_t i = 0; i < spec.fields.size(); ++i) {
    std::int64_t len = spec.fields[i].elem_size * spec.fields[i].count;
    emit_block(t->builtin_flat_, spec.offsets[i], len);
    emit_run(t->builtin_flat_, spec.fields[i], spec.fields[i].count);
    t->size_ += len;
    true_lb.min(spec.offsets[i]);
    true_ub.max(spec.offsets[i] + len);
  }
  t->true_lb_ = true_lb.v;
  t->true_ub_ = true_ub.v;
  t->commit();
  return t;
}

TypePtr Datatype::from_layout(std::int64_t count, std::int64_t stride,
                              std::vector<LayoutEntry> entries, int combiner) {
  auto t = std::shared_ptr<Datatype>(new Datatype());
  t->combiner_ = combiner;
  t->count_ = count;
  t->stride_ = stride;
  Bounds row;
  Checked c;
  std::int64_t row_size = 0;
  bool uniform = true, seen = false;
  for (const LayoutEntry& e : entries) {
    if (e.type == nullptr) return nullptr;  // a child that did not fit
    t->alignment_ = std::max(t->alignment_, e.type->alignment());
    if (e.blocklen <= 0) continue;
    const Datatype& child = *e.type;
    if (child.size() > 0) {
      if (!seen) t->element_id_ = child.element_id_;
      seen = true;
      if (child.element_id_ == 0 || child.element_id_ != t->element_id_) uniform = false;
    }
    row_size = c.add(row_size, c.mul(e.blocklen, child.size()));
    std::int64_t span = c.mul(e.blocklen - 1, child.extent());
    std::int64_t lo = std::min<std::int64_t>(0, span), hi = std::max<std::int64_t>(0, span);
    const std::int64_t child_lb = c.add(c.add(e.displacement, child.lb()), lo);
    const std::int64_t child_ub = c.add(c.add(e.displacement, child.ub()), hi);
    // MPI_LB and MPI_UB themselves mark one bound and say nothing of the other.
    if (child.marker_ != Marker::ub) (child.explicit_lb_ ? row.lb_marker : row.lb).min(child_lb);
    if (child.marker_ != Marker::lb) (child.explicit_ub_ ? row.ub_marker : row.ub).max(child_ub);
    if (child.marker_ == Marker::none) {
      row.true_lb.min(c.add(c.add(e.displacement, child.true_lb()), lo));
      row.true_ub.max(c.add(c.add(e.displacement, child.true_ub()), hi));
    }
    if (!c.ok) return nullptr;
  }
  if (!uniform) t->element_id_ = 0;
  t->entries_ = std::move(entries);
  if (count <= 0 || !row.any()) return t;  // empty type: size 0, all bounds 0
  t->explicit_lb_ = row.lb_marker.any;
  t->explicit_ub_ = row.ub_marker.any;
  t->size_ = c.mul(row_size, count);
  std::int64_t span = c.mul(count - 1, stride);
  std::int64_t lo = std::min<std::int64_t>(0, span), hi = std::max<std::int64_t>(0, span);
  t->lb_ = c.add(row.lower(), lo);
  t->ub_ = c.add(row.upper(), hi);
  t->true_lb_ = c.add(row.true_lb.v, lo);
  t->true_ub_ = c.add(row.true_ub.v, hi);
  if (!c.ok || !fits(t->size_) || !fits(t->lb_) || !fits(t->ub_) || !fits(t->true_lb_) ||
      !fits(t->true_ub_)) {
    return nullptr;
  }
  return t;
}

TypePtr Datatype::contiguous(std::int64_t count, TypePtr old) {
  if (old == nullptr) return nullptr;
  std::int64_t ext = old->extent();
  return from_layout(count, ext, {{0, 1, std::move(old)}}, MPI_COMBINER_CONTIGUOUS);
}

TypePtr Datatype::hvector(std::int64_t count, std::int64_t blocklen, std::int64_t stride_bytes,
                          TypePtr old, int combiner) {
  return from_layout(count, stride_bytes, {{0, blocklen, std::move(old)}}, combiner);
}

TypePtr Datatype::hindexed(std::span<const std::int64_t> blocklens,
                           std::span<const std::int64_t> displs_bytes, TypePtr old, int combiner) {
  std::vector<LayoutEntry> entries;
  entries.reserve(blocklens.size());
  for (std::size_t i = 0; i < blocklens.size(); ++i) {
    entries.push_back({displs_bytes[i], blocklens[i], old});
  }
  return from_layout(1, 0, std::move(entries), combiner);
}

TypePtr Datatype::create_struct(std::span<const std::int64_t> blocklens,
                                std::span<const std::int64_t> displs_bytes,
                                std::span<const TypePtr> types) {
  std::vector<LayoutEntry> entries;
  entries.reserve(blocklens.size());
  for (std::size_t i = 0; i < blocklens.size(); ++i) {
    entries.push_back({displs_bytes[i], blocklens[i], types[i]});
  }
  TypePtr base = from_layout(1, 0, std::move(entries), MPI_COMBINER_STRUCT);
  if (base == nullptr) return nullptr;
  // Like C structs (and MPICH, Open MPI), round the extent up to the
  // strictest member alignment so arrays of the struct line up, unless an
  // upper-bound marker says where the type ends.
  auto t = std::const_pointer_cast<Datatype>(base);
  std::int64_t ext = t->extent();
  if (!t->explicit_ub_ && ext > 0 && ext % t->alignment_ != 0) t->ub_ += t->alignment_ - ext % t->alignment_;
  return t;
}

TypePtr Datatype::resized(TypePtr old, std::int64_t lb, std::int64_t extent) {
  auto t = std::const_pointer_cast<Datatype>(
      from_layout(1, 0, {{0, 1, std::move(old)}}, MPI_COMBINER_RESIZED));
  std::int64_t ub = 0;
  if (t == nullptr || __builtin_add_overflow(lb, extent, &ub) || !fits(lb) || !fits(ub))
    return nullptr;
  t->lb_ = lb;
  t->ub_ = ub;
  t->explicit_lb_ = t->explicit_ub_ = true;
  return t;
}

TypePtr Datatype::dup(const TypePtr& old) {
  // Same typemap, same bounds (no struct padding applied again).
  auto t = std::const_pointer_cast<Datatype>(from_layout(1, 0, {{0, 1, old}}, MPI_COMBINER_DUP));
  if (t == nullptr) return nullptr;
  t->lb_ = old->lb();
  t->ub_ = old->ub();
  t->explicit_lb_ = old->explicit_lb();
  t->explicit_ub_ = old->explicit_ub();
  t->alignment_ = old->alignment();
  return t;
}

TypePtr Datatype::subarray(std::span<const std::int64_t> sizes,
                           std::span<const std::int64_t> subsizes,
                           std::span<const std::int64_t> starts, bool c_order, TypePtr old) {
  const std::size_t n = sizes.size();
  // dim(k) walks from the fastest-varying dimension outwards.
  auto dim = [&](std::size_t k) { return c_order ? n - 1 - k : k; };
  std::int64_t ext = old->extent();
  std::vector<std::int64_t> stride(n);
  Checked c;
  std::int64_t s = ext;
  for (std::size_t k = 0; k < n; ++k) {
    stride[dim(k)] = s;
    s = c.mul(s, sizes[dim(k)]);
  }
  const std::int64_t full_extent = s;
  std::int64_t disp = 0;
  for (std::size_t d = 0; d < n; ++d) disp = c.add(disp, c.mul(starts[d], stride[d]));
  if (!c.ok) return nullptr;
  TypePtr t = contiguous(subsizes[dim(0)], old);
  for (std::size_t k = 1; k < n && t != nullptr; ++k) {
    t = hvector(subsizes[dim(k)], 1, stride[dim(k)], t, MPI_COMBINER_HVECTOR);
  }
  std::int64_t one = 1;
  if (t != nullptr) t = hindexed({&one, 1}, {&disp, 1}, t, MPI_COMBINER_HINDEXED);
  auto r = std::const_pointer_cast<Datatype>(resized(t, 0, full_extent));
  if (r == nullptr) return nullptr;
  r->combiner_ = MPI_COMBINER_SUBARRAY;
  return r;
}

FlatType Datatype::flatten() const {
  if (builtin_) return builtin_flat_;
  // No repetitions, no bytes: the row is never built (its block length may
  // be huge; a vector of count 0 and blocklength 2^30 once took gigabytes).
  if (count_ <= 0) return {};
  // One instance of one child (resized, dup, a struct or hindexed of one
  // block): the child's layout, moved, its repetition still a loop. Expanded,
  // MPI_Type_create_resized over MPI_Type_vector(2^30, ...) took 16 GiB of
  // blocks and minutes (MPICH's datatype/large_count).
  if (count_ == 1 && entries_.size() == 1 && entries_[0].blocklen == 1) {
    const LayoutEntry& e = entries_[0];
    FlatType moved = e.type->committed() ? e.type->flat() : e.type->flatten();
    for (Block& b : moved.blocks) b.offset += e.displacement;
    return moved;
  }
  FlatType row;
  for (const LayoutEntry& e : entries_) {
    // An entry of no blocks adds nothing: its child (which may be huge) is
    // not flattened.
    if (e.blocklen <= 0) continue;
    const Datatype& c = *e.type;
    if (c.committed()) {
      append_repeated(row, c.flat(), e.displacement, e.blocklen, c.extent());
    } else {
      append_repeated(row, c.flatten(), e.displacement, e.blocklen, c.extent());
    }
  }
  if (count_ == 1 || row.blocks.empty()) return row;
  // The outermost repetition stays a loop: O(row), not O(count_ * row), for
  // the blocks (unless dense: one block) and the element runs alike. (row
  // was built by append_repeated: one repetition, element_reps 1.)
  FlatType out;
  if (row.blocks.size() == 1 && row.blocks[0].len == stride_) {
    emit_block(out, row.blocks[0].offset, count_ * stride_);
  } else {
    out.blocks = std::move(row.blocks);
    out.reps = count_;
    out.rep_stride = stride_;
  }
  if (row.elements.size() == 1) {
    emit_run(out, row.elements[0], row.elements[0].count * count_);
  } else {
    out.elements = std::move(row.elements);
    out.element_reps = count_;
  }
  return out;
}

void Datatype::commit() const {
  if (flat_) return;
  flat_ = std::make_unique<FlatType>(flatten());
  const auto& blocks = flat_->blocks;
  if (blocks.empty() || (flat_->reps == 1 && blocks.size() == 1 && blocks[0].len == extent())) {
    layout_ = Layout::dense;
  } else {
    layout_ = flat_->reps == 1 && blocks.size() == 1 ? Layout::one_block : Layout::scattered;
  }
  data_offset_ = blocks.empty() ? 0 : blocks[0].offset;
  elements_per_instance_ = 0;
  for (const ElementRun& r : flat_->elements) elements_per_instance_ += r.count;
  elements_per_instance_ *= flat_->element_reps;
}

namespace {

// Copies n blocks of L bytes, the k-th from `from + k * from_stride` to
// `to + k * to_stride`, with L known to the compiler: a memcpy call per
// 1-byte element made a strided 2 GiB message take 2^31 calls (about 20 s
// a side).
template <std::int64_t L>
void copy_blocks_of(char* to, std::int64_t to_stride, const char* from,
                    std::int64_t from_stride, std::int64_t n) {
  for (std::int64_t k = 0; k < n; ++k) std::memcpy(to + k * to_stride, from + k * from_stride, L);
}

void copy_blocks(char* to, std::int64_t to_stride, const char* from, std::int64_t from_stride,
                 std::int64_t len, std::int64_t n) {
  switch (len) {
    case 1: return copy_blocks_of<1>(to, to_stride, from, from_stride, n);
    case 2: return copy_blocks_of<2>(to, to_stride, from, from_stride, n);
    case 4: return copy_blocks_of<4>(to, to_stride, from, from_stride, n);
    case 8: return copy_blocks_of<8>(to, to_stride, from, from_stride, n);
    case 16: return copy_blocks_of<16>(to, to_stride, from, from_stride, n);
    default:
      for (std::int64_t k = 0; k < n; ++k) {
        std::memcpy(to + k * to_stride, from + k * from_stride, len);
      }
  }
}

// A type of one block per row (vectors, resized elements): `blocks` blocks
// in order between the packed bytes and the typed buffer, rows first.
void copy_one_block_type(const Datatype& type, char* typed, char* packed, std::int64_t blocks,
                         bool to_packed) {
  // No blocks, no address: the buffer may then be any value, even one that
  // the block's offset would carry past the end of the address space.
  if (blocks <= 0) return;
  const FlatType& flat = type.flat();
  const std::int64_t len = flat.blocks[0].len, ext = type.extent();
  typed += flat.blocks[0].offset;
  auto copy = [&](char* t, std::int64_t t_stride, std::int64_t n) {
    if (to_packed) {
      copy_blocks(packed, len, t, t_stride, len, n);
    } else {
      copy_blocks(t, t_stride, packed, len, len, n);
    }
    packed += n * len;
  };
  if (flat.reps == 1) return copy(typed, ext, blocks);
  for (std::int64_t i = 0; blocks > 0; ++i, blocks -= flat.reps) {
    copy(typed + i * ext, flat.rep_stride, std::min(blocks, flat.reps));
  }
}

}  // namespace

void pack(const Datatype& type, const void* base, std::int64_t count, void* out) {
  auto* dst = static_cast<char*>(out);
  const auto* src = static_cast<const char*>(base);
  if (type.contiguous_for(count)) {
    if (type.size() > 0 && count > 0) {
      lapi::copy_bulk(dst, src + type.data_offset(), count * type.size());
    }
    return;
  }
  const FlatType& flat = type.flat();
  if (flat.blocks.size() == 1) {
    return copy_one_block_type(type, const_cast<char*>(src), dst, count * flat.reps, true);
  }
  const std::int64_t ext = type.extent();
  for (std::int64_t i = 0; i < count; ++i) {
    for (std::int64_t r = 0; r < flat.reps; ++r) {
      const char* row = src + i * ext + r * flat.rep_stride;
      for (const Block& b : flat.blocks) {
        std::memcpy(dst, row + b.offset, b.len);
        dst += b.len;
      }
    }
  }
}

void unpack(const Datatype& type, void* base, std::int64_t count, const void* in,
            std::int64_t nbytes) {
  const auto* src = static_cast<const char*>(in);
  auto* dst = static_cast<char*>(base);
  nbytes = std::min(nbytes, count * type.size());
  if (nbytes <= 0) return;
  if (type.contiguous_for(count)) {
    lapi::copy_bulk(dst + type.data_offset(), src, nbytes);
    return;
  }
  const FlatType& flat = type.flat();
  if (flat.blocks.size() == 1) {
    // Whole blocks, then what is left of the last one (a short message).
    const std::int64_t len = flat.blocks[0].len, whole = nbytes / len;
    copy_one_block_type(type, dst, const_cast<char*>(src), whole, false);
    if (const std::int64_t rest = nbytes - whole * len; rest > 0) {
      const std::int64_t row = whole / flat.reps, rep = whole % flat.reps;
      std::memcpy(dst + row * type.extent() + rep * flat.rep_stride + flat.blocks[0].offset,
                  src + whole * len, rest);
    }
    return;
  }
  const std::int64_t ext = type.extent();
  for (std::int64_t i = 0; i < count && nbytes > 0; ++i) {
    for (std::int64_t r = 0; r < flat.reps; ++r) {
      char* row = dst + i * ext + r * flat.rep_stride;
      for (const Block& b : flat.blocks) {
        std::int64_t len = std::min(b.len, nbytes);
        std::memcpy(row + b.offset, src, len);
        src += len;
        nbytes -= len;
        if (nbytes == 0) return;
      }
    }
  }
}

std::int64_t elements_in(const Datatype& type, std::int64_t nbytes) {
  if (nbytes <= 0 || type.size() == 0) return 0;
  std::int64_t full = nbytes / type.size();
  std::int64_t rest = nbytes % type.size();
  std::int64_t n = full * type.elements_per_instance();
  // Whole rows of the element runs, then the runs of a part row.
  const FlatType& flat = type.flat();
  const std::int64_t row_bytes = type.size() / flat.element_reps;
  n += rest / row_bytes * (type.elements_per_instance() / flat.element_reps);
  rest %= row_bytes;
  for (const ElementRun& r : flat.elements) {
    if (rest == 0) break;
    std::int64_t run_bytes = r.elem_size * r.count;
    if (rest >= run_bytes) {
      n += r.count;
      rest -= run_bytes;
    } else {
      if (rest % r.elem_size != 0) return -1;
      n += rest / r.elem_size;
      rest = 0;
    }
  }
  return n;
}

}  // namespace mpi
