// The MPI-4.0 large-count forms of one-sided communication over the int
// forms (internal/large_count.hpp). Origin, result and target counts beyond
// INT_MAX go as one instance of a run type (a target's run type is the
// same contiguous layout at the target); an access that outlives the call
// keeps what it needs of its types (rma/window.hpp: Side), so the run
// types are freed at return. Window creation's disp_unit must fit the int
// forms' int.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/large_count.hpp"

using namespace mpi;

namespace {

// The sides of an access (result: Get_accumulate only), narrowed; a failure
// raised on the window.
struct Access {
  Narrowed origin, result, target;
};
int narrow(Access& a, const char* fn, MPI_Win win, MPI_Count origin_count,
           MPI_Datatype origin_datatype, MPI_Count target_count, MPI_Datatype target_datatype) {
  int rc = a.origin.set(origin_count, origin_datatype, "origin_count", "origin_datatype");
  if (rc == MPI_SUCCESS) {
    rc = a.target.set(target_count, target_datatype, "target_count", "target_datatype");
  }
  return rc == MPI_SUCCESS ? rc : raise_on_win(win, fn, rc);
}

constexpr const char* kDispUnitWhy = "the window calls take a disp_unit that fits an int (not yet)";

}  // namespace

extern "C" int MPI_Put_c(const void* origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  const ApiCall call("MPI_Put_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Put_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  return MPI_Put(origin_addr, a.origin.count(), a.origin.type(), target_rank, target_disp,
                 a.target.count(), a.target.type(), win);
}

extern "C" int MPI_Get_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                         MPI_Datatype target_datatype, MPI_Win win) {
  const ApiCall call("MPI_Get_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Get_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  return MPI_Get(origin_addr, a.origin.count(), a.origin.type(), target_rank, target_disp,
                 a.target.count(), a.target.type(), win);
}

extern "C" int MPI_Rput_c(const void* origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                          MPI_Request* request) {
  const ApiCall call("MPI_Rput_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Rput_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  return MPI_Rput(origin_addr, a.origin.count(), a.origin.type(), target_rank, target_disp,
                  a.target.count(), a.target.type(), win, request);
}

extern "C" int MPI_Rget_c(void* origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  const ApiCall call("MPI_Rget_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Rget_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  return MPI_Rget(origin_addr, a.origin.count(), a.origin.type(), target_rank, target_disp,
                  a.target.count(), a.target.type(), win, request);
}

extern "C" int MPI_Accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                                MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                                MPI_Win win) {
  const ApiCall call("MPI_Accumulate_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Accumulate_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  return MPI_Accumulate(origin_addr, a.origin.count(), a.origin.type(), target_rank, target_disp,
                        a.target.count(), a.target.type(), op, win);
}

extern "C" int MPI_Raccumulate_c(const void* origin_addr, MPI_Count origin_count,
                                 MPI_Datatype origin_datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                 MPI_Request* request) {
  const ApiCall call("MPI_Raccumulate_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Raccumulate_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  return MPI_Raccumulate(origin_addr, a.origin.count(), a.origin.type(), target_rank, target_disp,
                         a.target.count(), a.target.type(), op, win, request);
}

extern "C" int MPI_Get_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                    MPI_Datatype origin_datatype, void* result_addr,
                                    MPI_Count result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  const ApiCall call("MPI_Get_accumulate_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Get_accumulate_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  if (int rc = a.result.set(result_count, result_datatype, "result_count", "result_datatype")) {
    return raise_on_win(win, "MPI_Get_accumulate_c", rc);
  }
  return MPI_Get_accumulate(origin_addr, a.origin.count(), a.origin.type(), result_addr,
                            a.result.count(), a.result.type(), target_rank, target_disp,
                            a.target.count(), a.target.type(), op, win);
}

extern "C" int MPI_Rget_accumulate_c(const void* origin_addr, MPI_Count origin_count,
                                     MPI_Datatype origin_datatype, void* result_addr,
                                     MPI_Count result_count, MPI_Datatype result_datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                     MPI_Request* request) {
  const ApiCall call("MPI_Rget_accumulate_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Access a;
  if (int rc = narrow(a, "MPI_Rget_accumulate_c", win, origin_count, origin_datatype, target_count,
                      target_datatype)) {
    return rc;
  }
  if (int rc = a.result.set(result_count, result_datatype, "result_count", "result_datatype")) {
    return raise_on_win(win, "MPI_Rget_accumulate_c", rc);
  }
  return MPI_Rget_accumulate(origin_addr, a.origin.count(), a.origin.type(), result_addr,
                             a.result.count(), a.result.type(), target_rank, target_disp,
                             a.target.count(), a.target.type(), op, win, request);
}

// ---- windows

extern "C" int MPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                MPI_Comm comm, MPI_Win* win) {
  const ApiCall call("MPI_Win_create_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  if (int rc = fits_int(disp_unit, "disp_unit", -1, kDispUnitWhy, MPI_ERR_DISP)) {
    return raise_on(comm, "MPI_Win_create_c", rc);
  }
  return MPI_Win_create(base, size, static_cast<int>(disp_unit), info, comm, win);
}

extern "C" int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                  void* baseptr, MPI_Win* win) {
  const ApiCall call("MPI_Win_allocate_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  if (int rc = fits_int(disp_unit, "disp_unit", -1, kDispUnitWhy, MPI_ERR_DISP)) {
    return raise_on(comm, "MPI_Win_allocate_c", rc);
  }
  return MPI_Win_allocate(size, static_cast<int>(disp_unit), info, comm, baseptr, win);
}

extern "C" int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                         MPI_Comm comm, void* baseptr, MPI_Win* win) {
  const ApiCall call("MPI_Win_allocate_shared_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  if (int rc = fits_int(disp_unit, "disp_unit", -1, kDispUnitWhy, MPI_ERR_DISP)) {
    return raise_on(comm, "MPI_Win_allocate_shared_c", rc);
  }
  return MPI_Win_allocate_shared(size, static_cast<int>(disp_unit), info, comm, baseptr, win);
}

extern "C" int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit,
                                      void* baseptr) {
  const ApiCall call("MPI_Win_shared_query_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  if (disp_unit == nullptr) {
    return raise_on_win(win, "MPI_Win_shared_query_c", fail(MPI_ERR_ARG, "disp_unit is NULL"));
  }
  int unit = 0;
  const int rc = MPI_Win_shared_query(win, rank, size, &unit, baseptr);
  if (rc == MPI_SUCCESS) *disp_unit = unit;
  return rc;
}
