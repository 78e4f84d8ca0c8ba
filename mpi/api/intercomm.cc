// Inter-communicators: MPI_Intercomm_create, MPI_Intercomm_merge,
// MPI_Comm_remote_group, MPI_Comm_get_parent (the rest of their support
// sits in the communicator functions: size/rank/compare/dup/split/create/free
// and point-to-point address the remote group).
#include <random>
#include <utility>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/connect.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/intercomm.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// The leader's own arguments: peer_comm, remote_leader, tag.
int check_leader_args(const Comm& local, MPI_Comm peer_comm, int remote_leader, int tag,
                      Bridge& bridge) {
  Comm* peer = nullptr;
  int rc = lookup_comm(peer_comm, peer);
  if (rc == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= peer->peer_size())) {
    rc = fail(MPI_ERR_RANK, "remote_leader={} is not a rank of peer_comm (0..{})", remote_leader,
              peer->peer_size() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_send_tag(tag);
  if (rc == MPI_SUCCESS && local.rank_of_world(peer->peer_world_of(remote_leader)) >= 0) {
    rc = fail(MPI_ERR_RANK, "remote_leader={} of peer_comm is a member of local_comm",
              remote_leader);
  }
  if (rc == MPI_SUCCESS) {
    // The leaders talk on peer_comm's collective context: no user message
    // can match, whatever its tag.
    bridge = {peer->peer_world_of(remote_leader), peer->context(ContextKind::collective),
              kTagBridge};
  }
  return rc;
}

}  // namespace

extern "C" int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                    int remote_leader, int tag, MPI_Comm* newintercomm) {
  const ApiCall call("MPI_Intercomm_create");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Intercomm_create";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(local_comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) {
    rc = fail(MPI_ERR_COMM, "local_comm is an inter-communicator");
  }
  if (rc == MPI_SUCCESS && (local_leader < 0 || local_leader >= c->size())) {
    rc = fail(MPI_ERR_RANK, "local_leader={} is not a rank of local_comm (0..{})", local_leader,
              c->size() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(newintercomm, "newintercomm");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  Bridge bridge;
  int leader_rc = MPI_SUCCESS;
  if (c->rank == local_leader) {
    leader_rc = check_leader_args(*c, peer_comm, remote_leader, tag, bridge);
  }
  BridgedEntries e;
  int slot = -1;
  rc = bridged_agree(*c, local_leader, bridge, CreateEntry{}, e, slot, leader_rc);
  if (rc != MPI_SUCCESS && e.unknown_somewhere) {
    // A member does not know a process of the other group: one of a job it never connected to
    // (say only rank 0 spawned it). The two groups join each other, as accept/connect's do;
    // processes known already get a second task id, which only the new communicator uses.
    return raise(c, kFn, join_other_group(*c, local_leader, bridge, leader_rc, newintercomm, MPI_ERR_OTHER));
  }
  for (int w : e.remote_members) {
    if (rc == MPI_SUCCESS && c->rank_of_world(w) >= 0) {
      state().slots.release(slot);
      rc = fail(MPI_ERR_COMM, "the two groups overlap (task {} is in both)", w);
    }
  }
  if (rc == MPI_SUCCESS) {
    rc = register_inter(*c, c->group->members(), std::move(e.remote_members), slot, newintercomm);
  }
  return raise(c, kFn, rc);
}

extern "C" int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const ApiCall call("MPI_Intercomm_merge");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Intercomm_merge";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(intercomm, c);
  if (rc == MPI_SUCCESS && !c->is_inter()) {
    rc = fail(MPI_ERR_COMM, "intercomm is an intra-communicator");
  }
  if (rc == MPI_SUCCESS) rc = check_not_null(newintracomm, "newintracomm");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  CreateEntry mine{};
  mine.color = high ? 1 : 0;
  // Between two jobs (MPI_Comm_accept/connect/join) task ids are each process's own, so equal
  // choices are ordered by the leaders' draws instead, which both sides see alike.
  const bool across_jobs = !c->joined.empty();
  if (across_jobs) mine.key = static_cast<int>(std::random_device{}() & 0x7fffffff);
  BridgedEntries e;
  int slot = -1;
  rc = bridged_agree(*c->local, 0, bridge_of(*c), mine, e, slot);
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // The "low" group first; with equal choices, the group whose leader has
  // the lower task id, or between two jobs the lower draw (both sides decide alike).
  const int my_high = e.local[0].color, their_high = e.remote[0].color;
  const bool by_draw = across_jobs && e.local[0].key != e.remote[0].key;
  const bool local_first = my_high != their_high ? my_high < their_high
                           : by_draw             ? e.local[0].key < e.remote[0].key
                                                 : c->group->world_of(0) < c->remote_group->world_of(0);
  const Group& first = local_first ? *c->group : *c->remote_group;
  const Group& second = local_first ? *c->remote_group : *c->group;
  std::vector<int> members = first.members();
  members.insert(members.end(), second.members().begin(), second.members().end());
  return raise(c, kFn, register_comm(*c, std::move(members), slot, newintracomm));
}

extern "C" int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  const ApiCall call("MPI_Comm_remote_group");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_remote_group";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(group, "group");
  if (rc == MPI_SUCCESS && !c->is_inter()) {
    rc = fail(MPI_ERR_COMM, "comm is an intra-communicator (it has no remote group)");
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  MPI_Group h = state().groups.insert(c->remote_group);
  if (h == MPI_GROUP_NULL) return raise(c, kFn, fail(MPI_ERR_INTERN, "too many groups"));
  *group = h;
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_get_parent(MPI_Comm* parent) {
  const ApiCall call("MPI_Comm_get_parent");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_get_parent";
  if (int rc = check_running(kFn)) return rc;
  if (int rc = check_not_null(parent, "parent")) return raise(nullptr, kFn, rc);
  *parent = state().parent_comm;  // MPI_Comm_spawn (spawn.cc); null when not spawned or freed
  return MPI_SUCCESS;
}
