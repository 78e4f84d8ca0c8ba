// MPI_Comm_dup / split / create and MPI_Barrier: collective over the parent.
#include <algorithm>
#include <numeric>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/attributes.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
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
  std::vector<CreateEntry> all;
  int slot = -1;
  rc = exchange_and_agree(*c, 0, c->rank, all, slot);
  if (rc == MPI_SUCCESS) rc = register_comm(*c, c->group->members(), slot, newcomm);
  if (rc == MPI_SUCCESS) {
    CommPtr* created = state().comms.find(*newcomm);
    rc = copy_attributes(*c, **created);
  }
  return raise(c, kFn, rc);
}

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
  std::vector<CreateEntry> all;
  int slot = -1;
  rc = exchange_and_agree(*c, color, key, all, slot);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (color == MPI_UNDEFINED) {
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
  return raise(c, kFn, register_comm(*c, std::move(members), slot, newcomm));
}

extern "C" int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_create";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  GroupPtr g;
  if (rc == MPI_SUCCESS) {
    GroupPtr* found = state().groups.find(group);
    if (found == nullptr) {
      rc = fail(MPI_ERR_GROUP, "group={:#x} is not a group", group);
    } else {
      g = *found;
    }
  }
  for (int r = 0; rc == MPI_SUCCESS && r < (g ? g->size() : 0); ++r) {
    if (c->rank_of_world(g->world_of(r)) < 0) {
      rc = fail(MPI_ERR_GROUP, "group rank {} (task {}) is not in the communicator", r,
                g->world_of(r));
    }
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  std::vector<CreateEntry> all;
  int slot = -1;
  rc = exchange_and_agree(*c, 0, 0, all, slot);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  if (g->rank_of(state().world_rank) < 0) {
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
  return raise(c, kFn, internal_barrier(*c));
}
