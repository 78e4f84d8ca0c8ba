// Neighbourhood collectives on a communicator with a topology:
// MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) and their MPI_I...
// forms. A rank receives block i from its i-th source and sends block i to
// its i-th destination (topology.hpp: Neighborhood).
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/args.hpp"
#include "mpi/internal/coll/neighbor.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"
#include "mpi/internal/topology.hpp"

using namespace mpi;

namespace {

// How one side's blocks lie in its buffer.
enum class Layout {
  one_block,  // allgather's send side: the same block to every peer
  regular,    // `regular` instances per peer, back to back
  vform,      // counts[i] at displs[i] extents
  wform,      // counts[i] of types[i] at byte_displs[i] bytes
};

// One side of a neighbourhood collective, over the peers' blocks.
struct NbrSide {
  Layout layout;
  const void* buf;
  int regular;
  MPI_Datatype type;
  const int* counts;
  const int* displs;
  const MPI_Aint* byte_displs;
  const MPI_Datatype* types;
  const char* buf_arg;
  const char* counts_arg;
  const char* displs_arg;
  const char* type_arg;
};

int parts_of(const NbrSide& s, const std::vector<int>& peers, std::vector<NeighborPart>& parts) {
  const int n = static_cast<int>(peers.size());
  if (int rc =
          check_not_in_place(s.buf, s.buf_arg, "neighbourhood collectives take no MPI_IN_PLACE")) {
    return rc;
  }
  const bool per_peer = s.layout == Layout::vform || s.layout == Layout::wform;
  if (!per_peer) {
    if (int rc = check_count(s.regular, s.counts_arg)) return rc;
  } else {
    if (int rc = check_counts(s.counts, n, s.counts_arg)) return rc;
    const void* displs = s.layout == Layout::wform ? static_cast<const void*>(s.byte_displs)
                                                   : static_cast<const void*>(s.displs);
    if (int rc = check_not_null(displs, s.displs_arg)) return rc;
  }
  if (s.layout == Layout::wform) {
    if (int rc = check_not_null(s.types, s.type_arg)) return rc;
  }
  parts.resize(n);
  std::int64_t next = 0;
  for (int i = 0; i < n; ++i) {
    const Datatype* t = nullptr;
    const MPI_Datatype h = s.layout == Layout::wform ? s.types[i] : s.type;
    if (int rc = lookup_type(h, t, true, s.type_arg)) return rc;
    const std::int64_t count = per_peer ? s.counts[i] : s.regular;
    if (int rc = check_buffer(s.buf, static_cast<int>(count), *t, s.buf_arg)) return rc;
    std::int64_t offset = 0;
    switch (s.layout) {
      case Layout::one_block:
        break;
      case Layout::regular:
        offset = next * t->extent();
        next += count;
        break;
      case Layout::vform:
        offset = std::int64_t{s.displs[i]} * t->extent();
        break;
      case Layout::wform:
        offset = s.byte_displs[i];
        break;
    }
    parts[i] = {peers[i], reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(s.buf) + offset),
                count, t};
  }
  return MPI_SUCCESS;
}

int coll_neighbor(const char* fn, const NbrSide& send, const NbrSide& recv, MPI_Comm comm,
                  const CollCall& how) {
  if (int rc = check_running(fn)) return rc;
  Comm* c = nullptr;
  const Topology* t = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_topology(*c, t);
  std::vector<NeighborPart> sends, recvs;
  Neighborhood hood;
  if (rc == MPI_SUCCESS) {
    hood = neighborhood(*t, c->rank);
    rc = parts_of(send, hood.destinations, sends);
  }
  if (rc == MPI_SUCCESS) rc = parts_of(recv, hood.sources, recvs);
  if (rc != MPI_SUCCESS) return raise(c, fn, rc);
  std::vector<NeighborPart> ordered;
  ordered.reserve(sends.size());
  for (int i : hood.send_order) ordered.push_back(sends[i]);
  auto keep = [&] {
    auto k = keep_objects(comm, {send.layout == Layout::wform ? MPI_DATATYPE_NULL : send.type,
                                 recv.layout == Layout::wform ? MPI_DATATYPE_NULL : recv.type});
    if (send.layout == Layout::wform) {
      keep_types(k, send.types, static_cast<int>(hood.destinations.size()));
    }
    if (recv.layout == Layout::wform) {
      keep_types(k, recv.types, static_cast<int>(hood.sources.size()));
    }
    return k;
  };
  return run_collective(
      *c, fn, how, keep,
      [=, sends = std::move(ordered), recvs = std::move(recvs)](std::uint32_t seq) {
        CollChannel ch(*c, CollTag::neighbor, seq);
        return ch.carrying_on([&] { return neighbor_run(ch, sends, recvs); });
      });
}

