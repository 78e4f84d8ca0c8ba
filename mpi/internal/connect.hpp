#pragma once
// Jobs that connect (MPI 3.1 10.4: MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join). Two
// groups in independently started jobs meet over a link between their roots (lapi/link.hpp);
// every member joins the other group's tasks into its lapi context and mpcpi engine (numbered
// after its own job's tasks), then the two groups agree on a context slot as
// MPI_Intercomm_create's do, over the link, and get an inter-communicator.

#include <cstdint>
#include <memory>

#include "lapi/context.hpp"
#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/intercomm.hpp"

namespace mpi {

// Tasks this process joined from another job. Shared by the communicators that reach them
// (Comm::joined); the last one freed or disconnected leaves them (lapi's leave_tasks), unless
// MPI has finalized (lapi's term leaves them then).
struct JoinedTasks {
  lapi::TaskId first = 0;
  std::uint32_t count = 0;
  JoinedTasks(lapi::TaskId f, std::uint32_t n) : first(f), count(n) {}
  ~JoinedTasks();
  JoinedTasks(const JoinedTasks&) = delete;
  JoinedTasks& operator=(const JoinedTasks&) = delete;
};

// Collective over the intra-communicator `comm`. At `root`, `link` reaches the other group's
// root, or is null and `root_rc` says why (the group then fails without waiting for the other
// job, which sees the link close). On success *out is the inter-communicator whose remote
// group is the other job's group, in its rank order.
// `root_failed_class`: what the other members return when the root could not reach the other
// group (MPI_ERR_PORT; MPI_Comm_spawn's MPI_ERR_SPAWN).
int join_other_group(const Comm& comm, int root, lapi::Link* link, int root_rc, MPI_Comm* out,
                     int root_failed_class = MPI_ERR_PORT);
// The same with the roots talking over `bridge` (significant at `root`): a link, or the task
// ids and context of a communicator both roots are in (MPI_Intercomm_create's peer_comm).
int join_other_group(const Comm& comm, int root, const Bridge& bridge, int root_rc, MPI_Comm* out,
                     int root_failed_class = MPI_ERR_PORT);

// MPI_Init of a job MPI_Comm_spawn started (LAPIS_SPAWN_PORT names the parents' port): every
// rank connects to the parents and keeps the inter-communicator as MPI_Comm_get_parent's.
// Nothing when the variable is unset.
int connect_to_parent();

}  // namespace mpi
