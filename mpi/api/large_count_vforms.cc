// The MPI-4.0 large-count v and w forms (Gatherv_c, Scatterv_c,
// Allgatherv_c, Alltoallv_c, Alltoallw_c, Reduce_scatter_c and the
// neighbourhood ones; blocking, nonblocking and persistent) over the int
// forms. Their one-count side takes any count (a run type, as in
// large_count_coll.cc); their count and displacement arrays go to the int
// form as int arrays, so every element must fit an int: a larger one is
// MPI_ERR_COUNT naming the array and index, before anything moves
// (internal/large_count.hpp). Arrays are read only where the int form reads
// them (the root's, not MPI_IN_PLACE's), as many as it reads. A nonblocking
// or persistent int form reads its arrays while the request is pending (at
// every MPI_Start), so the converted ones go to its request
// (keep_with_request).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/large_count.hpp"

using namespace mpi;

namespace {

// One count and type, narrowed when the int form reads it here.
int side(Narrowed& n, bool read, MPI_Count count, MPI_Datatype type, const char* count_arg,
         const char* type_arg) {
  if (read) return n.set(count, type, count_arg, type_arg);
  n.ignore(count, type);
  return MPI_SUCCESS;
}

// A counts array and its displacements (displs_out null: the int form
// takes MPI_Aint displacements, passed as they are), converted when the int
// form reads them here, n of each.
struct Arrays {
  IntArray counts, displs;
};
int arrays(Arrays& out, bool read, const MPI_Count* counts, const MPI_Aint* displs, std::int64_t n,
           const char* counts_arg, const char* displs_arg) {
  if (!read) return MPI_SUCCESS;
  int rc = out.counts.set(counts, n, counts_arg, kVFormWhy);
  if (rc == MPI_SUCCESS && displs_arg != nullptr)
    rc = out.displs.set(displs, n, displs_arg, kVFormWhy);
  return rc;
}

// Whether this rank sends its own block in a rooted collective (not the
// root with MPI_IN_PLACE, not the root group of an inter-communicator).
bool local_block(const void* buf, int root) {
  return buf != MPI_IN_PLACE && root != MPI_ROOT && root != MPI_PROC_NULL;
}

template <typename IntForm>
int gatherv(const char* fn, MPI_Request* request, const void* sendbuf, MPI_Count sendcount,
            MPI_Datatype sendtype, const MPI_Count* recvcounts, const MPI_Aint* displs, int root,
            MPI_Comm comm, IntForm int_form) {
  Narrowed s;
  Arrays r;
  int rc = side(s, local_block(sendbuf, root), sendcount, sendtype, "sendcount", "sendtype");
  if (rc == MPI_SUCCESS) {
    rc = arrays(r, is_root(comm, root), recvcounts, displs, blocks_of(comm, Blocks::group),
                "recvcounts", "displs");
  }
  if (rc != MPI_SUCCESS) return raise_on(comm, fn, rc);
  const int result = int_form(s.count(), s.type(), r.counts.data(), r.displs.data());
  if (result == MPI_SUCCESS && request != nullptr)
    keep_with_request(*request, {r.counts.storage(), r.displs.storage()});
  return result;
}

template <typename IntForm>
int scatterv(const char* fn, MPI_Request* request, const MPI_Count* sendcounts,
             const MPI_Aint* displs, const void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm, IntForm int_form) {
  Narrowed r;
  Arrays s;
  int rc = arrays(s, is_root(comm, root), sendcounts, displs, blocks_of(comm, Blocks::group),
                  "sendcounts", "displs");
  if (rc == MPI_SUCCESS) {
    rc = side(r, local_block(recvbuf, root), recvcount, recvtype, "recvcount", "recvtype");
  }
  if (rc != MPI_SUCCESS) return raise_on(comm, fn, rc);
  const int result = int_form(s.counts.data(), s.displs.data(), r.count(), r.type());
  if (result == MPI_SUCCESS && request != nullptr)
    keep_with_request(*request, {s.counts.storage(), s.displs.storage()});
  return result;
}

// Allgatherv and Neighbor_allgatherv (`blocks`: whom the arrays describe).
template <typename IntForm>
int allgatherv(const char* fn, MPI_Request* request, Blocks blocks, const void* sendbuf,
               MPI_Count sendcount, MPI_Datatype sendtype, const MPI_Count* recvcounts,
               const MPI_Aint* displs, MPI_Comm comm, IntForm int_form) {
  Narrowed s;
  Arrays r;
  int rc = side(s, sendbuf != MPI_IN_PLACE, sendcount, sendtype, "sendcount", "sendtype");
  if (rc == MPI_SUCCESS) {
    rc = arrays(r, true, recvcounts, displs, blocks_of(comm, blocks), "recvcounts", "displs");
  }
  if (rc != MPI_SUCCESS) return raise_on(comm, fn, rc);
  const int result = int_form(s.count(), s.type(), r.counts.data(), r.displs.data());
  if (result == MPI_SUCCESS && request != nullptr)
    keep_with_request(*request, {r.counts.storage(), r.displs.storage()});
  return result;
}

// Alltoallv, Alltoallw (int byte displacements) and the neighbourhood
// forms (Neighbor_alltoallw: MPI_Aint displacements, passed on: int_displs
// false).
template <typename IntForm>
int alltoallv(const char* fn, MPI_Request* request, Blocks send_blocks, Blocks recv_blocks,
              bool int_displs, const void* sendbuf, const MPI_Count* sendcounts,
              const MPI_Aint* sdispls, const MPI_Count* recvcounts, const MPI_Aint* rdispls,
              MPI_Comm comm, IntForm int_form) {
  Arrays s, r;
  int rc = arrays(s, sendbuf != MPI_IN_PLACE, sendcounts, sdispls, blocks_of(comm, send_blocks),
                  "sendcounts", int_displs ? "sdispls" : nullptr);
  if (rc == MPI_SUCCESS) {
    rc = arrays(r, true, recvcounts, rdispls, blocks_of(comm, recv_blocks), "recvcounts",
                int_displs ? "rdispls" : nullptr);
  }
  if (rc != MPI_SUCCESS) return raise_on(comm, fn, rc);
  const int result = int_form(s.counts.data(), s.displs.data(), r.counts.data(), r.displs.data());
  if (result == MPI_SUCCESS && request != nullptr)
    keep_with_request(
        *request, {s.counts.storage(), s.displs.storage(), r.counts.storage(), r.displs.storage()});
  return result;
}

}  // namespace

