// Generalized active-target synchronisation: MPI_Win_post / MPI_Win_start /
// MPI_Win_complete / MPI_Win_wait / MPI_Win_test. The notes are zero-byte
// messages on the window's private communicator: a target's post tells
// each origin of its group that it may access; an origin's complete, sent
// once its accesses are complete at the target, ends the target's wait.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/group.hpp"
#include "mpi/internal/rma/window.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;
using mpi::rma::raise_win;
using mpi::rma::Window;

namespace {

constexpr int kTagPost = 1;
constexpr int kTagComplete = 2;

int open(const char* fn, MPI_Win win, Window*& w) {
  if (int rc = check_running(fn)) return rc;
  return rma::lookup_window(win, w);
}

// The window ranks of `group`'s members; MPI_ERR_GROUP for a bad handle or
// a member outside the window.
int window_ranks(const Window& w, MPI_Group group, std::vector<int>& out) {
  GroupPtr* g = state().groups.find(group);
  if (g == nullptr) {
    return fail(MPI_ERR_GROUP, "group={:#x} is not a group", group);
  }
  out.clear();
  for (int i = 0; i < (*g)->size(); ++i) {
    const int r = w.comm->rank_of_world((*g)->world_of(i));
    if (r < 0) return fail(MPI_ERR_GROUP, "group member {} is not in the window's group", i);
    out.push_back(r);
  }
  return MPI_SUCCESS;
}

int note(const Window& w, int rank, int tag) {
  return engine_error(engine().send(nullptr, 0, w.comm->world_of(rank), tag,
                                    w.comm->context(ContextKind::p2p), mpcpi::SendMode::standard));
}

int check_assert(int assert) {
  constexpr int kAll = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                       MPI_MODE_NOSUCCEED;
  if ((assert & ~kAll) == 0) return MPI_SUCCESS;
  return fail(MPI_ERR_ASSERT, "assert={:#x} has bits that are no MPI_MODE_* assertion", assert);
}

// Takes the finished complete notes; done when all arrived.
int poll_notes(Window& w, bool block, bool& done) {
  mpcpi::Engine& eng = engine();
  for (mpcpi::Request*& r : w.complete_notes) {
    if (r == nullptr) continue;
    bool finished = false;
    mpcpi::Errc e = block ? eng.wait(r, nullptr) : eng.test(r, finished, nullptr);
    if (e != mpcpi::Errc::success) return engine_error(e);
    if (block || finished) r = nullptr;
  }
  done = true;
  for (mpcpi::Request* r : w.complete_notes) done = done && r == nullptr;
  if (done) {
    w.complete_notes.clear();
    w.exposure_group.clear();
    w.exposure = false;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  const ApiCall call("MPI_Win_post");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_post";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  std::vector<int> origins;
  int rc = check_assert(assert);
  if (rc == MPI_SUCCESS) rc = window_ranks(*w, group, origins);
  if (rc == MPI_SUCCESS && w->exposure) rc = fail(MPI_ERR_RMA_SYNC, "an exposure epoch (MPI_Win_post) is already open");
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  // Receives for the complete notes first, then the post notes.
  for (int r : origins) {
    mpcpi::Request* req = nullptr;
    rc = engine_error(engine().irecv(nullptr, 0, w->comm->world_of(r), kTagComplete,
                                     w->comm->context(ContextKind::p2p), req));
    if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
    w->complete_notes.push_back(req);
  }
  for (int r : origins) {
    if (int e = note(*w, r, kTagPost)) return raise_win(w, kFn, e);
  }
  w->exposure_group = std::move(origins);
  w->exposure = true;
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  const ApiCall call("MPI_Win_start");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_start";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  std::vector<int> targets;
  int rc = check_assert(assert);
  if (rc == MPI_SUCCESS) rc = window_ranks(*w, group, targets);
  if (rc == MPI_SUCCESS && !w->access_group.empty()) {
    rc = fail(MPI_ERR_RMA_SYNC, "an access epoch (MPI_Win_start) is already open");
  }
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  // Wait for every target's post (MPI_MODE_NOCHECK does not change the
  // note traffic: each post is still matched, so epochs stay in step).
  for (int r : targets) {
    rc = engine_error(engine().recv(nullptr, 0, w->comm->world_of(r), kTagPost,
                                    w->comm->context(ContextKind::p2p), nullptr));
    if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  }
  for (int r : targets) w->in_access[static_cast<std::size_t>(r)] = 1;
  w->access_group = std::move(targets);
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_complete(MPI_Win win) {
  const ApiCall call("MPI_Win_complete");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_complete";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (w->access_group.empty()) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_SYNC, "no access epoch (MPI_Win_start) is open"));
  }
  int rc = MPI_SUCCESS;
  for (int r : w->access_group) {
    const int e = rma::flush_target(*w, r);
    if (rc == MPI_SUCCESS) rc = e;
    w->in_access[static_cast<std::size_t>(r)] = 0;
  }
  for (int r : w->access_group) {
    const int e = note(*w, r, kTagComplete);
    if (rc == MPI_SUCCESS) rc = e;
  }
  w->access_group.clear();
  return raise_win(w, kFn, rc);
}

extern "C" int MPI_Win_wait(MPI_Win win) {
  const ApiCall call("MPI_Win_wait");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_wait";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (!w->exposure) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open"));
  }
  bool done = false;
  return raise_win(w, kFn, poll_notes(*w, true, done));
}

extern "C" int MPI_Win_test(MPI_Win win, int* flag) {
  const ApiCall call("MPI_Win_test");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_test";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(flag, "flag")) return raise_win(w, kFn, rc);
  if (!w->exposure) {
    return raise_win(w, kFn, fail(MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open"));
  }
  bool done = false;
  const int rc = poll_notes(*w, false, done);
  *flag = done ? 1 : 0;
  return raise_win(w, kFn, rc);
}
