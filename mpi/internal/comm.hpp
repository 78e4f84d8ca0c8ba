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
#include <string>

#include "mpi/internal/errhandler.hpp"
#include "mpi/internal/group.hpp"

namespace mpi {

inline constexpr int kContextSlots = 1024;
inline constexpr std::uint32_t kContextsPerSlot = 4;
inline constexpr int kWorldSlot = 0;
inline constexpr int kSelfSlot = 1;

enum class ContextKind : std::uint32_t {
  p2p = 0,         // the user's point-to-point traffic
  collective = 1,  // barrier, slot agreement, split (and the collectives)
  reserved2 = 2,   // kept for nonblocking collectives / RMA
  reserved3 = 3,
};

// Bit i set = slot i is free at this process.
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

 private:
  std::bitset<kContextSlots> free_;
};

struct Comm {
  GroupPtr group;
  int rank = 0;
  int slot = -1;
  int handle = 0;  // its own handle, for error handler and attribute callbacks
  ErrhandlerPtr errhandler;
  std::map<int, void*> attributes;  // keyval -> value
  std::string name;
  // Nonblocking and persistent collective calls made on this communicator
  // so far (every rank counts the same): their tags' sequence numbers.
  std::uint32_t coll_seq = 0;

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
