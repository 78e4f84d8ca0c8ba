// The MPI-4.0 large-count forms of the collectives that move or reduce one
// count per buffer: blocking, nonblocking (MPI_I..._c) and persistent
// (..._init_c), over the int forms (internal/large_count.hpp). A count
// beyond INT_MAX moves as one instance of a run type, which a pending
// collective keeps its own reference to (coll/nonblocking.hpp: CollOp::keep).
// Reductions: the blocking Reduce, Allreduce, Scan and Exscan run in pieces
// of 2^30 elements (any op); a request or Reduce_scatter_block carries one
// run type, which predefined ops reduce element by element, so there a
// count beyond INT_MAX needs a predefined op.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/large_count.hpp"

using namespace mpi;

namespace {

// Which sides of a two-buffer collective the int form reads here.
enum class Rooted { no, gather, scatter };

// Both sides narrowed (a side the int form does not read passes as given),
// then int_form(sendcount, sendtype, recvcount, recvtype); a failure raised
// on `comm` under `fn`.
template <typename IntForm>
int exchange(const char* fn, MPI_Comm comm, Rooted rooted, int root, const void* sendbuf,
             MPI_Count sendcount, MPI_Datatype sendtype, const void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, IntForm int_form) {
  const bool root_here = rooted != Rooted::no && is_root(comm, root);
  const bool root_group = root == MPI_ROOT || root == MPI_PROC_NULL;  // inter: no local block
  bool send_read = sendbuf != MPI_IN_PLACE, recv_read = recvbuf != MPI_IN_PLACE;
  if (rooted == Rooted::gather) {
    send_read = send_read && !(rooted != Rooted::no && root_group);
    recv_read = recv_read && root_here;
  } else if (rooted == Rooted::scatter) {
    send_read = send_read && root_here;
    recv_read = recv_read && !root_group;
  }
  Narrowed s, r;
  int rc = MPI_SUCCESS;
  if (send_read) {
    rc = s.set(sendcount, sendtype, "sendcount", "sendtype");
  } else {
    s.ignore(sendcount, sendtype);
  }
  if (rc == MPI_SUCCESS && recv_read) {
    rc = r.set(recvcount, recvtype, "recvcount", "recvtype");
  } else {
    r.ignore(recvcount, recvtype);
  }
  if (rc != MPI_SUCCESS) return raise_on(comm, fn, rc);
  return int_form(s.count(), s.type(), r.count(), r.type());
}

// A reduction that one call of the int form must carry whole.
template <typename IntForm>
int reduction(const char* fn, MPI_Comm comm, MPI_Count count, MPI_Datatype type, MPI_Op op,
              IntForm int_form) {
  Narrowed n;
  if (int rc = n.set_reduction(count, type, op, "count")) return raise_on(comm, fn, rc);
  return int_form(n.count(), n.type());
}

template <typename IntForm>
int one_buffer(const char* fn, MPI_Comm comm, MPI_Count count, MPI_Datatype type,
               IntForm int_form) {
  Narrowed n;
  if (int rc = n.set(count, type, "count", "datatype")) return raise_on(comm, fn, rc);
  return int_form(n.count(), n.type());
}

}  // namespace

// ---- one buffer: broadcast

extern "C" int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                           MPI_Comm comm) {
  const ApiCall call("MPI_Bcast_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return one_buffer("MPI_Bcast_c", comm, count, datatype,
                    [&](int n, MPI_Datatype t) { return MPI_Bcast(buffer, n, t, root, comm); });
}

extern "C" int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                            MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ibcast_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return one_buffer("MPI_Ibcast_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Ibcast(buffer, n, t, root, comm, request);
  });
}

extern "C" int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Bcast_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return one_buffer("MPI_Bcast_init_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Bcast_init(buffer, n, t, root, comm, info, request);
  });
}

// ---- two buffers, one count each

