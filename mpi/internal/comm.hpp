#pragma once
// Communicator objects and the context-slot pool they draw from.
//
// Every communicator owns one context SLOT; the slot yields a few mpcpi
// context ids (user point-to-point, internal collective traffic, ...), so
// library traffic can never match a user receive, wildcard or not. A slot is
// agreed collectively when a communicator is created (see context_agree.hpp)
// and is free again locally once the communicator is freed.

#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mpi/internal/attr_value.hpp"
#include "mpi/internal/errhandler.hpp"
#include "mpi/internal/group.hpp"

namespace mpi {

inline constexpr int kContextSlots = 1024;
inline constexpr std::uint32_t kContextsPerSlot = 8;
inline constexpr int kWorldSlot = 0;
inline constexpr int kSelfSlot = 1;

enum class ContextKind : std::uint32_t {
  p2p = 0,         // the user's point-to-point traffic
  collective = 1,  // barrier, slot agreement, split (and the collectives)
  reserved2 = 2,   // kept for nonblocking collectives / RMA
  reserved3 = 3,
  // ULFM's agreements (MPIX_Comm_agree/shrink, ulfm.cc): the one context
  // that MPIX_Comm_revoke leaves working.
  fault_tolerance = 4,
};
// What MPIX_Comm_revoke revokes: the contexts before fault_tolerance.
inline constexpr std::uint32_t kRevocableContexts = 4;

// Bit i set = slot i is free at this process.
//
// Under MPI_THREAD_MULTIPLE several threads may agree on slots at once (on
// different parent communicators), each agreement releasing the MPI lock
// while it waits. Slots a running agreement offered are reserved, so no
// other agreement of this process offers them too; and only the agreement
// whose parent has the lowest slot among those running here offers any
// (the others offer none and try again), so the one with the lowest parent
// slot in the whole job always gets every member's offer and succeeds
// (MPICH's context-id scheme, simplified). Guarded by the MPI lock.
class ContextSlots {
 public:
  static constexpr int kWords = kContextSlots / 64;
  ContextSlots();
  void take(int slot) { free_.reset(slot); }
  void release(int slot) { free_.set(slot); }
  bool is_free(int slot) const { return free_.test(slot); }
  // The free set as words for the AND-reduction across a communicator.
  void to_words(std::uint64_t (&words)[kWords]) const;
  // Lowest slot set in `words` (after the reduction), or -1.
  static int lowest(const std::uint64_t (&words)[kWords]);

  // An agreement over a parent with slot `parent_slot` starts / ends here.
  void begin_agreement(int parent_slot) { running_.insert(parent_slot); }
  void end_agreement(int parent_slot) { running_.erase(running_.find(parent_slot)); }
  // What the agreement over `parent_slot` offers now: the free, unreserved
  // slots if it leads (they become reserved), else none. False when the
  // offer is not every free slot (it does not lead, or another agreement
  // holds some): if no common slot comes out, it must try again rather than
  // conclude that none is free.
  bool offer(int parent_slot, std::uint64_t (&words)[kWords]);
  // The agreement is over: its offer is no longer reserved.
  void withdraw(const std::uint64_t (&words)[kWords]);
  // A slot for a communicator of this process alone: the lowest free one
  // not reserved, else the lowest free one (-1: none).
  int free_for_one() const;

 private:
  std::bitset<kContextSlots> free_;
  std::bitset<kContextSlots> reserved_;
  std::multiset<int> running_;
};

struct Info;
struct Topology;     // topology.hpp
struct NodeSegment;  // coll/node.hpp
struct JoinedTasks;  // connect.hpp

struct Comm {
  GroupPtr group;
  int rank = 0;
  int slot = -1;
  int handle = 0;  // its own handle, for error handler and attribute callbacks
  ErrhandlerPtr errhandler;
  std::map<int, AttrValue> attributes;  // keyval -> value
  // The keyvals of `attributes` in the order they were first set: deletion
  // runs in reverse (LIFO), which MPI-2.2+ requires for MPI_COMM_SELF at
  // MPI_Finalize. Setting a key again keeps its place.
  std::vector<int> attribute_order;
  std::string name;
  // Nonblocking and persistent collective calls made on this communicator
  // so far (every rank counts the same): their tags' sequence numbers.
  std::uint32_t coll_seq = 0;
  // Cartesian, graph or distributed-graph topology (null: none). Immutable;
  // MPI_Comm_dup shares it.
  std::shared_ptr<const Topology> topo;

