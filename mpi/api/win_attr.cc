// Window attributes: the predefined keys (MPI_WIN_BASE, _SIZE, _DISP_UNIT,
// _CREATE_FLAVOR, _MODEL) and user keyvals (MPI_Win_create_keyval ...).
// Window keyvals share the numbering and table of communicator keyvals
// (state().keyvals); their callbacks have the same shape (integer handles).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/memory_kinds.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/rma/window.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;
using mpi::rma::raise_win;
using mpi::rma::Window;

namespace {

int open(const char* fn, MPI_Win win, Window*& w) {
  if (int rc = check_running(fn)) return rc;
  return rma::lookup_window(win, w);
}

void* predefined(Window& w, int keyval) {
  switch (keyval) {
    case MPI_WIN_BASE: return &w.base;  // MPI hands out the base itself (see get_attr)
    case MPI_WIN_SIZE: return &w.attr_size;
    case MPI_WIN_DISP_UNIT: return &w.attr_disp_unit;
    case MPI_WIN_CREATE_FLAVOR: return &w.attr_flavor;
    case MPI_WIN_MODEL: return &w.attr_model;
    default: return nullptr;
  }
}

int user_keyval(int keyval, Keyval*& out) {
  auto it = state().keyvals.find(keyval);
  if (it == state().keyvals.end()) return fail(MPI_ERR_KEYVAL, "keyval={:#x} is not a keyval", keyval);
  out = &it->second;
  return MPI_SUCCESS;
}


}  // namespace

namespace mpi::rma {

int delete_window_attributes(Window& w) {
  int first = MPI_SUCCESS;
  auto attributes = std::move(w.attributes);
  w.attributes.clear();
  for (const auto& [key, value] : attributes) {
    Keyval* kv = nullptr;
    if (user_keyval(key, kv) != MPI_SUCCESS) continue;
    const int rc = kv->run_delete(w.handle, key, value);
    if (first == MPI_SUCCESS) first = rc;
  }
  return first;
}

}  // namespace mpi::rma

namespace {

int get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag, AttrLang reader) {
  constexpr const char* kFn = "MPI_Win_get_attr";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  int rc = check_not_null(attribute_val, "attribute_val");
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise_win(w, kFn, rc);
  if (void* v = predefined(*w, win_keyval)) {
    *static_cast<void**>(attribute_val) = win_keyval == MPI_WIN_BASE ? w->base : v;
    *flag = 1;
    return MPI_SUCCESS;
  }
  Keyval* kv = nullptr;
  if (int e = user_keyval(win_keyval, kv)) return raise_win(w, kFn, e);
  auto it = w->attributes.find(win_keyval);
  *flag = it != w->attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second.read_by(reader);
  return MPI_SUCCESS;
}

int set_attr(MPI_Win win, int win_keyval, AttrValue value) {
  constexpr const char* kFn = "MPI_Win_set_attr";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (predefined(*w, win_keyval) != nullptr) {
    return raise_win(w, kFn, fail(MPI_ERR_KEYVAL, "win_keyval={:#x} is predefined and read-only", win_keyval));
  }
  Keyval* kv = nullptr;
  if (int rc = user_keyval(win_keyval, kv)) return raise_win(w, kFn, rc);
  if (kv->freed) return raise_win(w, kFn, fail(MPI_ERR_KEYVAL, "win_keyval={:#x} was freed", win_keyval));
  auto it = w->attributes.find(win_keyval);
  if (it != w->attributes.end()) {
    if (int rc = kv->run_delete(w->handle, win_keyval, it->second)) return raise_win(w, kFn, rc);
  }
  w->attributes[win_keyval] = value;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const ApiCall call("MPI_Win_get_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr(win, win_keyval, attribute_val, flag, AttrLang::c);
}

extern "C" int MPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const ApiCall call("MPI_Win_set_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return set_attr(win, win_keyval, AttrValue(attribute_val, AttrLang::c));
}

// The Fortran bindings' (fortran_support.h): the value is Fortran's integer.
extern "C" int lapis_f_win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const ApiCall call("MPI_Win_get_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr(win, win_keyval, attribute_val, flag, AttrLang::fortran);
}

extern "C" int lapis_f_win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const ApiCall call("MPI_Win_set_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return set_attr(win, win_keyval, AttrValue(attribute_val, AttrLang::fortran));
}

extern "C" int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  const ApiCall call("MPI_Win_delete_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_delete_attr";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  Keyval* kv = nullptr;
  if (int rc = user_keyval(win_keyval, kv)) return raise_win(w, kFn, rc);
  auto it = w->attributes.find(win_keyval);
  if (it == w->attributes.end()) {
    return raise_win(w, kFn, fail(MPI_ERR_KEYVAL, "win_keyval={:#x} has no value on this window", win_keyval));
  }
  if (int rc = kv->run_delete(w->handle, win_keyval, it->second)) return raise_win(w, kFn, rc);
  w->attributes.erase(win_keyval);
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                     MPI_Win_delete_attr_function* win_delete_attr_fn,
                                     int* win_keyval, void* extra_state) {
  const ApiCall call("MPI_Win_create_keyval");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_create_keyval";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(win_keyval, "win_keyval")) return raise(nullptr, kFn, rc);
  State& s = state();
  const int k = s.next_keyval++;
  // Windows are never duplicated: the copy callback is kept but not called.
  Keyval& kv = s.keyvals[k];
  kv.copy = reinterpret_cast<MPI_Comm_copy_attr_function*>(win_copy_attr_fn);
  kv.del = reinterpret_cast<MPI_Comm_delete_attr_function*>(win_delete_attr_fn);
  kv.extra_state = extra_state;
  *win_keyval = k;
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_free_keyval(int* win_keyval) {
  const ApiCall call("MPI_Win_free_keyval");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_free_keyval";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(win_keyval, "win_keyval")) return raise(nullptr, kFn, rc);
  Keyval* kv = nullptr;
  if (int rc = user_keyval(*win_keyval, kv)) return raise(nullptr, kFn, rc);
  kv->freed = true;  // values already set keep their delete callback
  *win_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

// Info hints: every window behaves as MPI's defaults describe (no hint
// relaxes anything), so MPI_Win_set_info checks its argument and
// MPI_Win_get_info reports those defaults.
extern "C" int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const ApiCall call("MPI_Win_set_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_set_info";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (info != MPI_INFO_NULL && state().infos.find(info) == nullptr) {
    return raise_win(w, kFn, fail(MPI_ERR_INFO, "info={:#x} is not an info object", info));
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const ApiCall call("MPI_Win_get_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Win_get_info";
  Window* w = nullptr;
  if (int rc = open(kFn, win, w)) return raise(nullptr, kFn, rc);
  if (int rc = check_not_null(info_used, "info_used")) return raise_win(w, kFn, rc);
  auto info = std::make_shared<Info>();
  info->set("no_locks", "false");
  info->set("accumulate_ordering", "rar,raw,war,waw");
  info->set("accumulate_ops", "same_op_no_op");
  info->set("same_size", "false");
  info->set("same_disp_unit", "false");
  info->set(kMemoryKindsKey, memory_kinds_of(*w->comm));
  return raise_win(w, kFn, insert_info(std::move(info), info_used, "info_used"));
}
