// MPI-4's MPI_Isendrecv and MPI_Isendrecv_replace: the receive and the send
// are posted at once as two internal requests; one request, completed by a
// fiber that waits for both (coll/nonblocking.hpp), stands for the pair and
// reports the receive's status.
#include <memory>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/fiber.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/p2p_post.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// Posted receive and send; `keep` holds staging the send reads from.
int launch_pair(const char* fn, Comm& c, MPI_Comm comm, MPI_Request recv, MPI_Request send,
                std::shared_ptr<const void> keep, MPI_Request* request) {
  auto status = std::make_shared<MPI_Status>();
  const CollCall how{CollMode::nonblocking, request, MPI_INFO_NULL};
  FiberOpExtras extras;
  extras.takes_seq = false;
  extras.status = status;
  auto objects = keep_objects(comm, {});
  if (keep) objects.push_back(std::move(keep));
  return launch_collective(c, fn, how, std::move(objects), [recv, send, status](std::uint32_t) {
    MPI_Request parts[2] = {recv, send};
    int first = MPI_SUCCESS;
    for (;;) {
      bool pending = false;
      for (int i = 0; i < 2; ++i) {
        if (parts[i] == MPI_REQUEST_NULL) continue;
        bool done = false;
        CommPtr comm_out;
        int rc = test_request(&parts[i], done, i == 0 ? status.get() : MPI_STATUS_IGNORE,
                              comm_out);
        if (!done) {
          pending = true;
          continue;
        }
        if (first == MPI_SUCCESS) first = rc;
      }
      if (!pending) return first;
      Fiber::suspend();
    }
  }, extras);
}

}  // namespace

extern "C" int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                             int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  const ApiCall call("MPI_Isendrecv");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Isendrecv";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = validate_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = validate_recv(recvbuf, recvcount, recvtype, source, recvtag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = check_request_ptr(request);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  MPI_Request parts[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  rc = post_request(kFn, {RequestKind::recv, recvbuf, recvcount, recvtype, source, recvtag, comm},
                    false, &parts[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = post_request(kFn, {RequestKind::send, const_cast<void*>(sendbuf), sendcount, sendtype, dest,
                          sendtag, comm},
                    false, &parts[1]);
  if (rc != MPI_SUCCESS) return rc;
  return launch_pair(kFn, *c, comm, parts[0], parts[1], nullptr, request);
}

extern "C" int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                     MPI_Request* request) {
  const ApiCall call("MPI_Isendrecv_replace");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Isendrecv_replace";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  const Datatype* t = nullptr;
  int rc = validate_send(buf, count, datatype, dest, sendtag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = validate_recv(buf, count, datatype, source, recvtag, comm, c, t);
  if (rc == MPI_SUCCESS) rc = check_request_ptr(request);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // The outgoing data is copied first: the receive lands in buf.
  auto staging = std::make_shared<Staging>();
  const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(t->size());
  if (!staging->try_allocate(bytes)) {
    return raise(c, kFn, fail(MPI_ERR_NO_MEM, "no memory to copy {} bytes of buf", bytes));
  }
  if (dest != MPI_PROC_NULL) pack(*t, buf, count, staging->data.get());
  MPI_Request parts[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  rc = post_request(kFn, {RequestKind::recv, buf, count, datatype, source, recvtag, comm}, false,
                    &parts[0]);
  if (rc != MPI_SUCCESS) return rc;
  rc = post_request(kFn, {RequestKind::send, staging->data.get(), static_cast<int>(bytes), MPI_BYTE,
                          dest, sendtag, comm},
                    false, &parts[1]);
  if (rc != MPI_SUCCESS) return rc;
  return launch_pair(kFn, *c, comm, parts[0], parts[1], staging, request);
}
