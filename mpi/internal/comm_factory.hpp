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
  int retry;  // offered less than it has free (another agreement runs here)
};

// Collective over `parent`: every member contributes (color, key) and its
// free context slots; returns all entries (by parent rank) and the lowest
// slot free at every member (-1 if none: MPI_ERR_OTHER is recorded). While
// other threads agree over other parents, it repeats the exchange until it
// gets a slot (ContextSlots explains why that ends). The slot stays free
// here until register_comm takes it: call that before anything that may
// release the MPI lock.
int exchange_and_agree(const Comm& parent, int color, int key, std::vector<CreateEntry>& all,
                       int& slot);

// `members` becomes the members of `g` (this process its rank `me`) as a
// temporary communicator over `slot`, for agreeing on a new communicator
// with exchange_and_agree (MPI_Comm_create_group, the sessions'
// creations): only they take part, and its internal collectives run under
// `tag`, apart from other calls' on that slot (Comm::create_group_tag).
void init_group_members(Comm& members, GroupPtr g, int me, int slot, int tag);

// Every member takes `slot` if it is still free at it; `everyone`: all
// did (else those that did give it back). Collective over `comm`. Context
// slots are agreed in two steps (propose the lowest common free slot, then
// confirm) because a nonblocking MPI_Comm_idup's fiber may take a slot
// while a blocking creation waits: neither side then stalls the other.
int confirm_slot(const Comm& comm, int slot, bool& everyone);

// A new communicator object whose slot returns to the pool when it dies
// (if it owns it), and its entry in the handle table: takes `slot`, sets
// c->handle and *out.
CommPtr new_comm_object();
int install_comm(const CommPtr& c, int slot, MPI_Comm* out);

// A communicator over `members` (world ids) using `slot`, inheriting the
// parent's error handler. Returns its handle in *out. The slot returns to
// the pool when the object dies.
int register_comm(const Comm& parent, std::vector<int> members, int slot, MPI_Comm* out);

// MPI_Comm_dup (intra or inter) with attributes copied and `info` as the
// new communicator's hints.
int dup_comm(const Comm& parent, std::shared_ptr<Info> info, MPI_Comm* newcomm);
// The arguments of MPI_Comm_dup_with_info / MPI_Comm_idup_with_info: `c`
// is the communicator once found (null before), `hints` a copy of `info`
// (null for MPI_INFO_NULL), copied now because the program may free or
// change `info` once the call returns. Returns an MPI class.
int check_dup_with_info(MPI_Comm comm, MPI_Info info, const MPI_Comm* newcomm, Comm*& c,
                        std::shared_ptr<Info>& hints);

// MPI_Comm_split on an intra-communicator (collective over `parent`):
// MPI_COMM_NULL for MPI_UNDEFINED. Returns an MPI class, detail recorded.
int split_intra(const Comm& parent, int color, int key, MPI_Comm* newcomm);

}  // namespace mpi
