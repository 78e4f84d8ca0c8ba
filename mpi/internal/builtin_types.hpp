#pragma once
// The predefined datatypes of mpi.h.

#include <vector>

#include "mpi.h"
#include "mpi/internal/datatype.hpp"

namespace mpi {

// Indexed by element id = predefined_slot(handle) (mpi/internal/handles.hpp);
// the slots between them, and slot 0, are null. Built once, never freed.
const std::vector<TypePtr>& builtin_types();
// The handle of each of them, in mpi.h's order.
const std::vector<MPI_Datatype>& builtin_type_handles();

}  // namespace mpi
