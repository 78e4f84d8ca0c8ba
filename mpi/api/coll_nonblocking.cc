// The nonblocking collectives, MPI_Ibarrier ... MPI_Iexscan: the blocking
// collectives' validation and work (coll/entry.hpp), run on a fiber that
// the MPI calls made afterwards advance (coll/nonblocking.hpp).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/algorithms.hpp"
#include "mpi/internal/coll/entry.hpp"
#include "mpi/internal/coll/inter.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/errors.hpp"

using namespace mpi;

namespace mpi {

// MPI_Barrier keeps internal_barrier (internal tags, no fiber); the
// nonblocking and persistent forms run barrier_run on their own tag.
int coll_barrier(const char* fn, MPI_Comm comm, const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, fn, rc);
  if (c->is_inter()) return inter_barrier(fn, *c, comm, how);
  return run_collective(*c, fn, how, [&] { return keep_objects(comm, {}); },
                        [c](std::uint32_t seq) {
    if (seq == 0 && node_collective(*c, 0)) return node_barrier(*c);  // blocking, one node
    CollChannel ch(*c, CollTag::barrier, seq);
    return barrier_run(ch);
  });
}

}  // namespace mpi

extern "C" int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ibarrier");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_barrier("MPI_Ibarrier", comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                          MPI_Request* request) {
  const ApiCall call("MPI_Ibcast");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ireduce");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                     {CollMode::nonblocking, request});
}

extern "C" int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iallreduce");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm,
                        {CollMode::nonblocking, request});
}

extern "C" int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  const ApiCall call("MPI_Igather");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_gather("MPI_Igather",
                     {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                     {recvbuf, nullptr, nullptr, recvtype, false, recvcount, "recvbuf", "recvcount", "recvtype"},
                     root, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Igatherv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_gather("MPI_Igatherv",
                     {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                     {recvbuf, recvcounts, displs, recvtype, true, 0, "recvbuf", "recvcounts", "recvtype"},
                     root, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iscatter");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scatter("MPI_Iscatter",
                      {sendbuf, nullptr, nullptr, sendtype, false, sendcount, "sendbuf", "sendcount", "sendtype"},
                      {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root,
                      comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                             MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iscatterv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scatter("MPI_Iscatterv",
                      {sendbuf, sendcounts, displs, sendtype, true, 0, "sendbuf", "sendcounts", "sendtype"},
                      {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root,
                      comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  const ApiCall call("MPI_Iallgather");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr,
                        false, recvcount, recvtype, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iallgatherv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, true, 0, recvtype, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  const ApiCall call("MPI_Ialltoall");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Ialltoall",
                       {sendbuf, nullptr, nullptr, nullptr, sendtype, sendcount, false, "sendbuf", "sendcount", "sdispls", "sendtype"},
                       {recvbuf, nullptr, nullptr, nullptr, recvtype, recvcount, false, "recvbuf", "recvcount", "rdispls", "recvtype"},
                       comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  const ApiCall call("MPI_Ialltoallv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Ialltoallv",
                       {sendbuf, sendcounts, sdispls, nullptr, sendtype, 0, false, "sendbuf", "sendcounts", "sdispls", "sendtype"},
                       {recvbuf, recvcounts, rdispls, nullptr, recvtype, 0, false, "recvbuf", "recvcounts", "rdispls", "recvtype"},
                       comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request* request) {
  const ApiCall call("MPI_Ialltoallw");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Ialltoallw",
                       {sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, 0, true, "sendbuf", "sendcounts", "sdispls", "sendtypes"},
                       {recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, 0, true, "recvbuf", "recvcounts", "rdispls", "recvtypes"},
                       comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   MPI_Request* request) {
  const ApiCall call("MPI_Ireduce_scatter");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm, false, 0, {CollMode::nonblocking, request});
}

extern "C" int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                         MPI_Request* request) {
  const ApiCall call("MPI_Ireduce_scatter_block");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, nullptr, datatype, op,
                             comm, true, recvcount, {CollMode::nonblocking, request});
}

extern "C" int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iscan");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, false,
                   {CollMode::nonblocking, request});
}

extern "C" int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iexscan");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, true,
                   {CollMode::nonblocking, request});
}

