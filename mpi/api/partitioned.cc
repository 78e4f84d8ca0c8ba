// Partitioned point-to-point (MPI 4.0): MPI_Psend_init, MPI_Precv_init,
// MPI_Pready(_range, _list), MPI_Parrived. The design is in
// internal/partitioned.hpp; MPI_Start(all) and the Wait/Test family do the rest.
#include <climits>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_post.hpp"
#include "mpi/internal/partitioned.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;

namespace {

// The checks of MPI_Psend_init / MPI_Precv_init beyond those of
// MPI_Send_init / MPI_Recv_init (which see partitions * count elements).
int check_partition_args(int partitions, MPI_Count count, int peer, int tag, bool send,
                         MPI_Info info, int& total) {
  if (partitions < 1) {
    return fail(MPI_ERR_ARG, "partitions={} must be at least 1", partitions);
  }
  if (count < 0) return fail(MPI_ERR_COUNT, "count={} is negative", count);
  if (count > INT_MAX / partitions) {
    return fail(MPI_ERR_COUNT, "partitions={} times count={} exceeds {} elements", partitions,
                count, INT_MAX);
  }
  if (!send && peer == MPI_ANY_SOURCE) {
    return fail(MPI_ERR_RANK, "source=MPI_ANY_SOURCE is not allowed for a partitioned receive");
  }
  if (!send && tag == MPI_ANY_TAG) {
    return fail(MPI_ERR_TAG, "tag=MPI_ANY_TAG is not allowed for a partitioned receive");
  }
  if (int rc = check_info_arg(info)) return rc;
  total = static_cast<int>(partitions * count);
  return MPI_SUCCESS;
}

int partitioned_init(const char* fn, RequestKind kind, void* buf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  if (int rc = check_running(fn)) return rc;
  const bool send = kind == RequestKind::send;
  int total = 0;
  if (int rc = check_partition_args(partitions, count, peer, tag, send, info, total)) {
    Comm* c = nullptr;
    const int saved = rc;
    const std::string detail(error_detail());
    (void)lookup_comm(comm, c);
    set_error_detail(detail);
    return raise(c, fn, saved);
  }
  PostArgs a{kind, buf, total, datatype, peer, tag, comm};
  if (int rc = post_request(fn, a, true, request)) return rc;  // raised
  Request* r = requests().find(*request);
  auto part = std::make_shared<Partitioned>();
  part->send = send;
  part->partitions = partitions;
  part->count = static_cast<long>(count);
  part->ready.assign(static_cast<std::size_t>(partitions), 0);
  r->part = std::move(part);
  return MPI_SUCCESS;
}

// The partitioned request behind `handle`, which must be a send (MPI_Pready*)
// or a receive (MPI_Parrived).
int find_partitioned(MPI_Request handle, bool want_send, Request*& r) {
  r = requests().find(handle);
  if (r == nullptr || r->part == nullptr) {
    r = nullptr;
    return fail(MPI_ERR_REQUEST, "request={:#x} is not a partitioned request", handle);
  }
  if (r->part->send != want_send) {
    return want_send ? fail(MPI_ERR_REQUEST,
                            "request={:#x} is a partitioned receive (MPI_Pready needs a send)",
                            handle)
                     : fail(MPI_ERR_REQUEST,
                            "request={:#x} is a partitioned send (MPI_Parrived needs a receive)",
                            handle);
  }
  return MPI_SUCCESS;
}

// For the MPI_Pready family: an active partitioned send.
int find_ready_target(MPI_Request handle, Request*& r) {
  if (int rc = find_partitioned(handle, true, r)) return rc;
  if (!r->active) {
    return fail(MPI_ERR_REQUEST, "request={:#x} is inactive (MPI_Start it before MPI_Pready)",
                handle);
  }
  return MPI_SUCCESS;
}

// Partition `p` (named `arg`) may be marked ready now; `marked` holds the
// marks so far, including earlier ones of the same call.
int check_ready_partition(const Partitioned& part, const std::vector<std::uint8_t>& marked, int p,
                          const std::string& arg) {
  if (p < 0 || p >= part.partitions) {
    return fail(MPI_ERR_ARG, "{}={} is outside the request's partitions 0..{}", arg, p,
                part.partitions - 1);
  }
  if (marked[static_cast<std::size_t>(p)] != 0) {
    return fail(MPI_ERR_ARG, "{}={}: partition {} is already marked ready in this epoch", arg, p,
                p);
  }
  return MPI_SUCCESS;
}

// Marks the (checked) partitions ready; the last one posts the send.
int mark_ready(Request& r, const std::vector<int>& parts) {
  for (int p : parts) {
    if (int rc = pready_one(r, p)) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Psend_init(const void* buf, int partitions, MPI_Count count,
                              MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                              MPI_Info info, MPI_Request* request) {
  const ApiCall call("MPI_Psend_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return partitioned_init("MPI_Psend_init", RequestKind::send, const_cast<void*>(buf), partitions,
                          count, datatype, dest, tag, comm, info, request);
}

extern "C" int MPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                              int source, int tag, MPI_Comm comm, MPI_Info info,
                              MPI_Request* request) {
  const ApiCall call("MPI_Precv_init");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return partitioned_init("MPI_Precv_init", RequestKind::recv, buf, partitions, count, datatype,
                          source, tag, comm, info, request);
}

extern "C" int MPI_Pready(int partition, MPI_Request request) {
  const ApiCall call("MPI_Pready");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Pready";
  if (int rc = check_running(kFn)) return rc;
  Request* r = nullptr;
  int rc = find_ready_target(request, r);
  if (rc == MPI_SUCCESS) rc = check_ready_partition(*r->part, r->part->ready, partition, "partition");
  if (rc == MPI_SUCCESS) rc = mark_ready(*r, {partition});
  return raise(r ? r->comm.get() : nullptr, kFn, rc);
}

extern "C" int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  const ApiCall call("MPI_Pready_range");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Pready_range";
  if (int rc = check_running(kFn)) return rc;
  Request* r = nullptr;
  int rc = find_ready_target(request, r);
  std::vector<int> parts;
  if (rc == MPI_SUCCESS) {
    const Partitioned& part = *r->part;
    if (partition_low < 0 || partition_low >= part.partitions) {
      rc = fail(MPI_ERR_ARG, "partition_low={} is outside the request's partitions 0..{}",
                partition_low, part.partitions - 1);
    } else if (partition_high < partition_low || partition_high >= part.partitions) {
      rc = fail(MPI_ERR_ARG, "partition_high={} is outside partition_low={}..{}", partition_high,
                partition_low, part.partitions - 1);
    }
    for (int p = partition_low; rc == MPI_SUCCESS && p <= partition_high; ++p) {
      rc = check_ready_partition(part, part.ready, p, "partition_low..partition_high: partition");
      parts.push_back(p);
    }
  }
  if (rc == MPI_SUCCESS) rc = mark_ready(*r, parts);
  return raise(r ? r->comm.get() : nullptr, kFn, rc);
}

extern "C" int MPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) {
  const ApiCall call("MPI_Pready_list");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Pready_list";
  if (int rc = check_running(kFn)) return rc;
  Request* r = nullptr;
  int rc = find_ready_target(request, r);
  if (rc == MPI_SUCCESS) rc = check_count(length, "length");
  if (rc == MPI_SUCCESS && length > 0) rc = check_not_null(array_of_partitions, "array_of_partitions");
  std::vector<int> parts;
  if (rc == MPI_SUCCESS) {
    std::vector<std::uint8_t> marked = r->part->ready;  // catches repeats within the list too
    for (int i = 0; rc == MPI_SUCCESS && i < length; ++i) {
      const int p = array_of_partitions[i];
      rc = check_ready_partition(*r->part, marked, p, fmt::format("array_of_partitions[{}]", i));
      if (rc == MPI_SUCCESS) {
        marked[static_cast<std::size_t>(p)] = 1;
        parts.push_back(p);
      }
    }
  }
  if (rc == MPI_SUCCESS) rc = mark_ready(*r, parts);
  return raise(r ? r->comm.get() : nullptr, kFn, rc);
}

