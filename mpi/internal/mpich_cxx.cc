#include "mpi/internal/mpich_cxx.hpp"

#include "mpi/internal/api_call.hpp"
#include "mpi/internal/coll/ops.hpp"
#include "mpi/internal/errhandler.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/type_attributes.hpp"

namespace {

// The bindings' trampolines. They are process-wide in MPICH too: the
// bindings hand the same one over with every object they mark.
using CxxErrCall = void (*)(int object, void* handle, int* code, void (*user_function)(void));
CxxErrCall g_err_call = nullptr;

int attrib_type(const mpi::AttrValue& v) {
  return v.set_by == mpi::AttrLang::fortran ? kMpirAttrAint : kMpirAttrPtr;
}

}  // namespace

namespace mpi {

int AttrCallbacks::run_copy(int handle, int keyval, const AttrValue& value, void** out,
                            int* flag) const {
  const int rc = copy_proxy != nullptr
                     ? copy_proxy(copy, handle, keyval, extra_state, attrib_type(value),
                                  value.value, out, flag)
                     : copy(handle, keyval, extra_state, value.value, out, flag);
  if (rc == MPI_SUCCESS) return rc;
  return fail(rc, "the copy callback of keyval {} returned {}", keyval, rc);
}

int AttrCallbacks::run_delete(int handle, int keyval, const AttrValue& value) const {
  if (del == nullptr) return MPI_SUCCESS;
  const int rc = delete_proxy != nullptr
                     ? delete_proxy(del, handle, keyval, attrib_type(value), value.value, extra_state)
                     : del(handle, keyval, value.value, extra_state);
  if (rc == MPI_SUCCESS) return rc;
  return fail(rc, "the delete callback of keyval {} returned {}", keyval, rc);
}

int call_user_errhandler(const Errhandler& h, ErrObject object, void* handle, int code) {
  int c = code;
  if (h.cxx && g_err_call != nullptr) {
    g_err_call(static_cast<int>(object), handle, &c, reinterpret_cast<void (*)(void)>(h.fn));
    return MPI_SUCCESS;
  }
  // Every kind's handler takes a pointer to the handle and to the code.
  h.fn(static_cast<MPI_Comm*>(handle), &c);
  return code;
}

}  // namespace mpi

// The hooks themselves. The bindings call them right after creating the
// object, with a handle they got from the library; a handle that is not
// one (never from the bindings) is ignored: the hooks return nothing.

extern "C" void MPII_Op_set_cxx(MPI_Op op, void (*opcall)(void)) {
  const mpi::ApiCall call("MPII_Op_set_cxx");
  if (call.overlaps()) [[unlikely]] {
    call.refuse();  // reported like any call from a second thread
    return;
  }
  mpi::OpPtr* o = mpi::state().ops.find(op);
  if (o == nullptr || (*o)->kind != mpi::OpKind::user || (*o)->fn == nullptr) return;
  (*o)->cxx = true;
  mpi::set_cxx_op_call(reinterpret_cast<mpi::CxxOpCall>(opcall));
}

extern "C" void MPII_Errhandler_set_cxx(MPI_Errhandler errhandler, void (*errcall)(void)) {
  const mpi::ApiCall call("MPII_Errhandler_set_cxx");
  if (call.overlaps()) [[unlikely]] {
    call.refuse();  // reported like any call from a second thread
    return;
  }
  mpi::ErrhandlerPtr* h = mpi::state().errhandlers.find(errhandler);
  if (h == nullptr || (*h)->kind != mpi::Errhandler::Kind::user) return;
  (*h)->cxx = true;
  g_err_call = reinterpret_cast<CxxErrCall>(errcall);
}

extern "C" void MPII_Keyval_set_proxy(int keyval, MPII_Attr_copy_proxy* copy_proxy,
                                      MPII_Attr_delete_proxy* delete_proxy) {
  const mpi::ApiCall call("MPII_Keyval_set_proxy");
  if (call.overlaps()) [[unlikely]] {
    call.refuse();  // reported like any call from a second thread
    return;
  }
  mpi::AttrCallbacks* callbacks = nullptr;
  auto it = mpi::state().keyvals.find(keyval);
  if (it != mpi::state().keyvals.end()) {
    callbacks = &it->second;
  } else {
    callbacks = mpi::type_keyval_callbacks(keyval);
  }
  if (callbacks == nullptr) return;
  callbacks->copy_proxy = copy_proxy;
  callbacks->delete_proxy = delete_proxy;
}
