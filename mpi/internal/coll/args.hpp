#pragma once
// Argument checks of the collective functions, in the style of checks.hpp:
// each returns MPI_SUCCESS or an error class with a detail sentence naming
// the argument (the caller raises it through the communicator's handler).

#include "mpi.h"
#include "mpi/internal/coll/ops.hpp"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/datatype.hpp"

namespace mpi {

// MPI_ERR_OP for MPI_OP_NULL or a handle that is not an op.
int lookup_op(MPI_Op handle, const Op*& out, const char* arg = "op");
// MPI_ERR_OP when `op` is not defined on `type`, naming both.
int check_op_type(const Op& op, const Datatype& type, MPI_Datatype handle);
// MPI_ERR_ROOT unless 0 <= root < size.
int check_root(const Comm& comm, int root);
// The name a message gives a datatype: its own, or what it is made of.
std::string describe_type(const Datatype& type, MPI_Datatype handle);

// The checks every (buffer, count, datatype) argument of a collective gets:
// count not negative, datatype committed, buffer not null when it holds data.
// `buf_arg`, `count_arg` and `type_arg` name the arguments in messages.
struct BufferArgs {
  const void* buf;
  int count;
  MPI_Datatype datatype;
  const char* buf_arg;
  const char* count_arg;
  const char* type_arg;
};
int check_buffer_args(const BufferArgs& a, const Datatype*& type);
// Same for an array of counts (the v-forms): every count[i] >= 0, each
// displacement array present.
int check_counts(const int* counts, int n, const char* arg);

// The arguments of a reduction (Reduce, Allreduce, Scan, ...): count,
// datatype, op defined on it, send buffer unless MPI_IN_PLACE, receive
// buffer where this rank receives (`recv_here`) and not the send buffer.
struct ReduceArgs {
  const void* sendbuf;
  const void* recvbuf;
  int count;  // instances in each buffer
  MPI_Datatype datatype;
  MPI_Op op;
  bool recv_here;
};
int check_reduce_args(const ReduceArgs& a, const Datatype*& type, const Op*& op);

// MPI_ERR_BUFFER for MPI_IN_PLACE where this rank may not pass it.
int check_not_in_place(const void* buf, const char* arg, const char* why);
// A send buffer that is the receive buffer, or this rank's own block of it
// (`own_block`, null when there is none): the overlap MPI_IN_PLACE is for,
// MPI_ERR_BUFFER as in MPICH. Called before any communication, so a rank
// that passes such buffers returns at once; every rank passing them alike
// finds the same. MPI_IN_PLACE or a null send buffer is not checked.
int check_no_alias(const void* sendbuf, const void* recvbuf, const void* own_block,
                   const char* send_arg, const char* recv_arg);

}  // namespace mpi
