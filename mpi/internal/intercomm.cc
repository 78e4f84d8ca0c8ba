#include "mpi/internal/intercomm.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "lapi/link.hpp"
#include "mpi/internal/comm_factory.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/internal_coll.hpp"
#include "mpi/internal/runtime.hpp"
#include "mpi/internal/state.hpp"

namespace mpi {
namespace {

// What a leader sends the other: its group's size, members and entries. Members go by the
// core's task identities: task ids are each process's own for tasks of other jobs, and the
// groups, or the leaders, may be of two jobs.
std::vector<char> encode(const Comm& local, const std::vector<CreateEntry>& entries) {
  const int n = local.size();
  std::vector<char> out(sizeof(int) + n * sizeof(std::uint64_t) + n * sizeof(CreateEntry));
  char* p = out.data();
  std::memcpy(p, &n, sizeof n);
  p += sizeof n;
  for (int member : local.group->members()) {
    const std::uint64_t uid = lapi_context().task_uid(static_cast<lapi::TaskId>(member));
    std::memcpy(p, &uid, sizeof uid);
    p += sizeof uid;
  }
  std::memcpy(p, entries.data(), n * sizeof(CreateEntry));
  return out;
}

// The other leader's members, as this process numbers them; the first it does not know, or -1.
int decode_members(const char* p, int n, std::vector<int>& members) {
  members.resize(n);
  for (int i = 0; i < n; ++i) {
    std::uint64_t uid = 0;
    std::memcpy(&uid, p + i * sizeof uid, sizeof uid);
    lapi::TaskId task = 0;
    if (!lapi_context().task_of_uid(uid, task)) return i;
    members[i] = static_cast<int>(task);
  }
  return -1;
}

int swap_with_remote(const Bridge& b, std::vector<char>& mine, std::vector<char>& theirs) {
  if (b.link != nullptr) {
    std::vector<std::byte> got;
    if (lapi::Status s = b.link->exchange(std::as_bytes(std::span(mine)), got); !s.ok()) {
      return fail(MPI_ERR_PORT, "{}", s.message());  // it names the link
    }
    theirs.resize(got.size());
    if (!got.empty()) std::memcpy(theirs.data(), got.data(), got.size());
    return MPI_SUCCESS;
  }
  mpcpi::Engine& eng = engine();
  // Sizes first (neither side knows the other's), then the payloads.
  std::uint64_t my_size = mine.size(), their_size = 0;
  mpcpi::Request* rreq = nullptr;
  if (int rc = engine_error(eng.irecv(&their_size, sizeof their_size, b.remote_leader, b.tag,
                                      b.context, rreq))) {
    return rc;
  }
  if (int rc = engine_error(eng.send(&my_size, sizeof my_size, b.remote_leader, b.tag, b.context,
                                     mpcpi::SendMode::standard))) {
    return rc;
  }
  if (int rc = engine_error(eng.wait(rreq, nullptr))) return rc;
  theirs.assign(their_size, 0);
  if (int rc = engine_error(eng.irecv(theirs.data(), theirs.size(), b.remote_leader, b.tag,
                                      b.context, rreq))) {
    return rc;
  }
  if (int rc = engine_error(eng.send(mine.data(), mine.size(), b.remote_leader, b.tag, b.context,
                                     mpcpi::SendMode::standard))) {
    return rc;
  }
  return engine_error(eng.wait(rreq, nullptr));
}

}  // namespace

int leaders_swap(const Comm& local, int leader, const Bridge& bridge, int leader_rc,
                 std::vector<char>& mine, std::vector<char>& theirs, int others_class,
                 const std::string& others_detail) {
  std::uint64_t their_size = 0;
  if (local.rank == leader && leader_rc == MPI_SUCCESS) {
    // A failed swap (the other job gone, say) fails the whole group, not only its leader.
    leader_rc = swap_with_remote(bridge, mine, theirs);
    their_size = leader_rc == MPI_SUCCESS ? theirs.size() : 0;
  }
  // Size 0: the leader failed (its detail is its own).
  std::string detail = local.rank == leader ? std::string(error_detail()) : std::string();
  if (int rc = internal_bcast(local, leader, &their_size, sizeof their_size)) return rc;
  if (their_size == 0) {
    if (local.rank == leader) {
      set_error_detail(detail);
      return leader_rc;
    }
    return fail(others_class, "{}", others_detail);
  }
  theirs.resize(their_size);
  return internal_bcast(local, leader, theirs.data(), theirs.size());
}

int bridged_exchange(const Comm& local, int leader, const Bridge& bridge, const CreateEntry& mine,
                     BridgedEntries& out, int leader_rc) {
  std::vector<char> bytes;
  if (int rc = internal_allgather(local, &mine, sizeof mine, bytes)) return rc;
  out.local.resize(local.size());
  std::memcpy(out.local.data(), bytes.data(), bytes.size());
  std::vector<char> payload, theirs;
  if (local.rank == leader) payload = encode(local, out.local);
  if (int rc = leaders_swap(local, leader, bridge, leader_rc, payload, theirs, MPI_ERR_OTHER,
                            fmt::format("the local leader (rank {}) rejected its arguments", leader))) {
    return rc;
  }
  const std::uint64_t their_size = theirs.size();
  int n = 0;
  if (their_size >= sizeof n) std::memcpy(&n, theirs.data(), sizeof n);
  if (n < 1 || their_size != sizeof(int) + n * (sizeof(std::uint64_t) + sizeof(CreateEntry))) {
    return fail(MPI_ERR_INTERN, "malformed group description from the remote leader");
  }
  out.remote.resize(n);
  std::memcpy(out.remote.data(), theirs.data() + sizeof n + n * sizeof(std::uint64_t),
              n * sizeof(CreateEntry));
  out.unknown_remote = decode_members(theirs.data() + sizeof n, n, out.remote_members);
  return MPI_SUCCESS;
}

int agree_slot(const BridgedEntries& e, int& slot) {
  std::uint64_t common[ContextSlots::kWords];
  for (int w = 0; w < ContextSlots::kWords; ++w) {
    common[w] = ~std::uint64_t{0};
    for (const CreateEntry& x : e.local) common[w] &= x.free_slots[w];
    for (const CreateEntry& x : e.remote) common[w] &= x.free_slots[w];
  }
  slot = ContextSlots::lowest(common);
  if (slot < 0) {
    return fail(MPI_ERR_OTHER, "no context id is free at every member of both groups");
  }
  return MPI_SUCCESS;
}

int bridged_agree(const Comm& local, int leader, const Bridge& bridge, CreateEntry mine,
                  BridgedEntries& out, int& slot, int leader_rc) {
  State& s = state();
  for (;;) {
    s.slots.to_words(mine.free_slots);
    if (int rc = bridged_exchange(local, leader, bridge, mine, out, leader_rc)) return rc;
    if (int rc = agree_slot(out, slot)) return rc;
    // A member that does not know a remote rank says so in the confirmation round (kUnknown),
    // which everyone then fails together.
    constexpr int kUnknown = 2;
    const int took = out.unknown_remote < 0 && s.slots.is_free(slot) ? 1 : 0;
    if (took) s.slots.take(slot);
    CreateEntry flag{};
    flag.color = out.unknown_remote >= 0 ? kUnknown : took;
    BridgedEntries flags;
    int rc = bridged_exchange(local, leader, bridge, flag, flags);
    bool everyone = rc == MPI_SUCCESS, unknown = false;
    for (const auto* side : {&flags.local, &flags.remote}) {
      for (const CreateEntry& f : *side) {
        everyone = everyone && f.color == 1;
        unknown = unknown || f.color == kUnknown;
      }
    }
    if (took && !everyone) s.slots.release(slot);
    if (rc != MPI_SUCCESS) return rc;
    if (unknown) {
      out.unknown_somewhere = true;
      return out.unknown_remote >= 0
                 ? fail(MPI_ERR_OTHER,
                        "rank {} of the remote group is a process this one is not connected to (of a job it "
                        "never connected to, or disconnected from)",
                        out.unknown_remote)
                 : fail(MPI_ERR_OTHER, "a member of one of the two groups is not connected to a process of the other");
    }
    if (everyone) return MPI_SUCCESS;
  }
}

Bridge bridge_of(const Comm& inter) {
  return {inter.peer_world_of(0), inter.context(ContextKind::collective), kTagBridge};
}

int register_inter(const Comm& parent, std::vector<int> local_members,
                   std::vector<int> remote_members, int slot, MPI_Comm* out) {
  State& s = state();
  auto group = std::make_shared<const Group>(std::move(local_members));
  const int rank = group->rank_of(s.world_rank);
  CommPtr local = new_comm_object();
  local->group = group;
  local->rank = rank;
  local->slot = slot;
  local->owns_slot = false;
  local->errhandler = return_errhandler();
  CommPtr c = new_comm_object();
  c->group = std::move(group);
  c->remote_group = std::make_shared<const Group>(std::move(remote_members));
  c->local = std::move(local);
  c->rank = rank;
  c->slot = slot;
  c->errhandler = parent.errhandler;
  c->joined = parent.joined;
  c->session = parent.session;
  return install_comm(c, slot, out);
}

int split_inter(const Comm& inter, int color, int key, MPI_Comm* out) {
  CreateEntry mine{};
  mine.color = color;
  mine.key = key;
  BridgedEntries e;
  int slot = -1;
  if (int rc = bridged_agree(*inter.local, 0, bridge_of(inter), mine, e, slot)) return rc;
  *out = MPI_COMM_NULL;
  // Colours without members on both sides leave the slot unused.
  auto unused = [slot] { state().slots.release(slot); return MPI_SUCCESS; };
  if (color == MPI_UNDEFINED) return unused();
  auto members_of = [color](const std::vector<CreateEntry>& entries, const Group& g) {
    std::vector<int> ranks;
    for (int r = 0; r < static_cast<int>(entries.size()); ++r) {
      if (entries[r].color == color) ranks.push_back(r);
    }
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](int a, int b) { return entries[a].key < entries[b].key; });
    std::vector<int> members;
    for (int r : ranks) members.push_back(g.world_of(r));
    return members;
  };
  std::vector<int> local = members_of(e.local, *inter.group);
  std::vector<int> remote = members_of(e.remote, *inter.remote_group);
  if (remote.empty()) return unused();
  return register_inter(inter, std::move(local), std::move(remote), slot, out);
}

int dup_inter(const Comm& inter, MPI_Comm* out) {
  BridgedEntries e;
  int slot = -1;
  if (int rc = bridged_agree(*inter.local, 0, bridge_of(inter), CreateEntry{}, e, slot)) return rc;
  return register_inter(inter, inter.group->members(), inter.remote_group->members(), slot, out);
}

int inter_internal_barrier(const Comm& inter) {
  if (int rc = internal_barrier(*inter.local)) return rc;
  if (inter.rank == 0) {
    const Bridge b = bridge_of(inter);
    mpcpi::Engine& eng = engine();
    mpcpi::Request* rreq = nullptr;
    if (int rc = engine_error(eng.irecv(nullptr, 0, b.remote_leader, b.tag, b.context, rreq))) {
      return rc;
    }
    if (int rc = engine_error(
            eng.send(nullptr, 0, b.remote_leader, b.tag, b.context, mpcpi::SendMode::standard))) {
      return rc;
    }
    if (int rc = engine_error(eng.wait(rreq, nullptr))) return rc;
  }
  return internal_barrier(*inter.local);
}

}  // namespace mpi
