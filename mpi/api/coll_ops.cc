// Reduction operations: MPI_Op_create / free / commutative and
// MPI_Reduce_local.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

extern "C" int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  const ApiCall call("MPI_Op_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Op_create";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(reinterpret_cast<const void*>(user_fn), "user_fn");
  if (rc == MPI_SUCCESS) rc = check_not_null(op, "op");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  auto created = std::make_shared<const Op>(Op{OpKind::user, user_fn, commute != 0, "user op"});
  MPI_Op h = state().ops.insert(created);
  if (h == MPI_OP_NULL) return raise(nullptr, kFn, fail(MPI_ERR_INTERN, "too many operations"));
  *op = h;
  return MPI_SUCCESS;
}

// MPI 4.0: the same with a function that takes an MPI_Count length; the
// reductions call it through Op::fn_c.
extern "C" int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  const ApiCall call("MPI_Op_create_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Op_create_c";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(reinterpret_cast<const void*>(user_fn), "user_fn");
  if (rc == MPI_SUCCESS) rc = check_not_null(op, "op");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  Op made{OpKind::user, nullptr, commute != 0, "user op"};
  made.fn_c = user_fn;
  MPI_Op h = state().ops.insert(std::make_shared<const Op>(std::move(made)));
  if (h == MPI_OP_NULL) return raise(nullptr, kFn, fail(MPI_ERR_INTERN, "too many operations"));
  *op = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Op_free(MPI_Op* op) {
  const ApiCall call("MPI_Op_free");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Op_free";
  if (int rc = check_running(kFn)) return rc;
  const Op* o = nullptr;
  int rc = check_not_null(op, "op");
  if (rc == MPI_SUCCESS) rc = lookup_op(*op, o);
  if (rc == MPI_SUCCESS && state().ops.is_predefined(*op)) {
    rc = fail(MPI_ERR_OP, "{} is predefined and cannot be freed", o->name);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  state().ops.erase(*op);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_Op_commutative(MPI_Op op, int* commute) {
  const ApiCall call("MPI_Op_commutative");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Op_commutative";
  if (int rc = check_running(kFn)) return rc;
  const Op* o = nullptr;
  int rc = lookup_op(op, o);
  if (rc == MPI_SUCCESS) rc = check_not_null(commute, "commute");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *commute = o->commutative ? 1 : 0;
  return MPI_SUCCESS;
}

extern "C" int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op) {
  const ApiCall call("MPI_Reduce_local");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Reduce_local";
  if (int rc = check_running(kFn)) return rc;
  const Datatype* t = nullptr;
  const Op* o = nullptr;
  // No MPI_IN_PLACE here (MPI 3.1 section 5.9.7): both are real buffers, and distinct ones.
  int rc = check_not_in_place(inbuf, "inbuf", "MPI_Reduce_local takes no MPI_IN_PLACE");
  if (rc == MPI_SUCCESS) {
    rc = check_not_in_place(inoutbuf, "inoutbuf", "MPI_Reduce_local takes no MPI_IN_PLACE");
  }
  if (rc == MPI_SUCCESS) {
    rc = check_buffer_args({inbuf, count, datatype, "inbuf", "count", "datatype"}, t);
  }
  if (rc == MPI_SUCCESS) rc = check_buffer(inoutbuf, count, *t, "inoutbuf");
  if (rc == MPI_SUCCESS) rc = lookup_op(op, o);
  if (rc == MPI_SUCCESS) rc = check_op_type(*o, *t, datatype);
  if (rc == MPI_SUCCESS && inbuf == inoutbuf && count > 0 && t->size() > 0) {
    rc = fail(MPI_ERR_BUFFER, "inbuf and inoutbuf are the same buffer");
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  reduce_layout({o, t, datatype}, inbuf, inoutbuf, count);
  return MPI_SUCCESS;
}
