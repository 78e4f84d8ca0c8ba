// MPI_Comm_get_attr / set / delete and keyvals.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// Address of the value behind a predefined key, or nullptr.
int* predefined_value(int keyval) {
  State& s = state();
  switch (keyval) {
    case MPI_TAG_UB: return &s.attr_tag_ub;
    case MPI_HOST: return &s.attr_host;
    case MPI_IO: return &s.attr_io;
    case MPI_WTIME_IS_GLOBAL: return &s.attr_wtime_is_global;
    case MPI_UNIVERSE_SIZE: return &s.attr_universe_size;
    case MPI_APPNUM: return &s.attr_appnum;
    case MPI_LASTUSEDCODE: return &s.attr_lastusedcode;
    default: return nullptr;
  }
}

int user_keyval(int keyval, Keyval*& out) {
  auto& kvs = state().keyvals;
  auto it = kvs.find(keyval);
  if (it == kvs.end()) {
    return fail(MPI_ERR_KEYVAL, "keyval={} is not a keyval (MPI_Comm_create_keyval)", keyval);
  }
  out = &it->second;
  return MPI_SUCCESS;
}

}  // namespace

// MPI_DUP_FN / MPI_COMM_DUP_FN (MPICH's name, which its mpi.h makes
// programs reference). The null callbacks are null pointers, which the
// library skips.
extern "C" int MPIR_Dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}

namespace {

int get_attr(const char* fn, MPI_Comm comm, int keyval, void* attribute_val, int* flag, AttrLang reader) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(attribute_val, "attribute_val");
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  if (int* v = predefined_value(keyval)) {
    *static_cast<int**>(attribute_val) = v;
    *flag = 1;
    return MPI_SUCCESS;
  }
  Keyval* kv = nullptr;
  if (int e = user_keyval(keyval, kv)) return raise(c, fn, e);
  auto it = c->attributes.find(keyval);
  *flag = it != c->attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second.read_by(reader);
  return MPI_SUCCESS;
}

int set_attr(const char* fn, MPI_Comm comm, int keyval, AttrValue value) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, fn, rc);
  if (predefined_value(keyval) != nullptr) {
    return raise(c, fn, fail(MPI_ERR_KEYVAL, "keyval={} is predefined and read-only", keyval));
  }
  Keyval* kv = nullptr;
  if (int rc = user_keyval(keyval, kv)) return raise(c, fn, rc);
  if (kv->freed) return raise(c, fn, fail(MPI_ERR_KEYVAL, "keyval={} was freed", keyval));
  auto it = c->attributes.find(keyval);
  if (it != c->attributes.end()) {
    if (int rc = kv->run_delete(c->handle, keyval, it->second)) return raise(c, fn, rc);
  }
  set_attribute(*c, keyval, value);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  const ApiCall call("MPI_Comm_get_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr("MPI_Comm_get_attr", comm, keyval, attribute_val, flag, AttrLang::c);
}

extern "C" int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  const ApiCall call("MPI_Attr_get");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag, AttrLang::c);
}

extern "C" int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  const ApiCall call("MPI_Comm_set_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return set_attr("MPI_Comm_set_attr", comm, keyval, AttrValue(attribute_val, AttrLang::c));
}

// The Fortran bindings' (fortran_support.h): the value is Fortran's integer.
extern "C" int lapis_f_comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  const ApiCall call("MPI_Comm_get_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return get_attr("MPI_Comm_get_attr", comm, keyval, attribute_val, flag, AttrLang::fortran);
}

extern "C" int lapis_f_comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
  const ApiCall call("MPI_Comm_set_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return set_attr("MPI_Comm_set_attr", comm, keyval, AttrValue(attribute_val, AttrLang::fortran));
}

extern "C" int MPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  const ApiCall call("MPI_Comm_delete_attr");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_delete_attr";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, kFn, rc);
  Keyval* kv = nullptr;
  if (int rc = user_keyval(keyval, kv)) return raise(c, kFn, rc);
  auto it = c->attributes.find(keyval);
  if (it == c->attributes.end()) {
    return raise(c, kFn, fail(MPI_ERR_KEYVAL, "keyval={} has no value on this communicator", keyval));
  }
  if (int rc = kv->run_delete(c->handle, keyval, it->second)) return raise(c, kFn, rc);
  erase_attribute(*c, keyval);
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                                      MPI_Comm_delete_attr_function* delete_fn, int* keyval,
                                      void* extra_state) {
  const ApiCall call("MPI_Comm_create_keyval");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_create_keyval";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(keyval, "comm_keyval")) return raise(nullptr, kFn, rc);
  State& s = state();
  int k = s.next_keyval++;
  Keyval& kv = s.keyvals[k];
  kv.copy = copy_fn;
  kv.del = delete_fn;
  kv.extra_state = extra_state;
  *keyval = k;
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_free_keyval(int* keyval) {
  const ApiCall call("MPI_Comm_free_keyval");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_free_keyval";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(keyval, "comm_keyval")) return raise(nullptr, kFn, rc);
  if (predefined_value(*keyval) != nullptr) {
    return raise(nullptr, kFn, fail(MPI_ERR_KEYVAL, "keyval={} is predefined", *keyval));
  }
  Keyval* kv = nullptr;
  if (int rc = user_keyval(*keyval, kv)) return raise(nullptr, kFn, rc);
  // Attributes already set keep working: the entry stays for their delete
  // callbacks; the number is never handed out again (next_keyval only grows).
  kv->freed = true;
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
