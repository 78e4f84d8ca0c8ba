// MPI 4.0's communicators without a parent: MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups (the sessions model, usable from the
// world model too). The group's members agree on a context slot over the
// library's internal communicator of every task (session.hpp's
// sessions_comm), their messages kept apart from other creations' by a
// tag derived from the string tag, as MPI_Comm_create_group's are by its
// tag.
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/intercomm.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

// The tag on sessions_comm's lanes for string tag `stringtag` (FNV-1a,
// 31 bits) and `purpose` (0: an intra-communicator, 1: an
// inter-communicator's groups, 2: its leaders). The standard makes the
// program keep string tags of creations in flight at once distinct; two
// distinct tags hashing alike on overlapping groups at the same time (a
// chance of 2^-31 per pair) would mix their agreements.
int lane_tag(std::string_view stringtag, unsigned purpose) {
  std::uint32_t h = 2166136261u;
  for (unsigned char ch : stringtag) h = (h ^ ch) * 16777619u;
  h = (h ^ purpose) * 16777619u;
  return static_cast<int>(h & 0x7fffffffu);
}

int check_stringtag(const char* stringtag) {
  if (stringtag == nullptr) return fail(MPI_ERR_ARG, "stringtag is NULL");
  if (std::strlen(stringtag) > MPI_MAX_STRINGTAG_LEN) {
    return fail(MPI_ERR_ARG, "stringtag is longer than MPI_MAX_STRINGTAG_LEN ({}) characters",
                MPI_MAX_STRINGTAG_LEN);
  }
  return MPI_SUCCESS;
}

// Every member must be a task of this job (the sessions' communicator):
// a group of processes of a connected or spawned job has others.
int check_in_job(const Group& g, const char* arg) {
  const Comm& all = sessions_comm();
  for (int r = 0; r < g.size(); ++r) {
    if (all.rank_of_world(g.world_of(r)) < 0) {
      return fail(MPI_ERR_GROUP, "{} rank {} is a process of another job (MPI 4.0 creates from groups "
                  "of this job's process sets only)", arg, r);
    }
  }
  return MPI_SUCCESS;
}

// The hints of `info` for the new communicator (null for MPI_INFO_NULL).
int copy_hints(MPI_Info info, std::shared_ptr<Info>& hints) {
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  InfoPtr given;
  if (int rc = lookup_info(info, given, "info")) return rc;
  hints = std::make_shared<Info>(*given);
  return MPI_SUCCESS;
}

void attach_hints(MPI_Comm handle, std::shared_ptr<Info> hints) {
  if (!hints) return;
  if (CommPtr* c = state().comms.find(handle)) (*c)->info = std::move(hints);
}

// Where the call's errors go before the communicator exists: the handler
// the program gave (when it is one), else as errors of no object.
struct Reporter {
  Comm handler_only;
  bool have = false;
  int operator()(const char* function, int code) const {
    return raise(have ? &handler_only : nullptr, function, code);
  }
};

}  // namespace

extern "C" int MPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                          MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_create_from_group");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_create_from_group";
  if (int rc = check_running(kFn)) return rc;
  Reporter report;
  report.handler_only.handle = MPI_COMM_NULL;
  int rc = lookup_errhandler(errhandler, report.handler_only.errhandler);
  report.have = rc == MPI_SUCCESS;
  GroupPtr g;
  std::shared_ptr<Info> hints;
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc == MPI_SUCCESS) rc = lookup_group(group, g);
  if (rc == MPI_SUCCESS) rc = check_stringtag(stringtag);
  if (rc == MPI_SUCCESS) rc = copy_hints(info, hints);
  if (rc == MPI_SUCCESS) rc = check_in_job(*g, "group");
  if (rc != MPI_SUCCESS) return report(kFn, rc);
  const int me = g->rank_of(state().world_rank);
  if (me < 0) {
    // MPI_GROUP_EMPTY, or a group without this process: nothing to join.
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Only the group's members take part (MPI_Comm_create_group's way, over
  // the sessions' communicator and under the string tag's lane).
  Comm members;
  init_group_members(members, g, me, kSessionsSlot, lane_tag(stringtag, 0));
  members.errhandler = report.handler_only.errhandler;
  members.session = g->session;
  std::vector<CreateEntry> all;
  int slot = -1;
  rc = exchange_and_agree(members, 0, 0, all, slot);
  if (rc == MPI_SUCCESS) rc = register_comm(members, g->members(), slot, newcomm);
  if (rc == MPI_SUCCESS) attach_hints(*newcomm, std::move(hints));
  return report(kFn, rc);
}

