// Origin side of Put, Get and the accumulates: picks lapi put/get for
// contiguous transfers into registered target memory, otherwise builds an
// Amsend request for the target (protocol.hpp).
#include <cstring>
#include <optional>

#include "mpi/internal/builtin_types.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/op_kernels.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/rma/apply.hpp"
#include "mpi/internal/rma/fast_access.hpp"
#include "mpi/internal/rma/protocol.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi::rma {
namespace {

bool contiguous(const Side& s) { return s.count == 0 || s.type->contiguous_for(s.count); }

std::int64_t bytes_of(const Side& s) { return s.count * s.type->size(); }

// Start of the data of a contiguous side.
template <typename P>
P* data_start(P* addr, const Side& s) {
  return reinterpret_cast<P*>(reinterpret_cast<std::uintptr_t>(addr) + s.type->data_offset());
}

int lapi_error(const char* what, const lapi::Status& st) {
  return fail(MPI_ERR_OTHER, "{}: {}", what, st.message());
}

// Direct lapi put/get: both sides contiguous, target memory registered.
int issue_direct(Window& win, const OpArgs& a, std::uint64_t target_addr) {
  lapi::Context& ctx = lapi_context();
  const auto world = static_cast<lapi::TaskId>(win.comm->world_of(a.target));
  const Side& local = a.kind == Kind::put ? a.origin : a.result;
  const auto len = static_cast<std::size_t>(bytes_of(local));
  lapi::Status st;
  if (a.kind == Kind::put) {
    lapi::Counters c;
    c.origin = &win.local_done;
    st = ctx.put(world, len, target_addr, data_start(a.origin.addr, a.origin), c);
  } else {
    st = ctx.get(world, len, target_addr, const_cast<void*>(data_start(a.result.addr, a.result)),
                 {}, &win.local_done);
  }
  if (!st.ok()) return lapi_error(a.kind == Kind::put ? "lapi put" : "lapi get", st);
  ++win.local_out;
  win.rma_out[static_cast<std::size_t>(a.target)] = 1;
  return MPI_SUCCESS;
}

// The target layout as blocks of one instance.
void layout_blocks(const Side& t, std::vector<WireBlock>& out) {
  if (t.type->contiguous_for(t.count)) {
    out.push_back({t.type->data_offset(), bytes_of(t)});
    return;
  }
  // A committed type keeps its outermost repetition as a loop (FlatType):
  // the wire names every block of one instance.
  const FlatType& flat = t.type->flat();
  for (std::int64_t r = 0; r < flat.reps; ++r) {
    for (const Block& b : flat.blocks) out.push_back({r * flat.rep_stride + b.offset, b.len});
  }
}

int issue_request(Window& win, const OpArgs& a) {
  const Side& t = a.target_side;
  auto p = std::make_unique<Pending>();
  p->target = a.target;
  p->win = win.self.lock();
  RequestWire req;
  req.kind = static_cast<std::uint8_t>(a.kind);
  req.op = static_cast<std::uint8_t>(a.op);
  req.element_id = t.type->element_id();
  req.win_id = win.targets[static_cast<std::size_t>(a.target)].win_id;
  req.disp = static_cast<std::uint64_t>(a.disp * win.targets[static_cast<std::size_t>(a.target)].disp_unit);
  std::vector<WireBlock> blocks;
  layout_blocks(t, blocks);
  const bool one = t.type->contiguous_for(t.count);
  req.count = one ? 1 : t.count;
  req.extent = one ? 0 : t.type->extent();
  req.nblocks = static_cast<std::uint32_t>(blocks.size());
  const std::int64_t total = bytes_of(t);
  switch (a.kind) {
    case Kind::put:
    case Kind::accumulate: req.payload = total; break;
    case Kind::get: req.payload = 0; req.answer = total; break;
    case Kind::get_accumulate: req.payload = total; req.answer = total; break;
    case Kind::compare_and_swap: req.payload = 2 * total; req.answer = total; break;
  }
  const std::size_t block_bytes = blocks.size() * sizeof(WireBlock);
  p->sent.resize(block_bytes + req.payload);
  std::memcpy(p->sent.data(), blocks.data(), block_bytes);
  std::byte* payload = p->sent.data() + block_bytes;
  // MPI_NO_OP reads no operand (origin_addr may be anything): zeros go.
  const bool no_op = a.op == static_cast<int>(OpKind::no_op) &&
                     (a.kind == Kind::accumulate || a.kind == Kind::get_accumulate);
  if (req.payload > 0 && !no_op) {
    pack(*a.origin.type, a.origin.addr, a.origin.count, payload);
    if (a.kind == Kind::compare_and_swap) std::memcpy(payload + total, a.compare, total);
  }
  if (req.answer > 0) {
    p->answer_bytes = req.answer;
    if (int rc = lookup_type(a.result.handle, p->result_type, true, "result_datatype")) return rc;
    if (contiguous(a.result)) {
      p->answer_into = data_start(const_cast<void*>(a.result.addr), a.result);
    } else {
      p->staging.resize(req.answer);
      p->answer_into = p->staging.data();
      p->result_user = const_cast<void*>(a.result.addr);
      p->result_count = a.result.count;
    }
  }
  auto& seq = win.seq_out[static_cast<std::size_t>(a.target)];
  req.seq = ++seq;
  const void* data = p->sent.data();
  const std::size_t len = p->sent.size();
  req.cookie = track(std::move(p));
  lapi::Context& ctx = lapi_context();
  const auto world = static_cast<lapi::TaskId>(win.comm->world_of(a.target));
  lapi::Status st = ctx.amsend(world, kRequestHandler, &req, sizeof req, data, len);
  if (!st.ok()) return lapi_error("lapi amsend", st);
  ++win.requests_out[static_cast<std::size_t>(a.target)];
  return MPI_SUCCESS;
}

// No Amsend request to `target` is still waiting for its answer (reaps
// answers that came), so an access run here cannot overtake one.
bool requests_settled(Window& win, int target) {
  const auto t = static_cast<std::size_t>(target);
  int& out = win.requests_out[t];
  if (out == 0) return true;
  lapi::Counter& answers = *win.answers[t];
  if (answers.error() != 0 || !answers.try_consume(out)) return false;
  out = 0;
  return true;
}

// Accumulate, get_accumulate and compare-and-swap on target memory mapped
// here, in a locked window (apply.hpp): run here, under the target's
// accumulate lock, complete on return; no target CPU, so a passive target
// need not call MPI. Only when no request to the target is outstanding, so
// MPI's accumulate ordering holds. Returns false when it does not apply.
bool try_apply_mapped(Window& win, const OpArgs& a, const TargetInfo& ti, int& rc) {
  if (a.kind == Kind::put || a.kind == Kind::get) return false;
  const auto t = static_cast<std::size_t>(a.target);
  std::byte* mapped = win.mapped[t];
  if (!win.locked || mapped == nullptr || !requests_settled(win, a.target)) return false;
  const Side& ts = a.target_side;
  RequestWire req;
  req.kind = static_cast<std::uint8_t>(a.kind);
  req.op = static_cast<std::uint8_t>(a.op);
  req.element_id = ts.type->element_id();
  req.disp = static_cast<std::uint64_t>(a.disp * ti.disp_unit);
  thread_local std::vector<WireBlock> blocks, ranges;
  thread_local std::vector<std::byte> packed, fetched_staging;
  blocks.clear();
  ranges.clear();
  layout_blocks(ts, blocks);
  const bool one = ts.type->contiguous_for(ts.count);
  req.count = one ? 1 : ts.count;
  req.extent = one ? 0 : ts.type->extent();
  req.nblocks = static_cast<std::uint32_t>(blocks.size());
  std::uint64_t total = 0;
  rc = ranges_of(Bounds{static_cast<std::int64_t>(ti.size), nullptr}, req, blocks.data(), ranges, total);
  if (rc != MPI_SUCCESS) return true;
  // The operand: the origin buffer itself where it is contiguous.
  const std::byte* payload = nullptr;
  const bool no_op = a.op == static_cast<int>(OpKind::no_op) && a.kind != Kind::compare_and_swap;
  if (a.kind == Kind::compare_and_swap) {
    packed.resize(2 * total);
    pack(*a.origin.type, a.origin.addr, a.origin.count, packed.data());
    std::memcpy(packed.data() + total, a.compare, total);
    payload = packed.data();
  } else if (!no_op && contiguous(a.origin)) {
    payload = data_start(static_cast<const std::byte*>(a.origin.addr), a.origin);
  } else if (!no_op) {
    packed.resize(total);
    pack(*a.origin.type, a.origin.addr, a.origin.count, packed.data());
    payload = packed.data();
  }
  std::byte* fetched = nullptr;
  const bool fetches = a.kind != Kind::accumulate;
  if (fetches && contiguous(a.result)) {
    fetched = data_start(static_cast<std::byte*>(const_cast<void*>(a.result.addr)), a.result);
  } else if (fetches) {
    fetched_staging.resize(total);
    fetched = fetched_staging.data();
  }
  {
    AccLock hold(win.mapped_acc[t]);
    rc = apply(req, ranges, total, reinterpret_cast<std::uintptr_t>(mapped), payload, fetched, false);
  }
  if (rc == MPI_SUCCESS && fetches && !contiguous(a.result)) {
    unpack(*a.result.type, const_cast<void*>(a.result.addr), a.result.count, fetched,
           static_cast<std::int64_t>(total));
  }
  if (mapped_call_due(win)) (void)engine().progress();
  return true;
}

// One read-modify-write on window memory mapped here; returns the old value.
template <typename W>
W rmw_mapped(W* p, lapi::RmwOp op, W operand, W compare) {
  switch (op) {
    case lapi::RmwOp::fetch_and_add: return __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
    case lapi::RmwOp::fetch_and_or: return __atomic_fetch_or(p, operand, __ATOMIC_SEQ_CST);
    case lapi::RmwOp::swap: return __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST);
    case lapi::RmwOp::compare_and_swap:
      (void)__atomic_compare_exchange_n(p, &compare, operand, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST);
      return compare;  // the old value either way
  }
  return 0;
}