  // Inter-communicators: the remote group (null for an intra-communicator)
  // and an intra-communicator over the local group that the collectives run
  // on. It shares this communicator's slot and contexts: the two groups are
  // disjoint and every collective receive names its source, so local and
  // cross-group traffic never match each other. It never owns the slot.
  GroupPtr remote_group;
  std::shared_ptr<Comm> local;
  bool owns_slot = true;
  // Hints from MPI_Comm_set_info / MPI_Comm_dup_with_info (null: none).
  std::shared_ptr<Info> info;
  // The shared-memory segment of its node collectives (coll/node.hpp owns
  // it): node_state 0 = not tried yet, 1 = set up, -1 = cannot.
  NodeSegment* node = nullptr;
  std::int8_t node_state = 0;
  // Its collective context is bound to its members in mpcpi (at its first
  // collective): a member's failure then fails its collectives everywhere
  // rather than leaving ranks waiting for live ones that gave up.
  mutable bool coll_bound = false;
  // Its point-to-point context follows ULFM's rule for receives from any
  // source in mpcpi (watch_any_source, p2p_common.hpp): set at its first
  // receive or probe from MPI_ANY_SOURCE.
  mutable bool any_source_watched = false;
  // ULFM (ulfm.cc): agreements made on it so far (every rank counts the
  // same; their tags), and the members whose failure MPIX_Comm_failure_ack
  // acknowledged (communicator ranks, ascending).
  std::uint32_t agree_seq = 0;
  std::vector<int> acked_failed;
  // MPI_Comm_create_group's members while they agree on a slot (a
  // temporary communicator over the parent's slot): the call's tag, which
  // keeps its internal collectives apart from those of calls with other
  // tags that other threads may make at once (internal_coll.hpp); else -1.
  int create_group_tag = -1;
  // Tasks of another job it reaches (MPI_Comm_accept/connect/join; connect.hpp), shared by the
  // communicators made from it: left once the last of them is freed or disconnected.
  std::vector<std::shared_ptr<JoinedTasks>> joined;
  // Buffered sends (MPI 4.1): the engine's key of the buffer attached to
  // it (MPI_Comm_attach_buffer; 0: none, never inherited), and the session
  // it derives from (its group's, passed on to the communicators made from
  // it), whose buffer they use when it has none (bsend_buffer_of).
  std::uint64_t bsend_key = 0;
  std::weak_ptr<Session> session;

  bool is_inter() const { return remote_group != nullptr; }
  // The group point-to-point ranks address: the remote group of an
  // inter-communicator, else the communicator's own.
  const Group& peers() const { return remote_group ? *remote_group : *group; }
  int peer_size() const { return peers().size(); }
  int peer_world_of(int r) const { return peers().world_of(r); }
  int peer_rank_of_world(int w) const { return peers().rank_of(w); }

  int size() const { return group->size(); }
  std::uint32_t context(ContextKind kind) const {
    return static_cast<std::uint32_t>(slot) * kContextsPerSlot + static_cast<std::uint32_t>(kind);
  }
  // Task id of communicator rank r.
  int world_of(int r) const { return group->world_of(r); }
  // Communicator rank of a world task id (-1 if not a member).
  int rank_of_world(int w) const { return group->rank_of(w); }
};

using CommPtr = std::shared_ptr<Comm>;

}  // namespace mpi