extern "C" int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                                MPI_Group remote_group, int remote_leader,
                                                const char* stringtag, MPI_Info info,
                                                MPI_Errhandler errhandler,
                                                MPI_Comm* newintercomm) {
  const ApiCall call("MPI_Intercomm_create_from_groups");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Intercomm_create_from_groups";
  if (int rc = check_running(kFn)) return rc;
  Reporter report;
  report.handler_only.handle = MPI_COMM_NULL;
  int rc = lookup_errhandler(errhandler, report.handler_only.errhandler);
  report.have = rc == MPI_SUCCESS;
  GroupPtr local, remote;
  std::shared_ptr<Info> hints;
  if (rc == MPI_SUCCESS) rc = check_not_null(newintercomm, "newintercomm");
  if (rc == MPI_SUCCESS) rc = lookup_group(local_group, local, "local_group");
  if (rc == MPI_SUCCESS) rc = lookup_group(remote_group, remote, "remote_group");
  if (rc == MPI_SUCCESS) rc = check_stringtag(stringtag);
  if (rc == MPI_SUCCESS) rc = copy_hints(info, hints);
  if (rc == MPI_SUCCESS && (local_leader < 0 || local_leader >= local->size())) {
    rc = fail(MPI_ERR_RANK, "local_leader={} is not a rank of local_group (0..{})", local_leader,
              local->size() - 1);
  }
  if (rc == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= remote->size())) {
    rc = fail(MPI_ERR_RANK, "remote_leader={} is not a rank of remote_group (0..{})",
              remote_leader, remote->size() - 1);
  }
  if (rc == MPI_SUCCESS) rc = check_in_job(*local, "local_group");
  if (rc == MPI_SUCCESS) rc = check_in_job(*remote, "remote_group");
  const int me = rc == MPI_SUCCESS ? local->rank_of(state().world_rank) : -1;
  if (rc == MPI_SUCCESS && me < 0) {
    rc = fail(MPI_ERR_GROUP, "the calling process is not a member of local_group");
  }
  for (int r = 0; rc == MPI_SUCCESS && r < remote->size(); ++r) {
    if (local->rank_of(remote->world_of(r)) >= 0) {
      rc = fail(MPI_ERR_GROUP, "remote_group rank {} is also in local_group (the groups must be "
                "disjoint)", r);
    }
  }
  if (rc != MPI_SUCCESS) return report(kFn, rc);
  // The local group agrees among itself over the sessions' communicator
  // (its own lane); the leaders talk on that communicator's reserved
  // context under the string tag's leaders' lane.
  Comm members;
  init_group_members(members, local, me, kSessionsSlot, lane_tag(stringtag, 1));
  members.errhandler = report.handler_only.errhandler;
  members.session = local->session;
  Bridge bridge{remote->world_of(remote_leader), sessions_comm().context(ContextKind::reserved2),
                lane_tag(stringtag, 2)};
  BridgedEntries e;
  int slot = -1;
  rc = bridged_agree(members, local_leader, bridge, CreateEntry{}, e, slot);
  if (rc == MPI_SUCCESS && e.remote_members != remote->members()) {
    state().slots.release(slot);
    rc = fail(MPI_ERR_GROUP, "the other side's local_group is not this remote_group");
  }
  if (rc == MPI_SUCCESS) {
    rc = register_inter(members, local->members(), std::move(e.remote_members), slot, newintercomm);
  }
  if (rc == MPI_SUCCESS) attach_hints(*newintercomm, std::move(hints));
  return report(kFn, rc);
}
