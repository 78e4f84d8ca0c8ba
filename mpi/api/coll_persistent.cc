// The persistent collectives of MPI-4.0, MPI_Barrier_init ...
// MPI_Exscan_init: validated once, then each MPI_Start runs the collective
// as a nonblocking one (coll/nonblocking.hpp); MPI_Request_free frees them.
// `info` must be MPI_INFO_NULL or an info object (no hints are used).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/coll/entry.hpp"

using namespace mpi;

extern "C" int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Barrier_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_barrier("MPI_Barrier_init", comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Bcast_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  const ApiCall call("MPI_Reduce_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm,
                     {CollMode::persistent, request, info});
}

extern "C" int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const ApiCall call("MPI_Allreduce_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allreduce("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm,
                        {CollMode::persistent, request, info});
}

extern "C" int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Gather_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_gather("MPI_Gather_init",
                     {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                     {recvbuf, nullptr, nullptr, recvtype, false, recvcount, "recvbuf", "recvcount", "recvtype"},
                     root, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  const ApiCall call("MPI_Gatherv_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_gather("MPI_Gatherv_init",
                     {sendbuf, sendcount, sendtype, "sendbuf", "sendcount", "sendtype"},
                     {recvbuf, recvcounts, displs, recvtype, true, 0, "recvbuf", "recvcounts", "recvtype"},
                     root, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Scatter_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scatter("MPI_Scatter_init",
                      {sendbuf, nullptr, nullptr, sendtype, false, sendcount, "sendbuf", "sendcount", "sendtype"},
                      {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root,
                      comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                                 MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  const ApiCall call("MPI_Scatterv_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scatter("MPI_Scatterv_init",
                      {sendbuf, sendcounts, displs, sendtype, true, 0, "sendbuf", "sendcounts", "sendtype"},
                      {recvbuf, recvcount, recvtype, "recvbuf", "recvcount", "recvtype"}, root,
                      comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Allgather_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, nullptr,
                        nullptr, false, recvcount, recvtype, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  const ApiCall call("MPI_Allgatherv_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, true, 0, recvtype, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Alltoall_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Alltoall_init",
                       {sendbuf, nullptr, nullptr, nullptr, sendtype, sendcount, false, "sendbuf", "sendcount", "sdispls", "sendtype"},
                       {recvbuf, nullptr, nullptr, nullptr, recvtype, recvcount, false, "recvbuf", "recvcount", "rdispls", "recvtype"},
                       comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Alltoallv_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Alltoallv_init",
                       {sendbuf, sendcounts, sdispls, nullptr, sendtype, 0, false, "sendbuf", "sendcounts", "sdispls", "sendtype"},
                       {recvbuf, recvcounts, rdispls, nullptr, recvtype, 0, false, "recvbuf", "recvcounts", "rdispls", "recvtype"},
                       comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf,
                                  const int recvcounts[], const int rdispls[],
                                  const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const ApiCall call("MPI_Alltoallw_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_alltoall("MPI_Alltoallw_init",
                       {sendbuf, sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, 0, true, "sendbuf", "sendcounts", "sdispls", "sendtypes"},
                       {recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, 0, true, "recvbuf", "recvcounts", "rdispls", "recvtypes"},
                       comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                       MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Reduce_scatter_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm, false, 0, {CollMode::persistent, request, info});
}

extern "C" int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                             MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Reduce_scatter_block_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_reduce_scatter("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, nullptr, datatype,
                             op, comm, true, recvcount, {CollMode::persistent, request, info});
}

extern "C" int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Scan_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scan("MPI_Scan_init", sendbuf, recvbuf, count, datatype, op, comm, false,
                   {CollMode::persistent, request, info});
}

extern "C" int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Exscan_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return coll_scan("MPI_Exscan_init", sendbuf, recvbuf, count, datatype, op, comm, true,
                   {CollMode::persistent, request, info});
}

