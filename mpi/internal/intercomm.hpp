#pragma once
// Inter-communicators: how the two groups agree on a new communicator.
//
// Every member contributes a CreateEntry (its free context slots, a colour
// and a key). Each group gathers its entries locally, the two leaders swap
// their group's member list and entries over a "bridge" (the peer
// communicator of MPI_Intercomm_create, or the inter-communicator itself),
// and each leader hands what it got to its group. Everyone then sees every
// entry of both groups and takes the lowest context slot free at all of
// them. An inter-communicator uses one slot for both its cross-group
// traffic and its groups' local collective traffic (Comm::local).

#include <cstdint>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/comm_factory.hpp"

namespace lapi {
class Link;  // lapi/link.hpp
}

namespace mpi {

// The leaders' channel: the remote leader's task id, a context and tag; or, between two jobs
// before they joined (MPI_Comm_accept/connect/join), the link between the leaders.
struct Bridge {
  int remote_leader = -1;
  std::uint32_t context = 0;
  int tag = 0;
  lapi::Link* link = nullptr;
};

// What both groups contributed.
struct BridgedEntries {
  std::vector<CreateEntry> local;   // by rank of the local group
  std::vector<CreateEntry> remote;  // by rank of the remote group
  std::vector<int> remote_members;  // task ids, by remote rank
  // A remote rank this process does not know (its job never connected to this one), or -1:
  // then remote_members is not usable here. Collective parts completed either way, so every
  // member can still take part in what follows.
  int unknown_remote = -1;
  // bridged_agree failed because some member of either group reported an unknown remote rank.
  bool unknown_somewhere = false;
};

// Collective over `local` (an intra-communicator) and, through the
// leaders, the remote group. `bridge` is significant at `leader` only.
// `leader_rc`: the leader's check of its own arguments; when it is an error
// the leader does not talk to the other side and its whole group fails
// (the leader with that class, the others with MPI_ERR_OTHER) instead of
// waiting for it.
int bridged_exchange(const Comm& local, int leader, const Bridge& bridge, const CreateEntry& mine,
                     BridgedEntries& out, int leader_rc = MPI_SUCCESS);

// Collective over `local`: the leaders swap `mine` (significant at `leader`) over `bridge` and
// every member gets the other side's bytes in `theirs`. When `leader_rc` (the leader's own
// check) or the swap fails, the leader returns that error and the others `others_class` with
// `others_detail`, none waiting for the other side.
int leaders_swap(const Comm& local, int leader, const Bridge& bridge, int leader_rc,
                 std::vector<char>& mine, std::vector<char>& theirs, int others_class,
                 const std::string& others_detail);

// The lowest slot free at every member of both groups (MPI_ERR_OTHER when
// none is).
int agree_slot(const BridgedEntries& e, int& slot);

// bridged_exchange with `mine`'s free slots taken now, then the lowest
// slot free at every member proposed and confirmed (each takes it if still
// free; all must have: comm_factory.hpp's confirm_slot), repeated until
// confirmed. On success every member holds `slot`.
int bridged_agree(const Comm& local, int leader, const Bridge& bridge, CreateEntry mine,
                  BridgedEntries& out, int& slot, int leader_rc = MPI_SUCCESS);

// The bridge of an existing inter-communicator (its local rank 0 is the leader).
Bridge bridge_of(const Comm& inter);

// A new inter-communicator over local and remote members (task ids) with
// `slot`, inheriting `parent`'s error handler. Its handle goes to *out.
int register_inter(const Comm& parent, std::vector<int> local_members,
                   std::vector<int> remote_members, int slot, MPI_Comm* out);

// MPI_Comm_split / MPI_Comm_create on an inter-communicator: members of my
// colour on each side, ordered by key then rank; MPI_COMM_NULL when my
// colour is MPI_UNDEFINED or the other side has no member of it.
int split_inter(const Comm& inter, int color, int key, MPI_Comm* out);
// MPI_Comm_dup on an inter-communicator (attributes are the caller's job).
int dup_inter(const Comm& inter, MPI_Comm* out);

// Returns once every member of both groups has called it (a barrier in
// each group around an empty message between the leaders).
int inter_internal_barrier(const Comm& inter);

}  // namespace mpi
