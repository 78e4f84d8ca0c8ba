#pragma once
// Steps shared by the point-to-point functions: argument validation, the
// translation of engine results into MPI statuses and error classes.

#include "mpcpi/mpcpi.hpp"
#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/datatype.hpp"

namespace mpi {

// The datatype a call with `peer` works with: MPI_DATATYPE_NULL with
// MPI_PROC_NULL, where nothing moves, counts as MPI_BYTE (MPICH accepts it, and
// its test suite's pt2pt/recvnull checks that).
inline MPI_Datatype p2p_datatype(MPI_Datatype datatype, int peer) {
  return datatype == MPI_DATATYPE_NULL && peer == MPI_PROC_NULL ? MPI_BYTE : datatype;
}

// Communicator, count, datatype (committed), buffer, destination, tag.
// On failure `c` is set when the communicator was valid (for raise()).
int validate_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, Comm*& c, const Datatype*& t);
// Same for receives: source may be MPI_ANY_SOURCE, tag MPI_ANY_TAG.
int validate_recv(const void* buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, Comm*& c, const Datatype*& t);
// MPI_ERR_ARG for a null request pointer, MPI_ERR_ARG for a null status
// pointer (MPI_STATUS_IGNORE is fine).
int check_request_ptr(const void* request);
int check_status_ptr(const MPI_Status* status);

inline bool wants_status(const MPI_Status* status) {
  return status != MPI_STATUS_IGNORE && status != nullptr;
}

// Single-completion calls leave status.MPI_ERROR as the caller set it (MPI
// 3.1 section 3.2.5: only the multiple-completion calls set it, and only
// when they return MPI_ERR_IN_STATUS); the shared status fillers write it,
// so these calls put the caller's value back on the way out.
class KeepStatusError {
 public:
  explicit KeepStatusError(MPI_Status* status)
      : status_(status != nullptr && wants_status(status) ? status : nullptr),
        saved_(status_ != nullptr ? status_->MPI_ERROR : 0) {}
  // An empty status (a null or inactive request: source MPI_ANY_SOURCE, which no message
  // has) keeps the MPI_SUCCESS set_empty_status wrote: the standard defines it with it.
  ~KeepStatusError() {
    if (status_ != nullptr && status_->MPI_SOURCE != MPI_ANY_SOURCE) status_->MPI_ERROR = saved_;
  }
  KeepStatusError(const KeepStatusError&) = delete;
  KeepStatusError& operator=(const KeepStatusError&) = delete;

 private:
  MPI_Status* status_;
  int saved_;
};

// Tells mpcpi the members of c (and the failures acknowledged on it) so
// that its receives from any source follow ULFM's rule (mpcpi's
// watch_any_source): at the first such receive, and again at each
// MPIX_Comm_failure_ack. Inter-communicators are not watched (acknowledging
// is refused there): their receives from any source stay posted.
[[gnu::noinline]] void watch_any_source(const Comm& c);

// Engine source/tag for an MPI source/tag (wildcards translated).
inline int engine_source(const Comm& c, int source) {
  if (source != MPI_ANY_SOURCE) return c.peer_world_of(source);
  if (!c.any_source_watched) [[unlikely]] watch_any_source(c);
  return mpcpi::kAnySource;
}
inline int engine_tag(int tag) { return tag == MPI_ANY_TAG ? mpcpi::kAnyTag : tag; }

// Status of a receive or probe. `count_bytes`: bytes delivered (receive) or
// message size (probe).
void fill_status(MPI_Status* status, const Comm& c, const mpcpi::Status& es,
                 std::size_t count_bytes, int error_class);
// Status of an operation with MPI_PROC_NULL.
void fill_proc_null_status(MPI_Status* status);

// MPI class for an operation that failed in the engine, with a detail
// sentence naming the peer, tag and sizes. `peer` is a communicator rank.
[[gnu::cold, gnu::noinline]]
int describe_failure(mpcpi::Errc err, const Comm& c, const mpcpi::Status& es, int peer, int tag,
                     std::int64_t count, const Datatype* type);

// Argument check for the array forms of Wait and Test (count, null array).
int check_request_array(int count, const MPI_Request* reqs);

// Slot i of an array of statuses, or MPI_STATUS_IGNORE for MPI_STATUSES_IGNORE.
inline MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE || statuses == nullptr ? MPI_STATUS_IGNORE : &statuses[i];
}

}  // namespace mpi
