// The MPI-4.0 large-count ("_c") forms (mpi_proto_large.h) over the int
// forms. A count that fits in an int is passed on as it is. A larger one
// becomes one instance of a contiguous type holding the whole run (extent
// count times the caller's), so its type signature matches the peer's
// however the peer counts, and a gather's root places each rank's block
// where count * extent says. Reductions cannot take a derived type with a
// predefined op, so they run in pieces of at most kPiece elements instead.
#include <climits>
#include <cstdint>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// A count of at most INT_MAX as the int forms take it; a negative one goes
// on as -1 so that the int form names it.
int small_count(MPI_Count count) { return count < 0 ? -1 : static_cast<int>(count); }

// Elements per piece of a large reduction.
constexpr MPI_Count kPiece = MPI_Count{1} << 30;

// `count` instances of `old` as one committed type in the handle table:
// the core's contiguous type, whose outermost repetition is a loop of
// `count` turns however `old` is laid out (a struct of MPI constructors
// with int counts would expand into one entry per instance of a strided
// `old`: 2^31 of them). MPI_Type_get_envelope reports it as
// MPI_COMBINER_CONTIGUOUS with the count in the address array (MPI-4's
// MPI_Type_get_envelope_c, which has a count array, is not here).
int run_of(MPI_Count count, const TypePtr& old, MPI_Datatype old_handle, const char* count_arg,
           MPI_Datatype& out) {
  TypePtr t = Datatype::contiguous(count, old);
  if (t == nullptr) {
    return fail(MPI_ERR_COUNT, "{}={} instances of a type of extent {} do not fit in 2^61 bytes",
                count_arg, count, old->extent());
  }
  std::const_pointer_cast<Datatype>(t)->envelope = std::make_shared<const Envelope>(
      Envelope{MPI_COMBINER_CONTIGUOUS, {}, {count}, {old_handle}, {old}});
  if (int rc = commit_type(*t)) return rc;
  const MPI_Datatype h = state().types.insert(std::move(t));
  if (h == MPI_DATATYPE_NULL) return fail(MPI_ERR_INTERN, "too many datatypes");
  out = h;
  return MPI_SUCCESS;
}

// A count and type the int forms take: the caller's, or a derived type
// freed when this goes out of scope.
class Narrowed {
 public:
  Narrowed() = default;
  Narrowed(const Narrowed&) = delete;
  Narrowed& operator=(const Narrowed&) = delete;
  ~Narrowed() {
    if (owned_ != MPI_DATATYPE_NULL) MPI_Type_free(&owned_);
  }

  // MPI_SUCCESS, or the error class with its detail recorded (nothing
  // raised: the caller raises it under its own name).
  int set(MPI_Count count, MPI_Datatype type, const char* count_arg, const char* type_arg) {
    type_ = type;
    if (count <= INT_MAX) {
      count_ = small_count(count);
      return MPI_SUCCESS;
    }
    TypePtr t;
    if (int rc = lookup_type(type, t, true, type_arg)) return rc;
    if (int rc = run_of(count, t, type, count_arg, owned_)) return rc;
    type_ = owned_;
    count_ = 1;
    return MPI_SUCCESS;
  }

  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Datatype owned_ = MPI_DATATYPE_NULL;
};

// A narrowing failure, raised on `comm` (its handle, not yet checked: an
// unknown one, or MPI_COMM_NULL where there is none, raises on no
// communicator and leaves the narrowing's detail as it is).
int raise_on(MPI_Comm comm, const char* fn, int rc) {
  CommPtr* c = state().comms.find(comm);
  return raise(c != nullptr ? c->get() : nullptr, fn, rc);
}

// The calls with one buffer: `count` and `type` narrowed, then
// int_form(count, type); a failure raised on `comm` under `fn`.
template <typename IntForm>
int narrowed(const char* fn, MPI_Comm comm, MPI_Count count, MPI_Datatype type, IntForm int_form) {
  Narrowed n;
  if (int rc = n.set(count, type, "count", "datatype")) return raise_on(comm, fn, rc);
  return int_form(n.count(), n.type());
}