// MPI_Fetch_and_op (MPI_SUM, MPI_BOR on integers; MPI_REPLACE, MPI_NO_OP
// on any 4- or 8-byte type) and MPI_Compare_and_swap on one 4- or 8-byte
// element of registered target memory: the core's rmw, which on a node is
// a CPU atomic on the target's memory (no target CPU, so a passive target
// need not call MPI, in polling mode too). Accumulates on such elements
// run with atomics too, or everything runs under the accumulate lock
// (apply.hpp), so the paths stay atomic together. Taken only when no Amsend
// request to the target is outstanding, and completed before returning, so
// MPI's accumulate ordering holds. Returns false when it does not apply.
bool try_rmw(Window& win, const OpArgs& a, const TargetInfo& ti, int& rc) {
  if (a.kind != Kind::get_accumulate && a.kind != Kind::compare_and_swap) return false;
  const Side& t = a.target_side;
  if (!ti.registered || win.flavor == MPI_WIN_FLAVOR_DYNAMIC || t.count != 1 || !t.type->is_builtin() ||
      !requests_settled(win, a.target)) {
    return false;
  }
  const std::int64_t width = t.type->size();
  if (width != 4 && width != 8) return false;
  // The origin and result sides hold that one element somewhere in
  // whatever layout they have (a derived type may place it at an offset);
  // anything else goes by request, which packs and unpacks.
  const bool reads_origin = a.kind == Kind::compare_and_swap || static_cast<OpKind>(a.op) != OpKind::no_op;
  auto one_element = [width](const Side& s) { return contiguous(s) && bytes_of(s) == width; };
  if (!one_element(a.result) || (reads_origin && !one_element(a.origin))) return false;
  const std::uint64_t addr = ti.base + static_cast<std::uint64_t>(a.disp * ti.disp_unit);
  if (addr % static_cast<std::uint64_t>(width) != 0) return false;
  const bool integer = find_kernel(OpKind::bor, t.type->element_id()) != nullptr;
  lapi::RmwOp op = lapi::RmwOp::compare_and_swap;
  std::int64_t operand = 0, compare = 0;
  auto load = [width](const void* p) {
    std::int64_t v = 0;
    if (width == 4) {
      std::int32_t x;
      std::memcpy(&x, p, 4);
      v = x;
    } else {
      std::memcpy(&v, p, 8);
    }
    return v;
  };
  if (a.kind == Kind::compare_and_swap) {
    operand = load(data_start(a.origin.addr, a.origin));
    compare = load(a.compare);
  } else {
    switch (static_cast<OpKind>(a.op)) {
      case OpKind::sum:
        if (!integer) return false;
        op = lapi::RmwOp::fetch_and_add;
        break;
      case OpKind::bor:
        op = lapi::RmwOp::fetch_and_or;
        break;
      case OpKind::replace: op = lapi::RmwOp::swap; break;
      case OpKind::no_op: op = lapi::RmwOp::fetch_and_add; break;
      default: return false;
    }
    if (reads_origin) operand = load(data_start(a.origin.addr, a.origin));
  }
  void* result = const_cast<void*>(data_start(a.result.addr, a.result));
  if (std::byte* mapped = win.mapped[static_cast<std::size_t>(a.target)]) {
    // The same CPU atomic the core would run, without the call; in a
    // locked window under the accumulate lock, like every accumulate.
    std::byte* at = mapped + (addr - ti.base);
    std::optional<AccLock> hold;
    if (win.locked) hold.emplace(win.mapped_acc[static_cast<std::size_t>(a.target)]);
    if (width == 4) {
      const auto prev = rmw_mapped(reinterpret_cast<std::int32_t*>(at), op,
                                   static_cast<std::int32_t>(operand),
                                   static_cast<std::int32_t>(compare));
      std::memcpy(result, &prev, 4);
    } else {
      const auto prev = rmw_mapped(reinterpret_cast<std::int64_t*>(at), op, operand, compare);
      std::memcpy(result, &prev, 8);
    }
    rc = MPI_SUCCESS;
    if (mapped_call_due(win)) (void)engine().progress();
    return true;
  }
  lapi::Context& ctx = lapi_context();
  const auto world = static_cast<lapi::TaskId>(win.comm->world_of(a.target));
  lapi::Counter done;
  lapi::Status st;
  if (width == 4) {
    std::int32_t prev = 0;
    st = ctx.rmw32(op, world, addr, static_cast<std::int32_t>(operand), static_cast<std::int32_t>(compare),
                   &prev, &done);
    if (st.ok()) st = ctx.waitcntr(done, 1);
    std::memcpy(result, &prev, 4);
  } else {
    std::int64_t prev = 0;
    st = ctx.rmw64(op, world, addr, operand, compare, &prev, &done);
    if (st.ok()) st = ctx.waitcntr(done, 1);
    std::memcpy(result, &prev, 8);
  }
  rc = st.ok() ? MPI_SUCCESS : lapi_error("lapi rmw", st);
  return true;
}

}  // namespace

int issue(Window& win, const OpArgs& a) {
  reap_answers();
  win.ops_since_fence = true;
  const TargetInfo& ti = win.targets[static_cast<std::size_t>(a.target)];
  const bool moves = a.kind == Kind::put || a.kind == Kind::get;
  const Side& local = a.kind == Kind::put ? a.origin : a.result;
  if (moves && ti.registered && contiguous(local) && contiguous(a.target_side)) {
    const std::uint64_t addr = ti.base + static_cast<std::uint64_t>(a.disp * ti.disp_unit) +
                               static_cast<std::uint64_t>(a.target_side.type->data_offset());
    if (std::byte* mapped = win.mapped[static_cast<std::size_t>(a.target)]) {
      copy_mapped(win, static_cast<std::size_t>(a.target), a.kind == Kind::put,
                  mapped + (addr - ti.base), const_cast<void*>(data_start(local.addr, local)),
                  static_cast<std::size_t>(bytes_of(local)));
      return MPI_SUCCESS;
    }
    return issue_direct(win, a, addr);
  }
  if (int rc = MPI_SUCCESS; try_rmw(win, a, ti, rc) || try_apply_mapped(win, a, ti, rc)) return rc;
  return issue_request(win, a);
}

}  // namespace mpi::rma
