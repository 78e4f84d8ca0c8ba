#pragma once
// MPICH's hooks for its C++ bindings. Debian's libmpichcxx.so.12 (what a
// program using MPI:: and built by mpicxx.mpich loads) runs on top of the C
// library and needs three internal entry points besides the MPI interface:
//   MPII_Op_set_cxx(op, call)         MPI::Op::Init: a C++ user function
//   MPII_Errhandler_set_cxx(eh, call) MPI::*::Create_errhandler
//   MPII_Keyval_set_proxy(kv, c, d)   MPI::*::Create_keyval's callbacks
// Each marks the object as C++'s and hands over a C trampoline of the
// bindings that converts the arguments (MPI_Datatype to a const
// MPI::Datatype&, int* to MPI::Comm& ...) and calls the user's function.
// The library calls the user's function through the trampoline from then on.
// Signatures and attribute kinds are MPICH 4.0's (src/include/
// mpii_cxxinterface.h, mpir_attr_generic.h).

#include "mpi.h"
#include "mpi/internal/attr_value.hpp"

extern "C" {
// MPICH's MPIR_Attr_type: how the value was set (C pointer, Fortran
// address-sized integer, Fortran INTEGER); the proxy passes a pointer to
// an integer value and a pointer value as it is.
enum { kMpirAttrPtr = 0, kMpirAttrAint = 1, kMpirAttrInt = 3 };
typedef int(MPII_Attr_copy_proxy)(MPI_Comm_copy_attr_function* user_function, int handle,
                                  int keyval, void* extra_state, int attrib_type, void* attrib,
                                  void** attrib_copy, int* flag);
typedef int(MPII_Attr_delete_proxy)(MPI_Comm_delete_attr_function* user_function, int handle,
                                    int keyval, int attrib_type, void* attrib, void* extra_state);
}

namespace mpi {

// A keyval's callbacks, for every kind of object (communicator, window and
// datatype handles are all ints, so one calling shape serves all three).
struct AttrCallbacks {
  MPI_Comm_copy_attr_function* copy = nullptr;
  MPI_Comm_delete_attr_function* del = nullptr;
  void* extra_state = nullptr;
  // Set by MPII_Keyval_set_proxy: copy and del are C++ functions.
  MPII_Attr_copy_proxy* copy_proxy = nullptr;
  MPII_Attr_delete_proxy* delete_proxy = nullptr;

  // The copy callback (a copy function must be set); returns its result.
  int run_copy(int handle, int keyval, const AttrValue& value, void** out, int* flag) const;
  // The delete callback, if one is set; returns its result.
  int run_delete(int handle, int keyval, const AttrValue& value) const;
};

struct Errhandler;
// What a user handler is attached to: MPICH's C++ trampoline needs it to
// build the right C++ object (the values are MPICH's).
enum class ErrObject { comm = 0, file = 1, win = 2 };

// Calls the user handler `h` for the object whose handle is at `handle`
// (an MPI_Comm, MPI_Win or MPI_File: the handler's first argument) with
// `code`; returns what the failing call returns: `code`, or MPI_SUCCESS
// after a C++ handler (the bindings would otherwise call it a second time,
// as MPICH's library does not).
int call_user_errhandler(const Errhandler& h, ErrObject object, void* handle, int code);

}  // namespace mpi
