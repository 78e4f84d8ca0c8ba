#pragma once
// Creating communicators: the collective agreement on a context slot, and
// the objects themselves.

#include <vector>

#include "mpi/internal/comm.hpp"

namespace mpi {

// What each member of the parent contributes when a communicator is made.
struct CreateEntry {
  std::uint64_t free_slots[ContextSlots::kWords];
  int color;
  int key;
};

// Collective over `parent`: every member contributes (color, key) and its
// free context slots; returns all entries (by parent rank) and the lowest
// slot free at every member (-1 if none: MPI_ERR_OTHER is recorded).
int exchange_and_agree(const Comm& parent, int color, int key, std::vector<CreateEntry>& all,
                       int& slot);

// A communicator over `members` (world ids) using `slot`, inheriting the
// parent's error handler. Returns its handle in *out. The slot returns to
// the pool when the object dies.
int register_comm(const Comm& parent, std::vector<int> members, int slot, MPI_Comm* out);

}  // namespace mpi