extern "C" int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  const ApiCall call("MPI_Gather_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Gather_c", comm, Rooted::gather, root, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Gather(sendbuf, sc, st, recvbuf, rc, rt, root, comm);
                  });
}

extern "C" int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Igather_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Igather_c", comm, Rooted::gather, root, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Igather(sendbuf, sc, st, recvbuf, rc, rt, root, comm, request);
                  });
}

extern "C" int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Gather_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange(
      "MPI_Gather_init_c", comm, Rooted::gather, root, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
        return MPI_Gather_init(sendbuf, sc, st, recvbuf, rc, rt, root, comm, info, request);
      });
}

extern "C" int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm) {
  const ApiCall call("MPI_Scatter_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Scatter_c", comm, Rooted::scatter, root, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Scatter(sendbuf, sc, st, recvbuf, rc, rt, root, comm);
                  });
}

extern "C" int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iscatter_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Iscatter_c", comm, Rooted::scatter, root, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Iscatter(sendbuf, sc, st, recvbuf, rc, rt, root, comm, request);
                  });
}

extern "C" int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Scatter_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange(
      "MPI_Scatter_init_c", comm, Rooted::scatter, root, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
        return MPI_Scatter_init(sendbuf, sc, st, recvbuf, rc, rt, root, comm, info, request);
      });
}

extern "C" int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm) {
  const ApiCall call("MPI_Allgather_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Allgather_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Allgather(sendbuf, sc, st, recvbuf, rc, rt, comm);
                  });
}

extern "C" int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iallgather_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Iallgather_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Iallgather(sendbuf, sc, st, recvbuf, rc, rt, comm, request);
                  });
}

extern "C" int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Allgather_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange(
      "MPI_Allgather_init_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
      recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
        return MPI_Allgather_init(sendbuf, sc, st, recvbuf, rc, rt, comm, info, request);
      });
}

extern "C" int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm) {
  const ApiCall call("MPI_Alltoall_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Alltoall_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Alltoall(sendbuf, sc, st, recvbuf, rc, rt, comm);
                  });
}

extern "C" int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ialltoall_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Ialltoall_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Ialltoall(sendbuf, sc, st, recvbuf, rc, rt, comm, request);
                  });
}

extern "C" int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Alltoall_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Alltoall_init_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Alltoall_init(sendbuf, sc, st, recvbuf, rc, rt, comm, info, request);
                  });
}

// ---- neighbourhood collectives, one count per buffer

extern "C" int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount,
                                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_allgather_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Neighbor_allgather_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Neighbor_allgather(sendbuf, sc, st, recvbuf, rc, rt, comm);
                  });
}

extern "C" int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount,
                                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_allgather_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Ineighbor_allgather_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Ineighbor_allgather(sendbuf, sc, st, recvbuf, rc, rt, comm, request);
                  });
}

extern "C" int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount,
                                             MPI_Datatype sendtype, void* recvbuf,
                                             MPI_Count recvcount, MPI_Datatype recvtype,
                                             MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_allgather_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange(
      "MPI_Neighbor_allgather_init_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
        return MPI_Neighbor_allgather_init(sendbuf, sc, st, recvbuf, rc, rt, comm, info, request);
      });
}

extern "C" int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount,
                                       MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                       MPI_Datatype recvtype, MPI_Comm comm) {
  const ApiCall call("MPI_Neighbor_alltoall_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Neighbor_alltoall_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Neighbor_alltoall(sendbuf, sc, st, recvbuf, rc, rt, comm);
                  });
}

extern "C" int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount,
                                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  const ApiCall call("MPI_Ineighbor_alltoall_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange("MPI_Ineighbor_alltoall_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype,
                  recvbuf, recvcount, recvtype,
                  [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
                    return MPI_Ineighbor_alltoall(sendbuf, sc, st, recvbuf, rc, rt, comm, request);
                  });
}