// ---- rooted

extern "C" int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Gatherv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return gatherv("MPI_Gatherv_c", nullptr, sendbuf, sendcount, sendtype, recvcounts, displs, root,
                 comm, [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
                   return MPI_Gatherv(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, root, comm);
                 });
}

extern "C" int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request) {
  const ApiCall call("MPI_Igatherv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return gatherv("MPI_Igatherv_c", request, sendbuf, sendcount, sendtype, recvcounts, displs, root,
                 comm, [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
                   return MPI_Igatherv(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, root, comm,
                                       request);
                 });
}

extern "C" int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Gatherv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return gatherv("MPI_Gatherv_init_c", request, sendbuf, sendcount, sendtype, recvcounts, displs,
                 root, comm, [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
                   return MPI_Gatherv_init(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, root, comm,
                                           info, request);
                 });
}

extern "C" int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Scatterv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return scatterv("MPI_Scatterv_c", nullptr, sendcounts, displs, recvbuf, recvcount, recvtype, root,
                  comm, [&](const int* scs, const int* ds, int rc, MPI_Datatype rt) {
                    return MPI_Scatterv(sendbuf, scs, ds, sendtype, recvbuf, rc, rt, root, comm);
                  });
}

extern "C" int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                               MPI_Request* request) {
  const ApiCall call("MPI_Iscatterv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return scatterv("MPI_Iscatterv_c", request, sendcounts, displs, recvbuf, recvcount, recvtype,
                  root, comm, [&](const int* scs, const int* ds, int rc, MPI_Datatype rt) {
                    return MPI_Iscatterv(sendbuf, scs, ds, sendtype, recvbuf, rc, rt, root, comm,
                                         request);
                  });
}

extern "C" int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Scatterv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return scatterv("MPI_Scatterv_init_c", request, sendcounts, displs, recvbuf, recvcount, recvtype,
                  root, comm, [&](const int* scs, const int* ds, int rc, MPI_Datatype rt) {
                    return MPI_Scatterv_init(sendbuf, scs, ds, sendtype, recvbuf, rc, rt, root,
                                             comm, info, request);
                  });
}

// ---- allgatherv, also over a neighbourhood

extern "C" int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Allgatherv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return allgatherv("MPI_Allgatherv_c", nullptr, Blocks::group, sendbuf, sendcount, sendtype,
                    recvcounts, displs, comm,
                    [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
                      return MPI_Allgatherv(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, comm);
                    });
}

