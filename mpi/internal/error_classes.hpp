#pragma once
// Names and descriptions of the MPI error classes (MPI_Error_string).

namespace mpi {

// "MPI_ERR_RANK"; nullptr when `cls` is not an error class.
const char* error_class_name(int cls);
// "invalid rank"; nullptr when `cls` is not an error class.
const char* error_class_text(int cls);

}  // namespace mpi
