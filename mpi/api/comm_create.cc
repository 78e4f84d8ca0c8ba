// MPI_Comm_dup / split / create and MPI_Barrier: collective over the parent.
#include <algorithm>
#include <numeric>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/coll/entry.hpp"
#include "mpi/internal/coll/node.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/intercomm.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

extern "C" int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_dup");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_dup";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  return raise(c, kFn, dup_comm(*c, c->info, newcomm));
}

namespace mpi {

int dup_comm(const Comm& parent, std::shared_ptr<Info> info, MPI_Comm* newcomm) {
  const Comm* c = &parent;
  std::vector<CreateEntry> all;
  int slot = -1;
  int rc;
  if (c->is_inter()) {
    rc = dup_inter(*c, newcomm);
  } else {
    rc = exchange_and_agree(*c, 0, c->rank, all, slot);
    if (rc == MPI_SUCCESS) rc = register_comm(*c, c->group->members(), slot, newcomm);
  }
  if (rc == MPI_SUCCESS) {
    CommPtr* created = state().comms.find(*newcomm);
    (*created)->info = std::move(info);
    (*created)->topo = c->topo;  // a duplicate keeps the topology
    rc = copy_attributes(*c, **created);
    // A copy callback failed: no half-copied communicator is left behind (as MPICH does), and
    // the attributes it did copy get their delete callbacks.
    if (rc != MPI_SUCCESS) (void)release_comm(**created, newcomm);
  }
  return rc;
}

}  // namespace mpi

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_split");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_split";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc == MPI_SUCCESS && color < 0 && color != MPI_UNDEFINED) {
    rc = fail(MPI_ERR_ARG, "color={} is negative and not MPI_UNDEFINED", color);
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (c->is_inter()) return raise(c, kFn, split_inter(*c, color, key, newcomm));
  return raise(c, kFn, split_intra(*c, color, key, newcomm));
}

namespace mpi {

int split_intra(const Comm& parent, int color, int key, MPI_Comm* newcomm) {
  const Comm* c = &parent;
  std::vector<CreateEntry> all;
  int slot = -1;
  int rc = exchange_and_agree(*c, color, key, all, slot);
  if (rc != MPI_SUCCESS) return rc;
  if (color == MPI_UNDEFINED) {
    state().slots.release(slot);  // held since the agreement; not needed here
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Members of my colour, ordered by key, ties by parent rank.
  std::vector<int> parent_ranks;
  for (int r = 0; r < c->size(); ++r) {
    if (all[r].color == color) parent_ranks.push_back(r);
  }
  std::stable_sort(parent_ranks.begin(), parent_ranks.end(),
                   [&](int a, int b) { return all[a].key < all[b].key; });
  std::vector<int> members;
  members.reserve(parent_ranks.size());
  for (int r : parent_ranks) members.push_back(c->world_of(r));
  // Disjoint colours may share the slot: their members never talk.
  return register_comm(*c, std::move(members), slot, newcomm);
}

}  // namespace mpi

extern "C" int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_create";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  GroupPtr g;
  if (rc == MPI_SUCCESS) rc = lookup_group(group, g);
  for (int r = 0; rc == MPI_SUCCESS && r < (g ? g->size() : 0); ++r) {
    if (c->rank_of_world(g->world_of(r)) < 0) {
      rc = fail(MPI_ERR_GROUP, "group rank {} (task {}) is not in the communicator", r,
                g->world_of(r));
    }
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (c->is_inter()) {
    // `group` is a subgroup of the local group; each side gives its own.
    const int in = g->rank_of(state().world_rank);
    return raise(c, kFn, split_inter(*c, in >= 0 ? 0 : MPI_UNDEFINED, in, newcomm));
  }
  std::vector<CreateEntry> all;
  int slot = -1;
  rc = exchange_and_agree(*c, 0, 0, all, slot);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (g->rank_of(state().world_rank) < 0) {
    state().slots.release(slot);  // held since the agreement; not needed here
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return raise(c, kFn, register_comm(*c, g->members(), slot, newcomm));
}

extern "C" int MPI_Barrier(MPI_Comm comm) {
  const ApiCall call("MPI_Barrier");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Barrier";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  if (int rc = lookup_comm(comm, c)) return raise(c, kFn, rc);
  if (c->is_inter()) return coll_barrier(kFn, comm, {});
  if (node_collective(*c, 0)) return raise(c, kFn, node_barrier(*c));  // one host: shared memory
  return raise(c, kFn, internal_barrier(*c));
}
