#include "mpi/internal/coll/args.hpp"

#include "mpi/internal/builtin_types.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {

int lookup_op(MPI_Op handle, const Op*& out, const char* arg) {
  out = nullptr;
  if (handle == MPI_OP_NULL) return fail(MPI_ERR_OP, "{} is MPI_OP_NULL", arg);
  OpPtr* p = state().ops.find(handle);
  if (p == nullptr) return fail(MPI_ERR_OP, "{}={:#x} is not an operation", arg, handle);
  out = p->get();
  return MPI_SUCCESS;
}

std::string describe_type(const Datatype& type, MPI_Datatype handle) {
  if (!type.name.empty()) return type.name;
  if (type.element_id() == 0) {
    return fmt::format("datatype {:#x} (mixed or no element types)", handle);
  }
  return fmt::format("datatype {:#x} (made of {})", handle,
                     builtin_types()[type.element_id()]->name);
}

int check_op_type(const Op& op, const Datatype& type, MPI_Datatype handle) {
  if (op_accepts(op, type)) return MPI_SUCCESS;
  return fail(MPI_ERR_OP, "op {} is not defined for {}", op.name, describe_type(type, handle));
}

int check_root(const Comm& comm, int root) {
  if (root >= 0 && root < comm.size()) return MPI_SUCCESS;
  return fail(MPI_ERR_ROOT, "root={} is not a rank of the communicator (0..{})", root,
              comm.size() - 1);
}

int check_buffer_args(const BufferArgs& a, const Datatype*& type) {
  int rc = check_count(a.count, a.count_arg);
  if (rc == MPI_SUCCESS) rc = lookup_type(a.datatype, type, true, a.type_arg);
  if (rc == MPI_SUCCESS) rc = check_buffer(a.buf, a.count, *type, a.buf_arg);
  return rc;
}

int check_counts(const int* counts, int n, const char* arg) {
  if (counts == nullptr) return fail(MPI_ERR_ARG, "{} is NULL", arg);
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) return fail(MPI_ERR_COUNT, "{}[{}]={} is negative", arg, i, counts[i]);
  }
  return MPI_SUCCESS;
}

int check_reduce_args(const ReduceArgs& a, const Datatype*& type, const Op*& op) {
  const bool in_place = a.sendbuf == MPI_IN_PLACE;
  int rc = check_count(a.count);
  if (rc == MPI_SUCCESS) rc = lookup_type(a.datatype, type, true);
  if (rc == MPI_SUCCESS) rc = lookup_op(a.op, op);
  if (rc == MPI_SUCCESS) rc = check_op_type(*op, *type, a.datatype);
  if (rc == MPI_SUCCESS && !in_place) rc = check_buffer(a.sendbuf, a.count, *type, "sendbuf");
  if (rc == MPI_SUCCESS && a.recv_here) {
    rc = check_not_in_place(a.recvbuf, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
    if (rc == MPI_SUCCESS) rc = check_buffer(a.recvbuf, a.count, *type, "recvbuf");
    if (rc == MPI_SUCCESS && !in_place && a.sendbuf == a.recvbuf && a.count > 0 &&
        type->size() > 0) {
      rc = fail(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    }
  }
  return rc;
}

int check_not_in_place(const void* buf, const char* arg, const char* why) {
  if (buf != MPI_IN_PLACE) return MPI_SUCCESS;
  return fail(MPI_ERR_BUFFER, "{} is MPI_IN_PLACE: {}", arg, why);
}

int check_no_alias(const void* sendbuf, const void* recvbuf, const void* own_block,
                   const char* send_arg, const char* recv_arg) {
  if (sendbuf == nullptr || sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  if (sendbuf != recvbuf && sendbuf != own_block) return MPI_SUCCESS;
  return fail(MPI_ERR_BUFFER, "{} and {} are the same memory (MPI_IN_PLACE is the way to reuse it)",
              send_arg, recv_arg);
}

}  // namespace mpi
