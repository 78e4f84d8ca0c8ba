// MPI_Comm_disconnect (MPI 3.1 10.5.4): "waits for all pending
// communication on comm to complete internally, deallocates the
// communicator object, and sets the handle to MPI_COMM_NULL". The program
// must already have completed and matched its own operations; what the
// library still has in flight on the communicator is finished here: sends
// and receives whose requests were freed (MPI_Request_free) and freed
// nonblocking collectives. A barrier over every member (both groups of an
// inter-communicator) then makes sure no member still works on it; then it
// is freed like MPI_Comm_free. The last communicator reaching another job's
// tasks (MPI_Comm_accept/connect/join) leaves them as it goes
// (connect.hpp's JoinedTasks).
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/nonblocking.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/intercomm.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

extern "C" int MPI_Comm_disconnect(MPI_Comm* comm) {
  const ApiCall call("MPI_Comm_disconnect");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_disconnect";
  if (int rc = check_running(kFn)) return rc;
  CommPtr c;
  int rc = check_not_null(comm, "comm");
  if (rc == MPI_SUCCESS) rc = lookup_comm(*comm, c);
  if (rc == MPI_SUCCESS && state().comms.is_predefined(*comm)) {
    rc = fail(MPI_ERR_COMM, "{} cannot be disconnected", c->name);
  }
  if (rc != MPI_SUCCESS) return raise(c.get(), kFn, rc);
  drain_collectives_on(*c);
  drain_detached_on(*c);
  rc = c->is_inter() ? inter_internal_barrier(*c) : internal_barrier(*c);
  if (rc != MPI_SUCCESS) return raise(c.get(), kFn, rc);
  return raise(c.get(), kFn, release_comm(*c, comm));
}
