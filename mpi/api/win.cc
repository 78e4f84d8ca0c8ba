// Windows: MPI_Win_create, MPI_Win_allocate, MPI_Win_free, their attributes,
// group, name and error handlers. (Communication: rma.cc; synchronisation:
// win_sync.cc; the machinery: internal/rma/.)
#include <algorithm>
#include <cstring>
#include <mutex>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/rma/window.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;
using mpi::rma::raise_win;
using mpi::rma::Window;

namespace {

// Arguments MPI_Win_create and MPI_Win_allocate share.
int check_create(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Win* win) {
  int rc = check_not_null(win, "win");
  if (rc == MPI_SUCCESS && size < 0) rc = fail(MPI_ERR_SIZE, "size={} is negative", size);
  if (rc == MPI_SUCCESS && disp_unit <= 0) {
    rc = fail(MPI_ERR_DISP, "disp_unit={} is not positive", disp_unit);
  }
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  return rc;
}

int create(const char* fn, void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
           int flavor, void* baseptr, MPI_Win* win) {
  CommPtr c;
  int rc = lookup_comm(comm, c);
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  rc = check_create(size, disp_unit, info, win);
  if (rc == MPI_SUCCESS && (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED)) {
    rc = check_not_null(baseptr, "baseptr");
  }
  if (rc == MPI_SUCCESS && flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && base == nullptr) {
    rc = fail(MPI_ERR_ARG, "base is NULL but size={}", size);
  }
  if (rc != MPI_SUCCESS) return raise(c.get(), fn, rc);
  void* allocated = nullptr;
  rc = rma::create_window(c, base, size, disp_unit, flavor, &allocated, win);
  if (rc != MPI_SUCCESS) return raise(c.get(), fn, rc);
  Window* w = rma::find_window(*win);
  w->attr_size = size;
  w->attr_disp_unit = disp_unit;
  w->attr_flavor = flavor;
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
    *static_cast<void**>(baseptr) = allocated;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info,
                              MPI_Comm comm, MPI_Win* win) {
  const ApiCall call("MPI_Win_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_create";
  if (int rc = check_running(kFn)) return rc;
  return create(kFn, base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, nullptr, win);
}

extern "C" int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                void* baseptr, MPI_Win* win) {
  const ApiCall call("MPI_Win_allocate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_allocate";
  if (int rc = check_running(kFn)) return rc;
  return create(kFn, nullptr, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, baseptr, win);
}

extern "C" int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                       void* baseptr, MPI_Win* win) {
  const ApiCall call("MPI_Win_allocate_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_allocate_shared";
  if (int rc = check_running(kFn)) return rc;
  return create(kFn, nullptr, size, disp_unit, info, comm, MPI_WIN_FLAVOR_SHARED, baseptr, win);
}

extern "C" int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const ApiCall call("MPI_Win_create_dynamic");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_create_dynamic";
  if (int rc = check_running(kFn)) return rc;
  return create(kFn, nullptr, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, nullptr, win);
}

extern "C" int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                                    void* baseptr) {
  const ApiCall call("MPI_Win_shared_query");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_shared_query";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  int rc = check_not_null(size, "size");
  if (rc == MPI_SUCCESS) rc = check_not_null(disp_unit, "disp_unit");
  if (rc == MPI_SUCCESS) rc = check_not_null(baseptr, "baseptr");
  const int n = w->size_of_group();
  if (rc == MPI_SUCCESS && rank != MPI_PROC_NULL && (rank < 0 || rank >= n)) {
    rc = fail(MPI_ERR_RANK, "rank={} is not in the window's group (0..{})", rank, n - 1);
  }
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  // MPI 4.1: every flavor answers. Outside a shared window only this rank's own
  // memory is reachable by loads and stores here; every other rank's is size 0
  // and NULL, as in MPICH (a pointer to memory we cannot reach would invite
  // stray stores). A dynamic window's memory is attached, not the window's.
  const bool shared = w->flavor == MPI_WIN_FLAVOR_SHARED;
  const auto reachable = [&](int r) -> std::size_t {
    if (shared) return w->shm_size[static_cast<std::size_t>(r)];
    return r == w->rank() && w->flavor != MPI_WIN_FLAVOR_DYNAMIC ? static_cast<std::size_t>(w->size)
                                                                  : 0;
  };
  if (rank == MPI_PROC_NULL) {  // the first rank with memory
    rank = 0;
    while (rank < n - 1 && reachable(rank) == 0) ++rank;
  }
  const auto r = static_cast<std::size_t>(rank);
  const std::size_t bytes = reachable(rank);
  *size = static_cast<MPI_Aint>(bytes);
  *disp_unit = static_cast<int>(w->targets[r].disp_unit);
  void* base = nullptr;
  if (bytes != 0) base = shared ? static_cast<std::byte*>(w->shm_base) + w->shm_offset[r] : w->base;
  *static_cast<void**>(baseptr) = base;
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const ApiCall call("MPI_Win_attach");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_attach";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  int rc = MPI_SUCCESS;
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    rc = fail(MPI_ERR_RMA_FLAVOR, "win was not made by MPI_Win_create_dynamic");
  }
  if (rc == MPI_SUCCESS && size < 0) rc = fail(MPI_ERR_SIZE, "size={} is negative", size);
  if (rc == MPI_SUCCESS && size > 0 && base == nullptr) rc = fail(MPI_ERR_ARG, "base is NULL");
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  if (size == 0) return MPI_SUCCESS;
  const auto lo = reinterpret_cast<std::uint64_t>(base);
  const auto len = static_cast<std::uint64_t>(size);
  std::lock_guard lock(w->acc_lock);
  for (const auto& [b, l] : w->attached) {
    if (lo < b + l && b < lo + len) {
      return raise_win(w, kFn, fail(MPI_ERR_RMA_ATTACH, "[{}, +{}) overlaps memory attached before",
                                    base, size));
    }
  }
  w->attached.emplace(lo, len);
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_detach(MPI_Win win, const void* base) {
  const ApiCall call("MPI_Win_detach");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_detach";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_FLAVOR, "win was not made by MPI_Win_create_dynamic"));
  }
  std::lock_guard lock(w->acc_lock);
  if (w->attached.erase(reinterpret_cast<std::uint64_t>(base)) == 0) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_ATTACH, "base={} was not attached to win", base));
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_free(MPI_Win* win) {
  const ApiCall call("MPI_Win_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_free";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(win, "win")) return raise(nullptr, kFn, rc);
  Window* w = nullptr;
  if (int rc = rma::lookup_window(*win, w)) return raise(nullptr, kFn, rc);
  if (w->lock_all || std::any_of(w->held.begin(), w->held.end(),
                                 [](rma::Held h) { return h != rma::Held::none; })) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_SYNC, "a passive-target epoch on win is still open"));
  }
  if (w->exposure || !w->access_group.empty()) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_SYNC, "a post/start epoch on win is still open"));
  }
  if (int rc = rma::delete_window_attributes(*w)) return raise_win(w, kFn, rc);
  if (int rc = rma::free_window(*win)) return raise_win(w, kFn, rc);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  const ApiCall call("MPI_Win_get_group");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_get_group";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(group, "group")) return raise_win(w, kFn, rc);
  MPI_Group h = state().groups.insert(w->comm->group);
  if (h == MPI_GROUP_NULL) return raise_win(w, kFn, fail(MPI_ERR_INTERN, "too many groups"));
  *group = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_set_name(MPI_Win win, const char* win_name) {
  const ApiCall call("MPI_Win_set_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_set_name";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(win_name, "win_name")) return raise_win(w, kFn, rc);
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  const ApiCall call("MPI_Win_get_name");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_get_name";
  if (int rc = check_running(kFn)) return rc;
  if (win == MPI_WIN_NULL) {
    return raise(nullptr, kFn, name_of_null_handle("MPI_WIN_NULL", win_name, "win_name", resultlen));
  }
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  int rc = check_not_null(win_name, "win_name");
  if (rc == MPI_SUCCESS) rc = check_not_null(resultlen, "resultlen");
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn,
                                         MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Win_create_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_create_errhandler";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(reinterpret_cast<const void*>(win_errhandler_fn), "win_errhandler_fn");
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  // Same calling shape as a communicator's handler (both handles are ints).
  *errhandler = state().errhandlers.insert(std::make_shared<const Errhandler>(Errhandler{
      Errhandler::Kind::user, reinterpret_cast<MPI_Comm_errhandler_function*>(win_errhandler_fn)}));
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const ApiCall call("MPI_Win_set_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_set_errhandler";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  if (int rc = lookup_errhandler(errhandler, w->errhandler)) return raise_win(w, kFn, rc);
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_Win_get_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_get_errhandler";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(errhandler, "errhandler")) return raise_win(w, kFn, rc);
  *errhandler = errhandler_handle_for(w->errhandler);
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const ApiCall call("MPI_Win_call_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_call_errhandler";
  if (int rc = check_running(kFn)) return rc;
  Window* w = nullptr;
  if (int rc = rma::lookup_window(win, w)) return raise(nullptr, kFn, rc);
  set_error_detail("raised by the program");
  raise_win(w, kFn, errorcode);
  return MPI_SUCCESS;
}
