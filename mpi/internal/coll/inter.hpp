#pragma once
// Collectives on inter-communicators (MPI 3.1 section 5.2.2): the data of
// one group goes to the other. Each is built from the intra-communicator
// algorithms run in the local group (Comm::local) and point-to-point
// between the groups (a CollChannel on the inter-communicator addresses
// remote ranks), with the standard's roots: MPI_ROOT at the root,
// MPI_PROC_NULL at the rest of its group, the root's remote rank in the
// other group. MPI_IN_PLACE is not allowed; MPI_Scan and MPI_Exscan are
// MPI_ERR_COMM. The coll_* entry points (entry.hpp) call these once they
// see an inter-communicator, so the nonblocking and persistent forms come
// with them.

#include "mpi.h"
#include "mpi/internal/coll/entry.hpp"
#include "mpi/internal/coll/exchange.hpp"

namespace mpi {

int inter_barrier(const char* fn, Comm& c, MPI_Comm comm, const CollCall& how);
int inter_bcast(const char* fn, void* buffer, int count, MPI_Datatype datatype, int root,
                Comm& c, MPI_Comm comm, const CollCall& how);
int inter_reduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, Comm& c, MPI_Comm comm,
                 const CollCall& how);
int inter_allreduce(const char* fn, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, Comm& c, MPI_Comm comm, const CollCall& how);
int inter_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf,
                         const int* recvcounts, MPI_Datatype datatype, MPI_Op op, Comm& c,
                         MPI_Comm comm, bool block_form, int recvcount, const CollCall& how);
int inter_gather(const char* fn, const LocalSide& send, const RootSide& recv, int root, Comm& c,
                 MPI_Comm comm, const CollCall& how);
int inter_scatter(const char* fn, const RootSide& send, const LocalSide& recv, int root, Comm& c,
                  MPI_Comm comm, const CollCall& how);
// Allgather(v) and Alltoall(v,w) validate as on an intra-communicator
// (their counts and types then describe the remote group's blocks) and run
// these on a channel over the inter-communicator: every rank exchanges
// its blocks directly with every remote rank.
int inter_allgather_run(CollChannel& ch, const AllgatherArgs& a);
int inter_alltoall_run(CollChannel& ch, const std::vector<Part>& sends,
                       const std::vector<Part>& recvs);

// MPI_ERR_ROOT unless root is MPI_ROOT, MPI_PROC_NULL or a remote rank.
int check_inter_root(const Comm& c, int root);

}  // namespace mpi