extern "C" int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount,
                                            MPI_Datatype sendtype, void* recvbuf,
                                            MPI_Count recvcount, MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Neighbor_alltoall_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return exchange(
      "MPI_Neighbor_alltoall_init_c", comm, Rooted::no, 0, sendbuf, sendcount, sendtype, recvbuf,
      recvcount, recvtype, [&](int sc, MPI_Datatype st, int rc, MPI_Datatype rt) {
        return MPI_Neighbor_alltoall_init(sendbuf, sc, st, recvbuf, rc, rt, comm, info, request);
      });
}

// ---- reductions

extern "C" int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Reduce(at(sendbuf, off), at(recvbuf, off), n, datatype, op, root, comm);
  });
}

extern "C" int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                             MPI_Request* request) {
  const ApiCall call("MPI_Ireduce_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Ireduce_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Ireduce(sendbuf, recvbuf, n, t, op, root, comm, request);
  });
}

extern "C" int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Reduce_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Reduce_init_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Reduce_init(sendbuf, recvbuf, n, t, op, root, comm, info, request);
  });
}

extern "C" int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Allreduce_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Allreduce(at(sendbuf, off), at(recvbuf, off), n, datatype, op, comm);
  });
}

extern "C" int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request* request) {
  const ApiCall call("MPI_Iallreduce_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Iallreduce_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Iallreduce(sendbuf, recvbuf, n, t, op, comm, request);
  });
}

extern "C" int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request* request) {
  const ApiCall call("MPI_Allreduce_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Allreduce_init_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Allreduce_init(sendbuf, recvbuf, n, t, op, comm, info, request);
  });
}

extern "C" int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Scan_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Scan(at(sendbuf, off), at(recvbuf, off), n, datatype, op, comm);
  });
}

extern "C" int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Iscan_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Iscan_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Iscan(sendbuf, recvbuf, n, t, op, comm, request);
  });
}

extern "C" int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  const ApiCall call("MPI_Scan_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Scan_init_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Scan_init(sendbuf, recvbuf, n, t, op, comm, info, request);
  });
}

extern "C" int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Exscan_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Exscan(at(sendbuf, off), at(recvbuf, off), n, datatype, op, comm);
  });
}

extern "C" int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Request* request) {
  const ApiCall call("MPI_Iexscan_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Iexscan_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Iexscan(sendbuf, recvbuf, n, t, op, comm, request);
  });
}

extern "C" int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  const ApiCall call("MPI_Exscan_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Exscan_init_c", comm, count, datatype, op, [&](int n, MPI_Datatype t) {
    return MPI_Exscan_init(sendbuf, recvbuf, n, t, op, comm, info, request);
  });
}

extern "C" int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce_scatter_block_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Reduce_scatter_block_c", comm, recvcount, datatype, op,
                   [&](int n, MPI_Datatype t) {
                     return MPI_Reduce_scatter_block(sendbuf, recvbuf, n, t, op, comm);
                   });
}

extern "C" int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                           MPI_Request* request) {
  const ApiCall call("MPI_Ireduce_scatter_block_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction("MPI_Ireduce_scatter_block_c", comm, recvcount, datatype, op,
                   [&](int n, MPI_Datatype t) {
                     return MPI_Ireduce_scatter_block(sendbuf, recvbuf, n, t, op, comm, request);
                   });
}

extern "C" int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf,
                                               MPI_Count recvcount, MPI_Datatype datatype,
                                               MPI_Op op, MPI_Comm comm, MPI_Info info,
                                               MPI_Request* request) {
  const ApiCall call("MPI_Reduce_scatter_block_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return reduction(
      "MPI_Reduce_scatter_block_init_c", comm, recvcount, datatype, op, [&](int n, MPI_Datatype t) {
        return MPI_Reduce_scatter_block_init(sendbuf, recvbuf, n, t, op, comm, info, request);
      });
}

extern "C" int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op) {
  const ApiCall call("MPI_Reduce_local_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Reduce_local(at(inbuf, off), at(inoutbuf, off), n, datatype, op);
  });
}