extern "C" int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request* request) {
  const ApiCall call("MPI_Iallgatherv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return allgatherv(
      "MPI_Iallgatherv_c", request, Blocks::group, sendbuf, sendcount, sendtype, recvcounts, displs,
      comm, [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
        return MPI_Iallgatherv(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, comm, request);
      });
}

extern "C" int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                     MPI_Datatype sendtype, void* recvbuf,
                                     const MPI_Count recvcounts[], const MPI_Aint displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                     MPI_Request* request) {
  const ApiCall call("MPI_Allgatherv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return allgatherv("MPI_Allgatherv_init_c", request, Blocks::group, sendbuf, sendcount, sendtype,
                    recvcounts, displs, comm,
                    [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
                      return MPI_Allgatherv_init(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, comm,
                                                 info, request);
                    });
}

extern "C" int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void* recvbuf,
                                         const MPI_Count recvcounts[], const MPI_Aint displs[],
                                         MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_allgatherv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return allgatherv(
      "MPI_Neighbor_allgatherv_c", nullptr, Blocks::neighbor_in, sendbuf, sendcount, sendtype,
      recvcounts, displs, comm, [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
        return MPI_Neighbor_allgatherv(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, comm);
      });
}

extern "C" int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount,
                                          MPI_Datatype sendtype, void* recvbuf,
                                          const MPI_Count recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_allgatherv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return allgatherv(
      "MPI_Ineighbor_allgatherv_c", request, Blocks::neighbor_in, sendbuf, sendcount, sendtype,
      recvcounts, displs, comm, [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
        return MPI_Ineighbor_allgatherv(sendbuf, sc, st, recvbuf, rcs, ds, recvtype, comm, request);
      });
}

extern "C" int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount,
                                              MPI_Datatype sendtype, void* recvbuf,
                                              const MPI_Count recvcounts[], const MPI_Aint displs[],
                                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_allgatherv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return allgatherv("MPI_Neighbor_allgatherv_init_c", request, Blocks::neighbor_in, sendbuf,
                    sendcount, sendtype, recvcounts, displs, comm,
                    [&](int sc, MPI_Datatype st, const int* rcs, const int* ds) {
                      return MPI_Neighbor_allgatherv_init(sendbuf, sc, st, recvbuf, rcs, ds,
                                                          recvtype, comm, info, request);
                    });
}

// ---- all-to-all with counts per peer, also over a neighbourhood

extern "C" int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Alltoallv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Alltoallv_c", nullptr, Blocks::group, Blocks::group, true, sendbuf,
                   sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Alltoallv(sendbuf, scs, sds, sendtype, recvbuf, rcs, rds, recvtype,
                                          comm);
                   });
}

extern "C" int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ialltoallv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Ialltoallv_c", request, Blocks::group, Blocks::group, true, sendbuf,
                   sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Ialltoallv(sendbuf, scs, sds, sendtype, recvbuf, rcs, rds, recvtype,
                                           comm, request);
                   });
}

extern "C" int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  const ApiCall call("MPI_Alltoallv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Alltoallv_init_c", request, Blocks::group, Blocks::group, true, sendbuf,
                   sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Alltoallv_init(sendbuf, scs, sds, sendtype, recvbuf, rcs, rds,
                                               recvtype, comm, info, request);
                   });
}

extern "C" int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm) {
  const ApiCall call("MPI_Alltoallw_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Alltoallw_c", nullptr, Blocks::group, Blocks::group, true, sendbuf,
                   sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Alltoallw(sendbuf, scs, sds, sendtypes, recvbuf, rcs, rds,
                                          recvtypes, comm);
                   });
}

extern "C" int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void* recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ialltoallw_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Ialltoallw_c", request, Blocks::group, Blocks::group, true, sendbuf,
                   sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Ialltoallw(sendbuf, scs, sds, sendtypes, recvbuf, rcs, rds,
                                           recvtypes, comm, request);
                   });
}

extern "C" int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void* recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Alltoallw_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Alltoallw_init_c", request, Blocks::group, Blocks::group, true, sendbuf,
                   sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Alltoallw_init(sendbuf, scs, sds, sendtypes, recvbuf, rcs, rds,
                                               recvtypes, comm, info, request);
                   });
}