int neighbor_allgather(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, bool vform, const int* recvcounts, const int* displs,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const CollCall& how) {
  return coll_neighbor(
      fn,
      {Layout::one_block, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, nullptr,
       "sendbuf", "sendcount", "", "sendtype"},
      {vform ? Layout::vform : Layout::regular, recvbuf, recvcount, recvtype, recvcounts, displs,
       nullptr, nullptr, "recvbuf", vform ? "recvcounts" : "recvcount", "displs", "recvtype"},
      comm, how);
}

int neighbor_alltoall(const char* fn, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      const CollCall& how) {
  return coll_neighbor(fn,
                       {Layout::regular, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr,
                        nullptr, "sendbuf", "sendcount", "sdispls", "sendtype"},
                       {Layout::regular, recvbuf, recvcount, recvtype, nullptr, nullptr, nullptr,
                        nullptr, "recvbuf", "recvcount", "rdispls", "recvtype"},
                       comm, how);
}

int neighbor_alltoallv(const char* fn, const void* sendbuf, const int* sendcounts,
                       const int* sdispls, MPI_Datatype sendtype, void* recvbuf,
                       const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                       MPI_Comm comm, const CollCall& how) {
  return coll_neighbor(fn,
                       {Layout::vform, sendbuf, 0, sendtype, sendcounts, sdispls, nullptr, nullptr,
                        "sendbuf", "sendcounts", "sdispls", "sendtype"},
                       {Layout::vform, recvbuf, 0, recvtype, recvcounts, rdispls, nullptr, nullptr,
                        "recvbuf", "recvcounts", "rdispls", "recvtype"},
                       comm, how);
}

int neighbor_alltoallw(const char* fn, const void* sendbuf, const int* sendcounts,
                       const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                       const int* recvcounts, const MPI_Aint* rdispls,
                       const MPI_Datatype* recvtypes, MPI_Comm comm, const CollCall& how) {
  return coll_neighbor(fn,
                       {Layout::wform, sendbuf, 0, MPI_DATATYPE_NULL, sendcounts, nullptr, sdispls,
                        sendtypes, "sendbuf", "sendcounts", "sdispls", "sendtypes"},
                       {Layout::wform, recvbuf, 0, MPI_DATATYPE_NULL, recvcounts, nullptr, rdispls,
                        recvtypes, "recvbuf", "recvcounts", "rdispls", "recvtypes"},
                       comm, how);
}

}  // namespace

extern "C" int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_allgather");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_allgather";
  return neighbor_allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr,
                            recvcount, recvtype, comm, {});
}

extern "C" int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_allgather");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Ineighbor_allgather";
  return neighbor_allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr,
                            recvcount, recvtype, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, const int recvcounts[], const int displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_allgatherv");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_allgatherv";
  return neighbor_allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0,
                            recvtype, comm, {});
}

extern "C" int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_allgatherv");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Ineighbor_allgatherv";
  return neighbor_allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0,
                            recvtype, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_alltoall");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_alltoall";
  return neighbor_alltoall(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           {});
}

extern "C" int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_alltoall");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Ineighbor_alltoall";
  return neighbor_alltoall(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           {CollMode::nonblocking, request});
}

extern "C" int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                      const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                      const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_alltoallv");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_alltoallv";
  return neighbor_alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, {});
}

extern "C" int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_alltoallv");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Ineighbor_alltoallv";
  return neighbor_alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, {CollMode::nonblocking, request});
}

extern "C" int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                      void* recvbuf, const int recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                      MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_alltoallw");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_alltoallw";
  return neighbor_alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes, comm, {});
}

extern "C" int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[],
                                       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                       void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                       MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_alltoallw");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Ineighbor_alltoallw";
  return neighbor_alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes, comm, {CollMode::nonblocking, request});
}

// Persistent (MPI 4.0): validated once, started with MPI_Start/MPI_Startall.

extern "C" int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_allgather_init");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_allgather_init";
  return neighbor_allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, false, nullptr, nullptr,
                            recvcount, recvtype, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void* recvbuf,
                                            const int recvcounts[], const int displs[],
                                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                            MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_allgatherv_init");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_allgatherv_init";
  return neighbor_allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, true, recvcounts, displs, 0,
                            recvtype, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_alltoall_init");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_alltoall_init";
  return neighbor_alltoall(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           {CollMode::persistent, request, info});
}

extern "C" int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[],
                                           const int sdispls[], MPI_Datatype sendtype,
                                           void* recvbuf, const int recvcounts[],
                                           const int rdispls[], MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_alltoallv_init");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_alltoallv_init";
  return neighbor_alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, comm, {CollMode::persistent, request, info});
}

extern "C" int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                           void* recvbuf, const int recvcounts[],
                                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                           MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_alltoallw_init");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Neighbor_alltoallw_init";
  return neighbor_alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes, comm, {CollMode::persistent, request, info});
}