// `count` elements of `type` from `base` on, in pieces the int forms take;
// run(offset in bytes, elements) does one piece.
template <typename Run>
int in_pieces(MPI_Count count, MPI_Datatype type, Run run) {
  if (count <= INT_MAX) return run(0, small_count(count));
  MPI_Aint lb = 0, extent = 0;
  if (int rc = MPI_Type_get_extent(type, &lb, &extent)) return rc;
  for (MPI_Count done = 0; done < count; done += kPiece) {
    const MPI_Count n = count - done < kPiece ? count - done : kPiece;
    if (int rc = run(static_cast<MPI_Aint>(done * extent), static_cast<int>(n))) return rc;
  }
  return MPI_SUCCESS;
}

template <typename P>
P* at(P* base, MPI_Aint offset) {
  if (base == nullptr || base == MPI_IN_PLACE) return base;
  return reinterpret_cast<P*>(reinterpret_cast<std::uintptr_t>(base) + offset);
}

}  // namespace

// ---- point to point: one buffer, a communicator

#define LAPIS_LARGE_SEND(NAME, INT_FORM)                                                          \
  extern "C" int NAME(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, \
                      MPI_Comm comm) {                                                            \
    const ApiCall call(#NAME);                                                                    \
    if (call.overlaps()) [[unlikely]] return call.refuse();                                       \
    return narrowed(#NAME, comm, count, datatype,                                                 \
                    [&](int n, MPI_Datatype t) { return INT_FORM(buf, n, t, dest, tag, comm); }); \
  }
LAPIS_LARGE_SEND(MPI_Send_c, MPI_Send)
LAPIS_LARGE_SEND(MPI_Bsend_c, MPI_Bsend)
LAPIS_LARGE_SEND(MPI_Ssend_c, MPI_Ssend)
LAPIS_LARGE_SEND(MPI_Rsend_c, MPI_Rsend)
#undef LAPIS_LARGE_SEND

// Nonblocking and persistent forms: the request keeps its own reference
// to the derived type, so freeing ours here is safe (MPI 3.1 section 4.1.9).
#define LAPIS_LARGE_POST(NAME, INT_FORM, BUF)                                                     \
  extern "C" int NAME(BUF buf, MPI_Count count, MPI_Datatype datatype, int peer, int tag,         \
                      MPI_Comm comm, MPI_Request* request) {                                      \
    const ApiCall call(#NAME);                                                                    \
    if (call.overlaps()) [[unlikely]] return call.refuse();                                       \
    return narrowed(#NAME, comm, count, datatype, [&](int n, MPI_Datatype t) {                    \
      return INT_FORM(buf, n, t, peer, tag, comm, request);                                       \
    });                                                                                           \
  }
LAPIS_LARGE_POST(MPI_Isend_c, MPI_Isend, const void*)
LAPIS_LARGE_POST(MPI_Ibsend_c, MPI_Ibsend, const void*)
LAPIS_LARGE_POST(MPI_Issend_c, MPI_Issend, const void*)
LAPIS_LARGE_POST(MPI_Irsend_c, MPI_Irsend, const void*)
LAPIS_LARGE_POST(MPI_Irecv_c, MPI_Irecv, void*)
LAPIS_LARGE_POST(MPI_Send_init_c, MPI_Send_init, const void*)
LAPIS_LARGE_POST(MPI_Bsend_init_c, MPI_Bsend_init, const void*)
LAPIS_LARGE_POST(MPI_Ssend_init_c, MPI_Ssend_init, const void*)
LAPIS_LARGE_POST(MPI_Rsend_init_c, MPI_Rsend_init, const void*)
LAPIS_LARGE_POST(MPI_Recv_init_c, MPI_Recv_init, void*)
#undef LAPIS_LARGE_POST

extern "C" int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                          MPI_Comm comm, MPI_Status* status) {
  const ApiCall call("MPI_Recv_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return narrowed("MPI_Recv_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Recv(buf, n, t, source, tag, comm, status);
  });
}

extern "C" int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                              MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                              MPI_Status* status) {
  const ApiCall call("MPI_Sendrecv_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
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
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return narrowed("MPI_Sendrecv_replace_c", comm, count, datatype, [&](int n, MPI_Datatype t) {
    return MPI_Sendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, status);
  });
}

