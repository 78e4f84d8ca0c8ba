#pragma once
// The collectives' entry points after the ApiCall guard: validate, then run
// blocking or launch as a nonblocking or persistent collective (`how`,
// nonblocking.hpp). `fn` names the MPI function in error messages. The
// blocking, MPI_I... and MPI_..._init forms of a collective all call one of
// these.

#include <vector>

#include "mpi.h"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/nonblocking.hpp"

namespace mpi {

int coll_barrier(const char* fn, MPI_Comm comm, const CollCall& how);
int coll_bcast(const char* fn, void* buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm, const CollCall& how);
int coll_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, const CollCall& how);
int coll_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const CollCall& how);
// block_form: Reduce_scatter_block, `recvcount` for every rank.
int coll_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, const int* recvcounts,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool block_form,
                        int recvcount, const CollCall& how);
int coll_scan(const char* fn, const void* sendbuf, void* recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive,
              const CollCall& how);

// Gather's send side and scatter's receive side (BufferArgs) is what every
// rank passes (MPI_IN_PLACE allowed at the root only).
using LocalSide = BufferArgs;

// The per-rank blocks only the root looks at: counts and displacements for
// the v-forms, one count for all (regular_count) otherwise.
struct RootSide {
  const void* buf;
  const int* counts;
  const int* displs;
  MPI_Datatype type;
  bool vform;
  int regular_count;
  const char* buf_arg;
  const char* counts_arg;
  const char* type_arg;
};

int coll_gather(const char* fn, const LocalSide& send, const RootSide& recv, int root,
                MPI_Comm comm, const CollCall& how);
int coll_scatter(const char* fn, const RootSide& send, const LocalSide& recv, int root,
                 MPI_Comm comm, const CollCall& how);

// Not vform: `regular_count` for every rank (recvcounts, displs unused).
int coll_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, const int* recvcounts, const int* displs, bool vform,
                   int regular_count, MPI_Datatype recvtype, MPI_Comm comm, const CollCall& how);

// One side of an all-to-all: per-peer counts, byte displacements, types.
struct Side {
  const void* buf;
  const int* counts;
  const int* displs;          // null with `regular`
  const MPI_Datatype* types;  // null: `type` for every peer
  MPI_Datatype type;
  int regular;                // count per peer when counts is null
  bool displs_in_bytes;       // Alltoallw
  const char* buf_arg;
  const char* counts_arg;
  const char* displs_arg;
  const char* type_arg;
};

int coll_alltoall(const char* fn, const Side& send, const Side& recv, MPI_Comm comm,
                  const CollCall& how);

}  // namespace mpi