extern "C" int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                        const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                        void* recvbuf, const MPI_Count recvcounts[],
                                        const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_alltoallv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Neighbor_alltoallv_c", nullptr, Blocks::neighbor_out, Blocks::neighbor_in,
                   true, sendbuf, sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Neighbor_alltoallv(sendbuf, scs, sds, sendtype, recvbuf, rcs, rds,
                                                   recvtype, comm);
                   });
}

extern "C" int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                         void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_alltoallv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Ineighbor_alltoallv_c", request, Blocks::neighbor_out, Blocks::neighbor_in,
                   true, sendbuf, sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Ineighbor_alltoallv(sendbuf, scs, sds, sendtype, recvbuf, rcs, rds,
                                                    recvtype, comm, request);
                   });
}

extern "C" int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                             const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                             void* recvbuf, const MPI_Count recvcounts[],
                                             const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_alltoallv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Neighbor_alltoallv_init_c", request, Blocks::neighbor_out,
                   Blocks::neighbor_in, true, sendbuf, sendcounts, sdispls, recvcounts, rdispls,
                   comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Neighbor_alltoallv_init(sendbuf, scs, sds, sendtype, recvbuf, rcs,
                                                        rds, recvtype, comm, info, request);
                   });
}

extern "C" int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                        const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                        void* recvbuf, const MPI_Count recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                        MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_alltoallw_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Neighbor_alltoallw_c", nullptr, Blocks::neighbor_out, Blocks::neighbor_in,
                   false, sendbuf, sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Neighbor_alltoallw(sendbuf, scs, sdispls, sendtypes, recvbuf, rcs,
                                                   rdispls, recvtypes, comm);
                   });
}

extern "C" int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                         void* recvbuf, const MPI_Count recvcounts[],
                                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                         MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_alltoallw_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv("MPI_Ineighbor_alltoallw_c", request, Blocks::neighbor_out, Blocks::neighbor_in,
                   false, sendbuf, sendcounts, sdispls, recvcounts, rdispls, comm,
                   [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
                       [[maybe_unused]] const int* rds) {
                     return MPI_Ineighbor_alltoallw(sendbuf, scs, sdispls, sendtypes, recvbuf, rcs,
                                                    rdispls, recvtypes, comm, request);
                   });
}

extern "C" int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                             const MPI_Aint sdispls[],
                                             const MPI_Datatype sendtypes[], void* recvbuf,
                                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                                             MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_alltoallw_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return alltoallv(
      "MPI_Neighbor_alltoallw_init_c", request, Blocks::neighbor_out, Blocks::neighbor_in, false,
      sendbuf, sendcounts, sdispls, recvcounts, rdispls, comm,
      [&](const int* scs, [[maybe_unused]] const int* sds, const int* rcs,
          [[maybe_unused]] const int* rds) {
        return MPI_Neighbor_alltoallw_init(sendbuf, scs, sdispls, sendtypes, recvbuf, rcs, rdispls,
                                           recvtypes, comm, info, request);
      });
}

// ---- Reduce_scatter: recvcounts over the local group

extern "C" int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf,
                                    const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm) {
  const ApiCall call("MPI_Reduce_scatter_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  IntArray counts;
  if (int rc = counts.set(recvcounts, blocks_of(comm, Blocks::local), "recvcounts", kVFormWhy)) {
    return raise_on(comm, "MPI_Reduce_scatter_c", rc);
  }
  return MPI_Reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, comm);
}

extern "C" int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf,
                                     const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                     MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ireduce_scatter_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  IntArray counts;
  if (int rc = counts.set(recvcounts, blocks_of(comm, Blocks::local), "recvcounts", kVFormWhy)) {
    return raise_on(comm, "MPI_Ireduce_scatter_c", rc);
  }
  const int result =
      MPI_Ireduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, comm, request);
  if (result == MPI_SUCCESS) keep_with_request(*request, {counts.storage()});
  return result;
}

extern "C" int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf,
                                         const MPI_Count recvcounts[], MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info,
                                         MPI_Request* request) {
  const ApiCall call("MPI_Reduce_scatter_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  IntArray counts;
  if (int rc = counts.set(recvcounts, blocks_of(comm, Blocks::local), "recvcounts", kVFormWhy)) {
    return raise_on(comm, "MPI_Reduce_scatter_init_c", rc);
  }
  const int result =
      MPI_Reduce_scatter_init(sendbuf, recvbuf, counts.data(), datatype, op, comm, info, request);
  if (result == MPI_SUCCESS) keep_with_request(*request, {counts.storage()});
  return result;
}
