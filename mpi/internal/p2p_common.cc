#include "mpi/internal/p2p_common.hpp"

#include <vector>

#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/status_fields.hpp"

namespace mpi {

int validate_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, Comm*& c, const Datatype*& t) {
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_count(count);
  if (rc == MPI_SUCCESS) rc = lookup_type(p2p_datatype(datatype, dest), t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(buf, count, *t);
  if (rc == MPI_SUCCESS) rc = check_dest(*c, dest);
  if (rc == MPI_SUCCESS) rc = check_send_tag(tag);
  return rc;
}

int validate_recv(const void* buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, Comm*& c, const Datatype*& t) {
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_count(count);
  if (rc == MPI_SUCCESS) rc = lookup_type(p2p_datatype(datatype, source), t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(buf, count, *t);
  if (rc == MPI_SUCCESS) rc = check_source(*c, source);
  if (rc == MPI_SUCCESS) rc = check_recv_tag(tag);
  return rc;
}

int check_request_ptr(const void* request) { return check_not_null(request, "request"); }

int check_status_ptr(const MPI_Status* status) {
  return check_not_null(status, "status (use MPI_STATUS_IGNORE)");
}

void fill_status(MPI_Status* status, const Comm& c, const mpcpi::Status& es,
                 std::size_t count_bytes, int error_class) {
  if (!wants_status(status)) return;
  status->MPI_SOURCE = es.source >= 0 ? c.peer_rank_of_world(es.source) : MPI_ANY_SOURCE;
  status->MPI_TAG = es.tag;
  status->MPI_ERROR = error_class;
  status->count_hi_and_cancelled = es.cancelled ? 1 : 0;
  set_status_count(*status, static_cast<MPI_Count>(count_bytes));
}

void fill_proc_null_status(MPI_Status* status) {
  if (!wants_status(status)) return;
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->count_lo = 0;
  status->count_hi_and_cancelled = 0;
}

void watch_any_source(const Comm& c) {
  c.any_source_watched = true;
  if (c.is_inter()) return;
  std::vector<lapi::TaskId> members, acknowledged;
  for (int r = 0; r < c.size(); ++r) members.push_back(static_cast<lapi::TaskId>(c.world_of(r)));
  for (int r : c.acked_failed) acknowledged.push_back(static_cast<lapi::TaskId>(c.world_of(r)));
  engine().watch_any_source(c.context(ContextKind::p2p), members, acknowledged);
}

int describe_failure(mpcpi::Errc err, const Comm& c, const mpcpi::Status& es, int peer, int tag,
                     std::int64_t count, const Datatype* type) {
  switch (err) {
    case mpcpi::Errc::truncate:
      return fail(MPI_ERR_TRUNCATE,
                  "message of {} bytes from rank {} (tag {}) is longer than the receive buffer "
                  "({} x {} = {} bytes)",
                  es.message_bytes, es.source >= 0 ? c.peer_rank_of_world(es.source) : -1, es.tag,
                  count, type ? type->name : "?", count * (type ? type->size() : 0));
    case mpcpi::Errc::ready_no_match:
      return fail(MPI_ERR_OTHER,
                  "ready-mode send to rank {} (tag {}) arrived before a matching receive was "
                  "posted",
                  peer, tag);
    default:
      return engine_error(err);
  }
}

}  // namespace mpi
