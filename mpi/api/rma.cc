// One-sided communication calls: MPI_Put, MPI_Get, MPI_Accumulate,
// MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap. Each validates,
// handles MPI_PROC_NULL and empty transfers, then hands the access to
// rma::issue (internal/rma/ops.cc), which picks lapi put/get or a request
// run at the target.

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/ops.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/rma/fast_access.hpp"
#include "mpi/internal/rma/window.hpp"

using namespace mpi;
using mpi::rma::raise_win;
using mpi::rma::Window;

namespace {

struct Access {
  explicit Access(const char* function) : fn(function) {}
  const char* fn;
  Window* win = nullptr;
  rma::OpArgs args;
  bool proc_null = false;
};

int side(rma::Side& s, const void* addr, int count, MPI_Datatype type, const char* count_arg,
         const char* type_arg) {
  if (int rc = check_count(count, count_arg)) return rc;
  if (int rc = lookup_type(type, s.type, true, type_arg)) return rc;
  s.addr = addr;
  s.count = count;
  s.handle = type;
  return MPI_SUCCESS;
}

// The target side: rank, epoch, displacement and the window's bounds.
int target(Access& a, int rank, MPI_Aint disp, int count, MPI_Datatype type) {
  Window& w = *a.win;
  rma::OpArgs& o = a.args;
  if (int rc = side(o.target_side, nullptr, count, type, "target_count", "target_datatype")) return rc;
  if (rank == MPI_PROC_NULL) {
    a.proc_null = true;
    return MPI_SUCCESS;
  }
  if (rank < 0 || rank >= w.size_of_group()) {
    return fail(MPI_ERR_RANK, "target_rank={} is not in the window's group (0..{})", rank,
                w.size_of_group() - 1);
  }
  if (!w.in_epoch_with(rank)) {
    return fail(MPI_ERR_RMA_SYNC,
                "no access epoch to target_rank={} is open (MPI_Win_fence, MPI_Win_lock or "
                "MPI_Win_lock_all first)", rank);
  }
  if (disp < 0) return fail(MPI_ERR_DISP, "target_disp={} is negative", disp);
  const rma::TargetInfo& t = w.targets[static_cast<std::size_t>(rank)];
  std::int64_t off = 0;  // no division on every access: a checked multiply
  if (!rma::scaled_disp(disp, t.disp_unit, off)) {
    return fail(MPI_ERR_DISP, "target_disp={} times disp_unit={} overflows", disp, t.disp_unit);
  }
  o.target = rank;
  o.disp = disp;
  const rma::Side& s = o.target_side;
  // A dynamic window's displacements are addresses: its target checks them.
  if (count == 0 || s.type->size() == 0 || w.flavor == MPI_WIN_FLAVOR_DYNAMIC) return MPI_SUCCESS;
  const auto [lo, hi] = rma::access_span(*s.type, count, off);
  if (lo < 0 || hi > static_cast<std::int64_t>(t.size)) {
    return fail(MPI_ERR_RMA_RANGE,
                "target_disp={} with {} x target_datatype reaches bytes [{}, {}) of target "
                "rank {}'s window of {} bytes",
                disp, count, lo, hi, rank, t.size);
  }
  return MPI_SUCCESS;
}

int same_bytes(const rma::Side& a, const rma::Side& b, const char* what) {
  const std::int64_t x = a.count * a.type->size(), y = b.count * b.type->size();
  if (x == y) return MPI_SUCCESS;
  return fail(MPI_ERR_TYPE, "{} holds {} bytes but the target side {}", what, x, y);
}

int accumulate_op(Access& a, MPI_Op op) {
  const Op* o = nullptr;
  if (int rc = lookup_op(op, o)) return rc;
  if (o->kind == OpKind::user) {
    return fail(MPI_ERR_OP, "op={:#x} is a user op: one-sided accumulates take predefined ops only", op);
  }
  if (int rc = check_op_type(*o, *a.args.target_side.type, a.args.target_side.handle)) return rc;
  a.args.op = static_cast<int>(o->kind);
  return MPI_SUCCESS;
}

// Runs the access (or nothing for MPI_PROC_NULL and empty ones).
int finish(Access& a, int rc) {
  if (rc != MPI_SUCCESS) return raise_win(a.win, a.fn, rc);
  const rma::Side& t = a.args.target_side;
  if (a.proc_null || t.count == 0 || t.type->size() == 0) return MPI_SUCCESS;
  return raise_win(a.win, a.fn, rma::issue(*a.win, a.args));
}

// The request forms: valid in passive-target epochs only. The access is
// made complete at the target before the call returns, so the request is
// born complete (MPI_Wait/Test on it return at once).
int finish_request(Access& a, int rc, MPI_Request* request) {
  if (rc == MPI_SUCCESS) rc = check_not_null(request, "request");
  if (rc == MPI_SUCCESS && !a.proc_null && !a.win->lock_all &&
      a.win->held[static_cast<std::size_t>(a.args.target)] == rma::Held::none) {
    rc = fail(MPI_ERR_RMA_SYNC, "request-based accesses need a passive-target epoch (MPI_Win_lock)");
  }
  if (rc != MPI_SUCCESS) return raise_win(a.win, a.fn, rc);
  if (int e = finish(a, MPI_SUCCESS)) return e;
  if (!a.proc_null) {
    if (int e = rma::flush_target(*a.win, a.args.target)) return raise_win(a.win, a.fn, e);
  }
  MPI_Request h = MPI_REQUEST_NULL;
  Request* r = requests().acquire(h);
  if (r == nullptr) return raise_win(a.win, a.fn, fail(MPI_ERR_INTERN, "too many requests"));
  r->kind = RequestKind::null_proc;
  r->comm = {a.win->comm, false};
  r->active = true;
  *request = h;
  return MPI_SUCCESS;
}

// check_running and the window: what every access call does first.
int open_access(Access& a, MPI_Win win) {
  if (int rc = check_running(a.fn)) return rc;
  if (int rc = rma::lookup_window(win, a.win)) return raise(nullptr, a.fn, rc);
  return MPI_SUCCESS;
}

// The arguments of each access kind, shared by its plain and request forms.
int prepare_put(Access& a, const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype) {
  a.args.kind = rma::Kind::put;
  int rc = side(a.args.origin, origin_addr, origin_count, origin_datatype, "origin_count",
                "origin_datatype");
  if (rc == MPI_SUCCESS) rc = target(a, target_rank, target_disp, target_count, target_datatype);
  if (rc == MPI_SUCCESS) rc = same_bytes(a.args.origin, a.args.target_side, "the origin buffer");
  return rc;
}

int prepare_get(Access& a, void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, int target_count,
                MPI_Datatype target_datatype) {
  a.args.kind = rma::Kind::get;
  int rc = side(a.args.result, origin_addr, origin_count, origin_datatype, "origin_count",
                "origin_datatype");
  if (rc == MPI_SUCCESS) rc = target(a, target_rank, target_disp, target_count, target_datatype);
  if (rc == MPI_SUCCESS) rc = same_bytes(a.args.result, a.args.target_side, "the origin buffer");
  return rc;
}

int prepare_accumulate(Access& a, const void* origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_datatype, MPI_Op op) {
  a.args.kind = rma::Kind::accumulate;
  int rc = side(a.args.origin, origin_addr, origin_count, origin_datatype, "origin_count",
                "origin_datatype");
  if (rc == MPI_SUCCESS) rc = target(a, target_rank, target_disp, target_count, target_datatype);
  if (rc == MPI_SUCCESS) rc = accumulate_op(a, op);
  if (rc == MPI_SUCCESS) rc = same_bytes(a.args.origin, a.args.target_side, "the origin buffer");
  return rc;
}

int prepare_get_accumulate(Access& a, const void* origin_addr, int origin_count,
                           MPI_Datatype origin_datatype, void* result_addr, int result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           int target_count, MPI_Datatype target_datatype, MPI_Op op) {
  a.args.kind = rma::Kind::get_accumulate;
  int rc = side(a.args.result, result_addr, result_count, result_datatype, "result_count",
                "result_datatype");
  if (rc == MPI_SUCCESS) rc = target(a, target_rank, target_disp, target_count, target_datatype);
  if (rc == MPI_SUCCESS) rc = accumulate_op(a, op);
  // MPI_NO_OP ignores the origin buffer: its arguments may be anything.
  if (rc == MPI_SUCCESS && a.args.op != static_cast<int>(OpKind::no_op)) {
    rc = side(a.args.origin, origin_addr, origin_count, origin_datatype, "origin_count",
              "origin_datatype");
    if (rc == MPI_SUCCESS) rc = same_bytes(a.args.origin, a.args.target_side, "the origin buffer");
  }
  if (rc == MPI_SUCCESS) rc = same_bytes(a.args.result, a.args.target_side, "the result buffer");
  return rc;
}

}  // namespace

