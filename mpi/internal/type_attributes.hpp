#pragma once
// Attributes cached on datatypes (MPI_Type_create_keyval ...): kept here by
// datatype handle, since datatype objects are immutable and shared. Keyval
// handles come from the same counter as the communicators' keyvals.

#include "mpi.h"
#include "mpi/internal/mpich_cxx.hpp"

namespace mpi {

// MPI_Type_dup: runs the copy callbacks from `from` onto `to`.
int copy_type_attributes(MPI_Datatype from, MPI_Datatype to);
// MPI_Type_free: runs the delete callbacks and forgets the type's values.
int delete_type_attributes(MPI_Datatype type);
// MPI_Type_free, a failed MPI_Type_dup: deletes the attributes, drops the handle (pending
// operations and derived types keep their own reference) and sets it to MPI_DATATYPE_NULL.
// Returns the delete callbacks' first error.
int release_type(MPI_Datatype* handle);
// A datatype keyval's callbacks (MPII_Keyval_set_proxy), or null.
AttrCallbacks* type_keyval_callbacks(int keyval);

}  // namespace mpi
