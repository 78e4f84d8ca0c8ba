#pragma once
// Reduction operations (MPI_Op): the predefined ones and MPI_Op_create's,
// applied to data in the user's layout (MPI_Reduce_local) or to packed
// streams (the collectives, which move packed bytes).
//
// Every application computes inout = in op inout, the argument order of
// MPI_User_function; callers of non-commutative ops pass the lower ranks'
// data as `in`.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/internal/coll/op_kernels.hpp"
#include "mpi/internal/datatype.hpp"

namespace mpi {

struct Op {
  OpKind kind = OpKind::user;
  MPI_User_function* fn = nullptr;  // user ops
  bool commutative = true;
  std::string name;  // "MPI_SUM", or "user op" for MPI_Op_create's
  // MPI_Op_create_c's (MPI 4.0): called with an MPI_Count length instead
  // of fn; exactly one of the two is set for a user op.
  MPI_User_function_c* fn_c = nullptr;
  // Set by MPICH's C++ bindings (MPII_Op_set_cxx, mpich_cxx.cc) right after
  // MPI::Op::Init creates the op: fn is a C++ function, called through
  // the bindings' trampoline.
  mutable bool cxx = false;
};

using OpPtr = std::shared_ptr<const Op>;

// MPICH's C++ bindings' trampoline for the ops they create (mpich_cxx.cc):
// it calls the C++ user function `user_function` as MPI::Op wants it.
using CxxOpCall = void (*)(const void* in, void* inout, int len, MPI_Datatype type,
                           MPI_User_function* user_function);
void set_cxx_op_call(CxxOpCall call);

// Indexed by OpKind: element 0 is null, 1..14 are MPI_MAX ... MPI_NO_OP.
// Built once, never freed.
const std::vector<OpPtr>& builtin_ops();
// mpi.h's handle of a predefined op (not OpKind::user).
MPI_Op builtin_op_handle(OpKind kind);

// Whether `op` is defined on `type`: user ops take every type; predefined
// ones need a type made of one predefined type they take (MPI_REPLACE and
// MPI_NO_OP take any type).
bool op_accepts(const Op& op, const Datatype& type);

// What a reduction needs besides the buffers: the op, the type and its
// handle (user functions receive the handle).
struct Reduction {
  const Op* op = nullptr;
  const Datatype* type = nullptr;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
};

// inout = in op inout for `count` instances of r.type packed back to back
// (count * size bytes each). Precondition: op_accepts(*r.op, *r.type), type
// committed, count fits in an int.
void reduce_packed(const Reduction& r, const void* in, void* inout, std::int64_t count);

// The same on buffers in the user's layout (count instances, extent apart).
void reduce_layout(const Reduction& r, const void* in, void* inout, std::int64_t count);

}  // namespace mpi