extern "C" int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win) {
  const ApiCall call("MPI_Put");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (rma::access_mapped_fast(true, const_cast<void*>(origin_addr), origin_count, origin_datatype,
                              target_rank, target_disp, target_count, target_datatype, win)) {
    return MPI_SUCCESS;
  }
  Access a{"MPI_Put"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_put(a, origin_addr, origin_count, origin_datatype, target_rank,
                             target_disp, target_count, target_datatype);
  return finish(a, rc);
}

extern "C" int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win) {
  const ApiCall call("MPI_Get");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (rma::access_mapped_fast(false, origin_addr, origin_count, origin_datatype, target_rank,
                              target_disp, target_count, target_datatype, win)) {
    return MPI_SUCCESS;
  }
  Access a{"MPI_Get"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_get(a, origin_addr, origin_count, origin_datatype, target_rank,
                             target_disp, target_count, target_datatype);
  return finish(a, rc);
}

extern "C" int MPI_Accumulate(const void* origin_addr, int origin_count,
                              MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                              int target_count, MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win) {
  const ApiCall call("MPI_Accumulate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Accumulate"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_accumulate(a, origin_addr, origin_count, origin_datatype, target_rank,
                                    target_disp, target_count, target_datatype, op);
  return finish(a, rc);
}

extern "C" int MPI_Get_accumulate(const void* origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype, void* result_addr,
                                  int result_count, MPI_Datatype result_datatype, int target_rank,
                                  MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  const ApiCall call("MPI_Get_accumulate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Get_accumulate"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_get_accumulate(a, origin_addr, origin_count, origin_datatype, result_addr,
                                        result_count, result_datatype, target_rank, target_disp,
                                        target_count, target_datatype, op);
  return finish(a, rc);
}

extern "C" int MPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                                int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const ApiCall call("MPI_Fetch_and_op");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Fetch_and_op"};
  if (int rc = check_running(a.fn)) return rc;
  if (int rc = rma::lookup_window(win, a.win)) return raise(nullptr, a.fn, rc);
  a.args.kind = rma::Kind::get_accumulate;
  int rc = side(a.args.result, result_addr, 1, datatype, "count", "datatype");
  if (rc == MPI_SUCCESS && !a.args.result.type->is_builtin()) {
    rc = fail(MPI_ERR_TYPE, "datatype={:#x} is not a predefined datatype", datatype);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(result_addr, "result_addr");
  if (rc == MPI_SUCCESS) rc = target(a, target_rank, target_disp, 1, datatype);
  if (rc == MPI_SUCCESS) rc = accumulate_op(a, op);
  if (rc == MPI_SUCCESS && a.args.op != static_cast<int>(OpKind::no_op)) {
    rc = check_not_null(origin_addr, "origin_addr");
    if (rc == MPI_SUCCESS) rc = side(a.args.origin, origin_addr, 1, datatype, "count", "datatype");
  }
  return finish(a, rc);
}

namespace {

// MPI 3.1 section 11.3.4: C and Fortran integers, logicals, multi-language
// types and bytes: exactly the types MPI_BAND or MPI_LAND is defined for.
bool compare_and_swap_type(const Datatype& type) {
  const auto& ops = builtin_ops();
  return op_accepts(*ops[static_cast<std::size_t>(OpKind::band)], type) ||
         op_accepts(*ops[static_cast<std::size_t>(OpKind::land)], type);
}

}  // namespace

extern "C" int MPI_Compare_and_swap(const void* origin_addr, const void* compare_addr,
                                    void* result_addr, MPI_Datatype datatype, int target_rank,
                                    MPI_Aint target_disp, MPI_Win win) {
  const ApiCall call("MPI_Compare_and_swap");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Compare_and_swap"};
  if (int rc = check_running(a.fn)) return rc;
  if (int rc = rma::lookup_window(win, a.win)) return raise(nullptr, a.fn, rc);
  a.args.kind = rma::Kind::compare_and_swap;
  int rc = side(a.args.result, result_addr, 1, datatype, "count", "datatype");
  if (rc == MPI_SUCCESS) rc = side(a.args.origin, origin_addr, 1, datatype, "count", "datatype");
  if (rc == MPI_SUCCESS && !a.args.result.type->is_builtin()) {
    rc = fail(MPI_ERR_TYPE, "datatype={:#x} is not a predefined datatype", datatype);
  }
  if (rc == MPI_SUCCESS && !compare_and_swap_type(*a.args.result.type)) {
    rc = fail(MPI_ERR_TYPE,
              "datatype={:#x} is not an integer, logical or byte type (MPI_Compare_and_swap "
              "compares bits: no floating-point or complex types)",
              datatype);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(origin_addr, "origin_addr");
  if (rc == MPI_SUCCESS) rc = check_not_null(compare_addr, "compare_addr");
  if (rc == MPI_SUCCESS) rc = check_not_null(result_addr, "result_addr");
  if (rc == MPI_SUCCESS) rc = target(a, target_rank, target_disp, 1, datatype);
  a.args.compare = compare_addr;
  return finish(a, rc);
}

extern "C" int MPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  const ApiCall call("MPI_Rput");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Rput"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_put(a, origin_addr, origin_count, origin_datatype, target_rank,
                             target_disp, target_count, target_datatype);
  return finish_request(a, rc, request);
}

extern "C" int MPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  const ApiCall call("MPI_Rget");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Rget"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_get(a, origin_addr, origin_count, origin_datatype, target_rank,
                             target_disp, target_count, target_datatype);
  return finish_request(a, rc, request);
}

extern "C" int MPI_Raccumulate(const void* origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                               MPI_Request* request) {
  const ApiCall call("MPI_Raccumulate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Raccumulate"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_accumulate(a, origin_addr, origin_count, origin_datatype, target_rank,
                                    target_disp, target_count, target_datatype, op);
  return finish_request(a, rc, request);
}

extern "C" int MPI_Rget_accumulate(const void* origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void* result_addr,
                                   int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                   MPI_Request* request) {
  const ApiCall call("MPI_Rget_accumulate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  Access a{"MPI_Rget_accumulate"};
  if (int rc = open_access(a, win)) return rc;
  const int rc = prepare_get_accumulate(a, origin_addr, origin_count, origin_datatype, result_addr,
                                        result_count, result_datatype, target_rank, target_disp,
                                        target_count, target_datatype, op);
  return finish_request(a, rc, request);
}