// Every partition arrives when the whole receive has completed
// (partitioned.hpp). An inactive request (not started, or completed by
// MPI_Wait/Test) reports arrived: its data, if any, is in the buffer.
extern "C" int MPI_Parrived(MPI_Request request, int partition, int* flag) {
  const ApiCall call("MPI_Parrived");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Parrived";
  if (int rc = check_running(kFn)) return rc;
  Request* r = nullptr;
  int rc = find_partitioned(request, false, r);
  if (rc == MPI_SUCCESS) rc = check_not_null(flag, "flag");
  if (rc == MPI_SUCCESS && (partition < 0 || partition >= r->part->partitions)) {
    rc = fail(MPI_ERR_ARG, "partition={} is outside the request's partitions 0..{}", partition,
              r->part->partitions - 1);
  }
  if (rc != MPI_SUCCESS) return raise(r ? r->comm.get() : nullptr, kFn, rc);
  if (!r->active || r->engine == nullptr) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  bool done = false;
  mpcpi::Status es;
  mpcpi::Errc err = engine().peek(r->engine, done, &es);
  if (!done && err == mpcpi::Errc::success) {
    (void)engine().progress();
    err = engine().peek(r->engine, done, &es);
  }
  // A failed receive reports through MPI_Wait/Test; the flag says it ended.
  *flag = done ? 1 : 0;
  // The data must be in the user's buffer once the flag says so.
  if (done && r->unpack && !es.cancelled) {
    unpack(*r->type, r->buf, r->count, r->staging.data.get(), static_cast<std::int64_t>(es.bytes));
    r->unpack = false;
  }
  return MPI_SUCCESS;
}
