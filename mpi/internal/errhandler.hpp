#pragma once
// Error handler objects (MPI_Errhandler handles point at these).

#include <memory>

#include "mpi.h"

namespace mpi {

struct Errhandler {
  // cxx_exceptions: MPICH's MPIR_ERRORS_THROW_EXCEPTIONS, which its C++
  // bindings (MPI::ERRORS_THROW_EXCEPTIONS) set. The C layer returns the
  // code as for return_codes; the binding sees the handler and throws.
  enum class Kind { fatal, return_codes, cxx_exceptions, user };
  Kind kind = Kind::fatal;
  MPI_Comm_errhandler_function* fn = nullptr;
  // Set by MPICH's C++ bindings (MPII_Errhandler_set_cxx, mpich_cxx.cc)
  // right after they create the handler, before any object can carry it:
  // `fn` is then a C++ function called through the bindings' trampoline.
  mutable bool cxx = false;
  // A file handler written in Fortran (MPI_File_create_errhandler through
  // mpif.h, mpi or mpi_f08): called with the file's Fortran INTEGER handle.
  bool fortran_file = false;
};

// Shared: a communicator keeps its handler alive after MPI_Errhandler_free.
using ErrhandlerPtr = std::shared_ptr<const Errhandler>;

// MPI_Comm_get_errhandler / MPI_Win_get_errhandler: the predefined handle,
// or for a user handler the handle the program already has for it, so that
// it compares equal (as in MPICH and Open MPI), counted so that each get's
// MPI_Errhandler_free leaves it to the others; a new one if none is live.
MPI_Errhandler errhandler_handle_for(const ErrhandlerPtr& h);
// MPI_Errhandler_free of a user handle: true when it only settled one get
// (the handle stays valid).
bool settle_errhandler_get(MPI_Errhandler handle);

}  // namespace mpi
