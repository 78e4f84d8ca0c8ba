#include "mpi/internal/coll/ops.hpp"

#include <algorithm>
#include <cstring>

#include "mpi/internal/builtin_types.hpp"

namespace mpi {
namespace {

struct PredefinedOp {
  MPI_Op handle;
  const char* name;
};

// In OpKind order (MPI_MAX = 1 ...).
#define LAPIS_OP(handle) {handle, #handle}
constexpr PredefinedOp kPredefined[kNumPredefinedOps] = {
    LAPIS_OP(MPI_MAX),  LAPIS_OP(MPI_MIN),    LAPIS_OP(MPI_SUM),    LAPIS_OP(MPI_PROD),
    LAPIS_OP(MPI_LAND), LAPIS_OP(MPI_BAND),   LAPIS_OP(MPI_LOR),    LAPIS_OP(MPI_BOR),
    LAPIS_OP(MPI_LXOR), LAPIS_OP(MPI_BXOR),   LAPIS_OP(MPI_MINLOC), LAPIS_OP(MPI_MAXLOC),
    LAPIS_OP(MPI_REPLACE), LAPIS_OP(MPI_NO_OP)};
#undef LAPIS_OP

std::vector<OpPtr> build_ops() {
  std::vector<OpPtr> ops(1);
  for (int i = 1; i <= kNumPredefinedOps; ++i) {
    ops.push_back(std::make_shared<const Op>(
        Op{static_cast<OpKind>(i), nullptr, /*commutative=*/true, kPredefined[i - 1].name}));
  }
  return ops;
}

bool takes_any_type(OpKind k) { return k == OpKind::replace || k == OpKind::no_op; }

// Bytes of one packed element of the type's predefined element type.
std::int64_t element_size(const Datatype& type) {
  return builtin_types()[type.element_id()]->size();
}

std::int64_t elements_of(const Datatype& type, std::int64_t count) {
  return count * type.size() / element_size(type);
}

// Scratch memory holding `count` instances in the user's layout: base() is
// where instance 0 would start, so datatype offsets (which may be negative
// or start far from 0) land inside the allocation.
class LayoutScratch {
 public:
  LayoutScratch(const Datatype& type, std::int64_t count) {
    const std::int64_t span = (count - 1) * type.extent();
    const std::int64_t lo = type.true_lb() + std::min<std::int64_t>(0, span);
    const std::int64_t hi = type.true_ub() + std::max<std::int64_t>(0, span);
    bytes_.reset(new char[std::max<std::int64_t>(hi - lo, 1)]);
    base_ = reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(bytes_.get()) - lo);
  }
  char* base() const { return base_; }

 private:
  std::unique_ptr<char[]> bytes_;
  char* base_;
};

// Pointer `offset` bytes before p, computed without pointer arithmetic
// outside an object.
template <typename P>
P* shift(P* p, std::int64_t offset) {
  return reinterpret_cast<P*>(reinterpret_cast<std::uintptr_t>(p) + offset);
}

CxxOpCall g_cxx_op_call = nullptr;

void call_user(const Reduction& r, const void* in, void* inout, std::int64_t count) {
  MPI_Datatype handle = r.handle;
  if (r.op->fn_c != nullptr) {
    MPI_Count len = count;
    r.op->fn_c(const_cast<void*>(in), inout, &len, &handle);
    return;
  }
  int len = static_cast<int>(count);
  if (r.op->cxx && g_cxx_op_call != nullptr) {
    g_cxx_op_call(in, inout, len, handle, r.op->fn);
    return;
  }
  r.op->fn(const_cast<void*>(in), inout, &len, &handle);
}

}  // namespace

void set_cxx_op_call(CxxOpCall call) { g_cxx_op_call = call; }

const std::vector<OpPtr>& builtin_ops() {
  static const std::vector<OpPtr> ops = build_ops();
  return ops;
}

MPI_Op builtin_op_handle(OpKind kind) { return kPredefined[static_cast<int>(kind) - 1].handle; }

bool op_accepts(const Op& op, const Datatype& type) {
  if (op.kind == OpKind::user || takes_any_type(op.kind)) return true;
  return find_kernel(op.kind, type.element_id()) != nullptr;
}

void reduce_packed(const Reduction& r, const void* in, void* inout, std::int64_t count) {
  const Datatype& t = *r.type;
  if (count <= 0 || t.size() == 0) return;
  switch (r.op->kind) {
    case OpKind::no_op:
      return;
    case OpKind::replace:
      std::memmove(inout, in, count * t.size());
      return;
    case OpKind::user:
      if (t.contiguous_for(count)) {
        // Packed bytes are the layout itself, starting data_offset in.
        call_user(r, shift(in, -t.data_offset()), shift(inout, -t.data_offset()), count);
      } else {
        LayoutScratch a(t, count), b(t, count);
        unpack(t, a.base(), count, in, count * t.size());
        unpack(t, b.base(), count, inout, count * t.size());
        call_user(r, a.base(), b.base(), count);
        pack(t, b.base(), count, inout);
      }
      return;
    default:
      find_kernel(r.op->kind, t.element_id())(in, inout, elements_of(t, count));
  }
}

void reduce_layout(const Reduction& r, const void* in, void* inout, std::int64_t count) {
  const Datatype& t = *r.type;
  if (count <= 0 || t.size() == 0 || r.op->kind == OpKind::no_op) return;
  if (r.op->kind == OpKind::user) {
    call_user(r, in, inout, count);
    return;
  }
  if (t.contiguous_for(count)) {
    reduce_packed(r, shift(in, t.data_offset()), shift(inout, t.data_offset()), count);
    return;
  }
  const std::size_t bytes = static_cast<std::size_t>(count * t.size());
  std::unique_ptr<char[]> a(new char[bytes]), b(new char[bytes]);
  pack(t, in, count, a.get());
  pack(t, inout, count, b.get());
  reduce_packed(r, a.get(), b.get(), count);
  unpack(t, inout, count, b.get(), count * t.size());
}

}  // namespace mpi
