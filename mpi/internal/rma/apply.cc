// Running window requests on window memory (apply.hpp).
#include "mpi/internal/rma/apply.hpp"

#include <sched.h>

#include <cstring>

#include "mpi/internal/builtin_types.hpp"
#include "mpi/internal/coll/op_kernels.hpp"
#include "mpi/internal/errors.hpp"

namespace mpi::rma {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

bool is_integer(int element_id) { return find_kernel(OpKind::bor, element_id) != nullptr; }

// One 4- or 8-byte element changed atomically; `old` (optional) gets the
// value replaced. The ops are the ones the core's rmw runs (see apply.hpp).
template <typename W>
void apply_atomic(std::byte* target, const std::byte* in, const std::byte* compare, OpKind op,
                  bool cas, std::byte* old) {
  auto* p = reinterpret_cast<W*>(target);
  W operand = 0;
  if (op != OpKind::no_op || cas) std::memcpy(&operand, in, sizeof(W));
  W prev;
  if (cas) {
    std::memcpy(&prev, compare, sizeof(W));
    (void)__atomic_compare_exchange_n(p, &prev, operand, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  } else if (op == OpKind::sum) {
    prev = __atomic_fetch_add(p, operand, __ATOMIC_ACQ_REL);
  } else if (op == OpKind::bor) {
    prev = __atomic_fetch_or(p, operand, __ATOMIC_ACQ_REL);
  } else if (op == OpKind::replace) {
    prev = __atomic_exchange_n(p, operand, __ATOMIC_ACQ_REL);
  } else {
    prev = __atomic_load_n(p, __ATOMIC_ACQUIRE);
  }
  if (old != nullptr) std::memcpy(old, &prev, sizeof(W));
}

// The per-element mode's atomic requests (apply.hpp); false when `r` is
// not one of them (the caller runs it plain).
bool atomic_elements(const RequestWire& r, const std::vector<WireBlock>& ranges, std::uint64_t total,
                     std::uintptr_t base, const std::byte* payload, std::byte* fetched) {
  const auto kind = static_cast<Kind>(r.kind);
  const auto op = static_cast<OpKind>(r.op);
  const bool cas = kind == Kind::compare_and_swap;
  if (!cas && kind != Kind::accumulate && kind != Kind::get_accumulate) return false;
  const auto& types = builtin_types();
  if (r.element_id <= 0 || static_cast<std::size_t>(r.element_id) >= types.size() || !types[r.element_id]) {
    return false;
  }
  const bool rmw_op = cas || op == OpKind::replace || op == OpKind::no_op || op == OpKind::bor ||
                      (op == OpKind::sum && is_integer(r.element_id));
  if (!rmw_op) return false;
  const std::int64_t width = types[r.element_id]->size();
  if (width != 4 && width != 8) return false;
  for (const WireBlock& g : ranges) {
    if (g.len % width != 0 || (base + static_cast<std::uintptr_t>(g.offset)) % width != 0) return false;
  }
  const std::byte* in = payload;
  const std::byte* compare = payload + total;
  std::byte* old = fetched;
  for (const WireBlock& g : ranges) {
    for (std::int64_t i = 0; i < g.len; i += width) {
      auto* t = reinterpret_cast<std::byte*>(base + static_cast<std::uintptr_t>(g.offset + i));
      if (width == 4) {
        apply_atomic<std::uint32_t>(t, in, compare, op, cas, old);
      } else {
        apply_atomic<std::uint64_t>(t, in, compare, op, cas, old);
      }
      in += width;
      compare += width;
      if (old != nullptr) old += width;
    }
  }
  return true;
}

}  // namespace

AccLock::AccLock(std::uint64_t* word) : word_(word) {
  for (unsigned spins = 0;; ++spins) {
    std::uint64_t expected = 0;
    if (__atomic_load_n(word_, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(word_, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      return;
    }
    if (spins < 64) {
      cpu_relax();
    } else {
      sched_yield();
    }
  }
}

namespace {

// Absolute addresses of a dynamic window: [off, off + len) must lie in
// attached memory, in one region or in regions attached back to back (an
// array attached in pieces may be accessed whole).
bool attached_cover(const std::map<std::uint64_t, std::uint64_t>& attached, std::uint64_t off,
                    std::uint64_t len) {
  auto it = attached.upper_bound(off);
  if (it == attached.begin()) return false;
  --it;
  if (off - it->first > it->second) return false;  // past the region that starts below
  std::uint64_t covered_to = it->first + it->second;  // end of attached memory from off on
  const std::uint64_t end = off + len;
  if (end < off) return false;  // wraps
  while (covered_to < end) {
    ++it;
    if (it == attached.end() || it->first != covered_to) return false;
    covered_to += it->second;
  }
  return true;
}

}  // namespace

int ranges_of(const Bounds& bounds, const RequestWire& r, const WireBlock* blocks,
              std::vector<WireBlock>& out, std::uint64_t& total) {
  total = 0;
  const auto size = bounds.size;
  for (std::int64_t i = 0; i < r.count; ++i) {
    for (std::uint32_t b = 0; b < r.nblocks; ++b) {
      const std::int64_t off = static_cast<std::int64_t>(r.disp) + i * r.extent + blocks[b].offset;
      const std::int64_t len = blocks[b].len;
      bool inside = len >= 0 && off >= 0 && off <= size && len <= size - off;
      if (bounds.attached != nullptr && len >= 0 && off > 0) {
        inside = attached_cover(*bounds.attached, static_cast<std::uint64_t>(off),
                                static_cast<std::uint64_t>(len));
      }
      if (!inside) {
        return fail(MPI_ERR_RMA_RANGE, "bytes [{:#x}, +{}) are outside the target's window", off, len);
      }
      if (len == 0) continue;
      out.push_back({off, len});
      total += static_cast<std::uint64_t>(len);
    }
  }
  return MPI_SUCCESS;
}

int apply(const RequestWire& r, const std::vector<WireBlock>& ranges, std::uint64_t total,
          std::uintptr_t base, const std::byte* payload, std::byte* fetched, bool per_element) {
  auto at = [base](std::int64_t off) { return reinterpret_cast<std::byte*>(base + static_cast<std::uintptr_t>(off)); };
  const auto kind = static_cast<Kind>(r.kind);
  // Accumulates: the element kernel (replace and no_op work on bytes).
  const auto op = static_cast<OpKind>(r.op);
  OpKernel kernel = nullptr;
  std::int64_t elem = 1;
  if ((kind == Kind::accumulate || kind == Kind::get_accumulate) && op != OpKind::replace &&
      op != OpKind::no_op) {
    const auto& types = builtin_types();
    if (r.element_id <= 0 || static_cast<std::size_t>(r.element_id) >= types.size() ||
        !types[r.element_id] || (kernel = find_kernel(op, r.element_id)) == nullptr) {
      return fail(MPI_ERR_OP, "op {} is not defined on element type {}", r.op, r.element_id);
    }
    elem = types[r.element_id]->size();
    for (const WireBlock& g : ranges) {
      if (g.len % elem != 0) return fail(MPI_ERR_TYPE, "target block of {} bytes splits an element", g.len);
    }
  }
  if (per_element && atomic_elements(r, ranges, total, base, payload, fetched)) return MPI_SUCCESS;
  if (fetched != nullptr) {
    std::byte* out = fetched;
    for (const WireBlock& g : ranges) {
      std::memcpy(out, at(g.offset), g.len);
      out += g.len;
    }
  }
  switch (kind) {
    case Kind::get:
      return MPI_SUCCESS;
    case Kind::compare_and_swap: {
      std::byte* t = at(ranges.at(0).offset);
      if (std::memcmp(t, payload + total, total) == 0) std::memcpy(t, payload, total);
      return MPI_SUCCESS;
    }
    case Kind::put:
    case Kind::accumulate:
    case Kind::get_accumulate:
      break;
  }
  if (kind != Kind::put && op == OpKind::no_op) return MPI_SUCCESS;
  const std::byte* in = payload;
  for (const WireBlock& g : ranges) {
    if (kind == Kind::put || op == OpKind::replace) {
      std::memmove(at(g.offset), in, g.len);
    } else {
      kernel(in, at(g.offset), g.len / elem);
    }
    in += g.len;
  }
  return MPI_SUCCESS;
}

}  // namespace mpi::rma
