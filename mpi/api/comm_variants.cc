// MPI_Comm_create_group, MPI_Comm_split_type, MPI_Comm_dup_with_info,
// MPI_Comm_set_info / MPI_Comm_get_info.
#include <strings.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/hw_resources.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/memory_kinds.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

namespace {

int check_intra(const Comm& c) {
  if (!c.is_inter()) return MPI_SUCCESS;
  return fail(MPI_ERR_COMM, "comm is an inter-communicator");
}

// This process's colour at one level of the machine: the host
// (MPI_COMM_TYPE_SHARED) or a hardware resource of it.
struct LevelColor {
  int color = MPI_UNDEFINED;  // the lowest rank of comm in the same place; MPI_UNDEFINED: none
  bool splits = false;        // some rank has a place, and no place holds all of comm
};

// The colours of this process for levels given by `instances`
// (hw_resources.hpp; 0 for the host alone, -1: not within one resource of
// the level): ranks on the same host in the same instance share a colour.
// Collective over `c`, one allgather for every level.
int host_colors(const Comm& c, const std::vector<int>& instances, std::vector<LevelColor>& out) {
  constexpr std::size_t kHost = 64;
  const std::size_t levels = instances.size(), place = kHost + levels * sizeof(int);
  std::vector<char> me(place, 0);
  gethostname(me.data(), kHost - 1);
  std::memcpy(me.data() + kHost, instances.data(), levels * sizeof(int));
  std::vector<char> all;
  if (int rc = internal_allgather(c, me.data(), place, all)) return rc;
  const auto instance = [&](int r, std::size_t l) {
    int v;
    std::memcpy(&v, all.data() + r * place + kHost + l * sizeof v, sizeof v);
    return v;
  };
  const auto same = [&](int a, int b, std::size_t l) {
    return std::memcmp(all.data() + a * place, all.data() + b * place, kHost) == 0 &&
           instance(a, l) == instance(b, l);
  };
  out.assign(levels, {});
  for (std::size_t l = 0; l < levels; ++l) {
    bool placed = false, whole = instance(0, l) >= 0;
    for (int r = 0; r < c.size(); ++r) {
      placed = placed || instance(r, l) >= 0;
      whole = whole && same(0, r, l);
      if (out[l].color == MPI_UNDEFINED && instances[l] >= 0 && same(c.rank, r, l)) out[l].color = r;
    }
    out[l].splits = placed && !whole;
  }
  return MPI_SUCCESS;
}

int host_color(const Comm& c, int& color, int instance = 0) {
  std::vector<LevelColor> levels;
  const int rc = host_colors(c, {instance}, levels);
  if (rc == MPI_SUCCESS) color = levels[0].color;
  return rc;
}

// MPI_COMM_TYPE_HW_UNGUIDED: the coarsest level -- the host, then each
// hardware type, coarse to fine -- at which comm falls apart into strict
// subsets, and this process's colour there (MPI_UNDEFINED if it is in no
// resource of that level, or if comm falls apart at no level). `type`
// names the level as mpi_hw_resource_type does for HW_GUIDED
// (mpi_shared_memory for the host), so that the answer can be asked for again.
int unguided_color(const Comm& c, int& color, std::string& type) {
  const std::vector<HwResource> mine = hw_resources_now();
  std::vector<std::string> names = {"mpi_shared_memory"};
  std::vector<int> instances = {0};
  for (std::string_view t : hw_resource_types().subspan(1)) {  // the machine is the host
    names.emplace_back(t);
    instances.push_back(hw_instance(mine, t));
  }
  std::vector<LevelColor> levels;
  if (int rc = host_colors(c, instances, levels)) return rc;
  color = MPI_UNDEFINED;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    if (!levels[l].splits) continue;
    color = levels[l].color;
    type = names[l];
    break;
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_create_group");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_create_group";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_intra(*c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc == MPI_SUCCESS) rc = check_send_tag(tag);
  GroupPtr g;
  if (rc == MPI_SUCCESS) rc = lookup_group(group, g);
  for (int r = 0; rc == MPI_SUCCESS && r < g->size(); ++r) {
    if (c->rank_of_world(g->world_of(r)) < 0) {
      rc = fail(MPI_ERR_GROUP, "group rank {} (task {}) is not in the communicator", r,
                g->world_of(r));
    }
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  const int me = g->rank_of(state().world_rank);
  if (me < 0) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Only the group's members take part: they agree on a slot through a
  // communicator of their own over comm's slot, under the call's tag
  // (their messages name their sources and the tag, so other traffic there,
  // other threads' calls with other tags included, cannot match).
  Comm members;
  init_group_members(members, g, me, c->slot, tag);
  std::vector<CreateEntry> all;
  int slot = -1;
  rc = exchange_and_agree(members, 0, 0, all, slot);
  if (rc == MPI_SUCCESS) rc = register_comm(*c, g->members(), slot, newcomm);
  return raise(c, kFn, rc);
}

extern "C" int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                   MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_split_type");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_split_type";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  InfoPtr hints;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_intra(*c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = lookup_info(info, hints, "info");
  if (rc == MPI_SUCCESS && split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED &&
      split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED &&
      split_type != MPI_COMM_TYPE_RESOURCE_GUIDED) {
    rc = fail(MPI_ERR_ARG,
              "split_type={} is not MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
              "MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED or MPI_UNDEFINED",
              split_type);
  }
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // HW_GUIDED splits by mpi_hw_resource_type: mpi_shared_memory (the
  // host), or a type of MPI_Get_hw_resource_info's (hwloc://Core, or
  // MPICH's bare Core), a process not bound within one such resource, or
  // naming no type known here, getting MPI_COMM_NULL. HW_UNGUIDED takes
  // the coarsest level that splits comm (unguided_color).
  // RESOURCE_GUIDED (MPI 4.1) takes a type as HW_GUIDED does, or a
  // process set by mpi_pset_name: mpi://WORLD (all of comm), mpi://SELF
  // (each process alone); another name gives MPI_COMM_NULL.
  int instance = 0;
  const std::string* pset = nullptr;
  if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_RESOURCE_GUIDED) {
    const std::string* v = hints ? hints->find("mpi_hw_resource_type") : nullptr;
    pset = split_type == MPI_COMM_TYPE_RESOURCE_GUIDED && hints ? hints->find("mpi_pset_name") : nullptr;
    if (v == nullptr) {
      instance = -1;
    } else if (*v != "mpi_shared_memory") {
      instance = hw_instance(hw_resources_now(), *v);
    }
  }
  int color = MPI_UNDEFINED;
  std::string unguided_type;
  rc = split_type == MPI_COMM_TYPE_HW_UNGUIDED ? unguided_color(*c, color, unguided_type)
                                               : host_color(*c, color, instance);
  if (rc == MPI_SUCCESS && split_type == MPI_UNDEFINED) color = MPI_UNDEFINED;
  if (rc == MPI_SUCCESS && pset != nullptr) {
    color = strcasecmp(pset->c_str(), "mpi://WORLD") == 0  ? 0
            : strcasecmp(pset->c_str(), "mpi://SELF") == 0 ? c->rank
                                                            : MPI_UNDEFINED;
  }
  if (rc == MPI_SUCCESS) rc = split_intra(*c, color, key, newcomm);
  // HW_UNGUIDED says which level it split at, in the new communicator's
  // info and -- as MPI 4.0 has it, and MPICH does -- in the info passed in.
  Comm* created = nullptr;
  if (rc == MPI_SUCCESS && !unguided_type.empty() && *newcomm != MPI_COMM_NULL &&
      lookup_comm(*newcomm, created) == MPI_SUCCESS) {
    if (!created->info) created->info = std::make_shared<Info>();
    created->info->set("mpi_hw_resource_type", unguided_type);
    if (hints) hints->set("mpi_hw_resource_type", unguided_type);
  }
  return raise(c, kFn, rc);
}

extern "C" int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  const ApiCall call("MPI_Comm_dup_with_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_dup_with_info";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  std::shared_ptr<Info> hints;
  if (int rc = check_dup_with_info(comm, info, newcomm, c, hints)) return raise(c, kFn, rc);
  return raise(c, kFn, dup_comm(*c, std::move(hints), newcomm));
}

int mpi::check_dup_with_info(MPI_Comm comm, MPI_Info info, const MPI_Comm* newcomm, Comm*& c,
                             std::shared_ptr<Info>& hints) {
  InfoPtr found;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(newcomm, "newcomm");
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = lookup_info(info, found, "info");
  if (rc == MPI_SUCCESS && found) hints = std::make_shared<Info>(*found);
  return rc;
}

extern "C" int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const ApiCall call("MPI_Comm_set_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_set_info";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  InfoPtr hints;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = lookup_info(info, hints, "info");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  // No hint changes what Lapis does; they are kept for MPI_Comm_get_info.
  if (!c->info) c->info = std::make_shared<Info>();
  for (const auto& [key, value] : hints->entries) c->info->set(key, value);
  return MPI_SUCCESS;
}

extern "C" int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  const ApiCall call("MPI_Comm_get_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Comm_get_info";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_not_null(info_used, "info_used");
  if (rc != MPI_SUCCESS) return raise(c, kFn, rc);
  auto copy = c->info ? std::make_shared<Info>(*c->info) : std::make_shared<Info>();
  copy->set(kMemoryKindsKey, memory_kinds_of(*c));
  return raise(c, kFn, insert_info(std::move(copy), info_used, "info_used"));
}
