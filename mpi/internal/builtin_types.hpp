#pragma once
// The predefined datatypes of mpi.h, indexed like their handles
// (MPI_CHAR has index 1 ... LAPIS_NUM_BUILTIN_TYPES).

#include <vector>

#include "mpi/internal/datatype.hpp"

namespace mpi {

// Element 0 is null (MPI_DATATYPE_NULL); built once, never freed.
const std::vector<TypePtr>& builtin_types();

}  // namespace mpi
