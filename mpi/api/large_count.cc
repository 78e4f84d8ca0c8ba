// The MPI-4.0 large-count ("_c") forms of point-to-point, statuses and
// datatype queries, and the attached buffer, over the int forms
// (internal/large_count.hpp says how counts are narrowed). Collectives:
// large_count_coll.cc, large_count_vforms.cc; one-sided: large_count_rma.cc;
// datatypes, packing and ops: large_count_types.cc.
#include "mpi/internal/large_count.hpp"

#include <climits>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"

using namespace mpi;

namespace {

// The calls with one buffer: `count` and `type` narrowed, then
// int_form(count, type); a failure raised on `comm` under `fn`.
template <typename IntForm>
int narrowed(const char* fn, MPI_Comm comm, MPI_Count count, MPI_Datatype type, IntForm int_form) {
  Narrowed n;
  if (int rc = n.set(count, type, "count", "datatype")) return raise_on(comm, fn, rc);
  return int_form(n.count(), n.type());
}

}  // namespace

// ---- point to point: one buffer, a communicator

extern "C" int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                          int tag, MPI_Comm comm) {
  const ApiCall call("MPI_Send_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Send_c", comm, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Send(buf, n, t, dest, tag, comm); });
}

extern "C" int MPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm) {
  const ApiCall call("MPI_Bsend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Bsend_c", comm, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Bsend(buf, n, t, dest, tag, comm); });
}

extern "C" int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm) {
  const ApiCall call("MPI_Ssend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Ssend_c", comm, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Ssend(buf, n, t, dest, tag, comm); });
}

extern "C" int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm) {
  const ApiCall call("MPI_Rsend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Rsend_c", comm, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Rsend(buf, n, t, dest, tag, comm); });
}

// Nonblocking and persistent forms: the request keeps its own reference
// to the derived type, so freeing ours here is safe (MPI 3.1 section 4.1.9).
extern "C" int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Isend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Isend_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Isend(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ibsend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Ibsend_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Ibsend(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Issend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Issend_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Issend(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Irsend_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Irsend_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Irsend(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Irecv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Irecv_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Irecv(buf, n, t, source, tag, comm, request);
  });
}

extern "C" int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Send_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Send_init_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Send_init(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Bsend_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Bsend_init_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Bsend_init(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Ssend_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Ssend_init_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Ssend_init(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Rsend_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Rsend_init_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Rsend_init(buf, n, t, dest, tag, comm, request);
  });
}

extern "C" int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source,
                               int tag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Recv_init_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Recv_init_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Recv_init(buf, n, t, source, tag, comm, request);
  });
}

extern "C" int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Status* status) {
  const ApiCall call("MPI_Recv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Recv_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Recv(buf, n, t, source, tag, comm, status);
  });
}

extern "C" int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                              MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                              MPI_Status* status) {
  const ApiCall call("MPI_Sendrecv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Narrowed s, r;
  int rc = s.set(sendcount, sendtype, "sendcount", "sendtype");
  if (rc == MPI_SUCCESS) rc = r.set(recvcount, recvtype, "recvcount", "recvtype");
  if (rc != MPI_SUCCESS) return raise_on(comm, "MPI_Sendrecv_c", rc);
  return MPI_Sendrecv(sendbuf, s.count(), s.type(), dest, sendtag, recvbuf, r.count(), r.type(),
                      source, recvtag, comm, status);
}

extern "C" int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm comm,
                                      MPI_Status* status) {
  const ApiCall call("MPI_Sendrecv_replace_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Sendrecv_replace_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Sendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, status);
  });
}

// The pair's fiber waits on two requests posted here, each holding its own
// reference to its type.
extern "C" int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                               MPI_Request* request) {
  const ApiCall call("MPI_Isendrecv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  Narrowed s, r;
  int rc = s.set(sendcount, sendtype, "sendcount", "sendtype");
  if (rc == MPI_SUCCESS) rc = r.set(recvcount, recvtype, "recvcount", "recvtype");
  if (rc != MPI_SUCCESS) return raise_on(comm, "MPI_Isendrecv_c", rc);
  return MPI_Isendrecv(sendbuf, s.count(), s.type(), dest, sendtag, recvbuf, r.count(), r.type(),
                       source, recvtag, comm, request);
}

extern "C" int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                       int sendtag, int source, int recvtag, MPI_Comm comm,
                                       MPI_Request* request) {
  const ApiCall call("MPI_Isendrecv_replace_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Isendrecv_replace_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Isendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, request);
  });
}

extern "C" int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                           MPI_Status* status) {
  const ApiCall call("MPI_Mrecv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Mrecv_c", MPI_COMM_NULL, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Mrecv(buf, n, t, message, status); });
}

extern "C" int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                            MPI_Request* request) {
  const ApiCall call("MPI_Imrecv_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return narrowed("MPI_Imrecv_c", MPI_COMM_NULL, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Imrecv(buf, n, t, message, request); });
}

// ---- statuses and datatypes: the _x forms already count in MPI_Count
// (MPI_Get_count_c is in status.cc, beside MPI_Get_count)

extern "C" int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype,
                                  MPI_Count* count) {
  const ApiCall call("MPI_Get_elements_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Get_elements_x(status, datatype, count);
}

extern "C" int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype,
                                         MPI_Count count) {
  const ApiCall call("MPI_Status_set_elements_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Status_set_elements_x(status, datatype, count);
}

extern "C" int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  const ApiCall call("MPI_Type_size_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Type_size_x(datatype, size);
}

extern "C" int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const ApiCall call("MPI_Type_get_extent_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Type_get_extent_x(datatype, lb, extent);
}

extern "C" int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                          MPI_Count* true_extent) {
  const ApiCall call("MPI_Type_get_true_extent_c");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

