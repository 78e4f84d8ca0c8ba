#pragma once
// Communicator attributes: user keyvals with copy/delete callbacks, plus the
// predefined read-only keys (MPI_TAG_UB ...).

#include "mpi/internal/comm.hpp"

namespace mpi {

// MPI_Comm_dup: runs each keyval's copy callback from `from` into `to`.
// Returns the first callback error (an MPI class) or MPI_SUCCESS.
int copy_attributes(const Comm& from, Comm& to);
// Sets or replaces one attribute, keeping the order keys were first set.
void set_attribute(Comm& comm, int keyval, AttrValue value);
// Removes one attribute (no callback), if set.
void erase_attribute(Comm& comm, int keyval);
// MPI_Comm_free / MPI_Finalize: runs the delete callbacks in reverse order of
// setting (LIFO, as MPI requires for MPI_COMM_SELF), empties the map.
int delete_all_attributes(Comm& comm);
// MPI_Comm_free, MPI_Comm_disconnect, a failed MPI_Comm_dup: deletes the attributes, drops the
// handle (pending requests keep the object; its context slot returns to the pool when the last
// of them completes, see new_comm) and sets it to MPI_COMM_NULL. Returns the delete callbacks'
// first error.
int release_comm(Comm& comm, MPI_Comm* handle);

}  // namespace mpi