extern "C" int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Message* message, MPI_Status* status) {
  const ApiCall call("MPI_Mrecv_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return narrowed("MPI_Mrecv_c", MPI_COMM_NULL, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Mrecv(buf, n, t, message, status); });
}

extern "C" int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Message* message, MPI_Request* request) {
  const ApiCall call("MPI_Imrecv_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return narrowed("MPI_Imrecv_c", MPI_COMM_NULL, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Imrecv(buf, n, t, message, request); });
}

// ---- statuses and datatypes: the _x forms already count in MPI_Count
// (MPI_Get_count_c is in status.cc, beside MPI_Get_count)

extern "C" int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype,
                                  MPI_Count* count) {
  const ApiCall call("MPI_Get_elements_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Get_elements_x(status, datatype, count);
}

extern "C" int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  const ApiCall call("MPI_Type_size_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Type_size_x(datatype, size);
}

extern "C" int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const ApiCall call("MPI_Type_get_extent_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Type_get_extent_x(datatype, lb, extent);
}

extern "C" int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                          MPI_Count* true_extent) {
  const ApiCall call("MPI_Type_get_true_extent_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

extern "C" int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
                                     MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_contiguous_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (count <= INT_MAX) {
    return MPI_Type_contiguous(small_count(count), oldtype, newtype);
  }
  int rc = check_not_null(newtype, "newtype");
  TypePtr old;
  if (rc == MPI_SUCCESS) rc = lookup_type(oldtype, old, false, "oldtype");
  if (rc == MPI_SUCCESS) rc = run_of(count, old, oldtype, "count", *newtype);
  return raise(nullptr, "MPI_Type_contiguous_c", rc);
}

// ---- blocking collectives

extern "C" int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
                           MPI_Comm comm) {
  const ApiCall call("MPI_Bcast_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return narrowed("MPI_Bcast_c", comm, count, datatype,
                  [&](int n, MPI_Datatype t) { return MPI_Bcast(buffer, n, t, root, comm); });
}

#define LAPIS_LARGE_EXCHANGE(NAME, INT_FORM, ROOT_PARAM, ROOT_ARG)                                \
  extern "C" int NAME(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,            \
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype ROOT_PARAM,       \
                      MPI_Comm comm) {                                                            \
    const ApiCall call(#NAME);                                                                    \
    if (call.overlaps()) [[unlikely]] return call.refuse();                                       \
    Narrowed s, r;                                                                                \
    /* MPI_IN_PLACE: the send side is not looked at (its type may be anything) */                 \
    int rc = sendbuf == MPI_IN_PLACE ? MPI_SUCCESS                                               \
                                     : s.set(sendcount, sendtype, "sendcount", "sendtype");       \
    if (rc == MPI_SUCCESS) rc = r.set(recvcount, recvtype, "recvcount", "recvtype");              \
    if (rc != MPI_SUCCESS) return raise_on(comm, #NAME, rc);                                      \
    return INT_FORM(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type() ROOT_ARG, comm);   \
  }
#define LAPIS_COMMA ,
LAPIS_LARGE_EXCHANGE(MPI_Gather_c, MPI_Gather, LAPIS_COMMA int root, LAPIS_COMMA root)
LAPIS_LARGE_EXCHANGE(MPI_Scatter_c, MPI_Scatter, LAPIS_COMMA int root, LAPIS_COMMA root)
LAPIS_LARGE_EXCHANGE(MPI_Allgather_c, MPI_Allgather, , )
LAPIS_LARGE_EXCHANGE(MPI_Alltoall_c, MPI_Alltoall, , )
#undef LAPIS_COMMA
#undef LAPIS_LARGE_EXCHANGE

extern "C" int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  const ApiCall call("MPI_Reduce_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Reduce(at(sendbuf, off), at(recvbuf, off), n, datatype, op, root, comm);
  });
}

extern "C" int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const ApiCall call("MPI_Allreduce_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Allreduce(at(sendbuf, off), at(recvbuf, off), n, datatype, op, comm);
  });
}

extern "C" int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Op op) {
  const ApiCall call("MPI_Reduce_local_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return in_pieces(count, datatype, [&](MPI_Aint off, int n) {
    return MPI_Reduce_local(at(inbuf, off), at(inoutbuf, off), n, datatype, op);
  });
}
