#pragma once
// Data representations registered with MPI_Register_datarep(_c) (MPI 4.0
// section 14.5.3): the program's conversion functions run as data moves
// through a view with such a representation (file_access.cc).
//
// The file's layout is the types' own: every predefined type the etype,
// filetype and memory type are made of must have, by the representation's
// dtype_file_extent_fn, its native size as its file extent (otherwise
// MPI_ERR_UNSUPPORTED_DATAREP naming the type). Conversion functions work
// on a contiguous buffer of count * size bytes, called with position 0
// (and again, further on, when count is beyond what their count argument
// holds); MPI_CONVERSION_FN_NULL (a null function) means the bytes are
// moved as they are.

#include <string>

#include "mpi.h"

namespace mpi::io {

struct UserDatarep {
  // One pair is set: the int-count functions (MPI_Register_datarep) or the
  // MPI_Count ones (MPI_Register_datarep_c); either may be null.
  MPI_Datarep_conversion_function* read = nullptr;
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_conversion_function_c* read_c = nullptr;
  MPI_Datarep_conversion_function_c* write_c = nullptr;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra_state = nullptr;
};

// MPI_ERR_DUP_DATAREP for a predefined or registered name.
int register_datarep(const std::string& name, const UserDatarep& rep);
// The registered representation `name`, or null.
const UserDatarep* find_datarep(const std::string& name);

// Whether every predefined type `type` is made of has its native size as
// its file extent in `rep`; MPI_ERR_UNSUPPORTED_DATAREP naming `arg`
// otherwise, or the extent function's error.
int check_datarep_type(const UserDatarep& rep, MPI_Datatype type, const char* arg);

// `count` items of `type` from the user's buffer into `filebuf` (write),
// or from `filebuf` into the user's buffer (read), through rep's
// functions. Returns an MPI class (the conversion function's code, or
// MPI_ERR_CONVERSION when it returned one that is not an error class).
int convert_for_write(const UserDatarep& rep, const void* userbuf, MPI_Datatype type,
                      MPI_Count count, void* filebuf);
int convert_after_read(const UserDatarep& rep, void* userbuf, MPI_Datatype type,
                       MPI_Count count, void* filebuf);

}  // namespace mpi::io
