#pragma once
// Error handler objects (MPI_Errhandler handles point at these).

#include <memory>

#include "mpi.h"

namespace mpi {

struct Errhandler {
  enum class Kind { fatal, return_codes, user };
  Kind kind = Kind::fatal;
  MPI_Comm_errhandler_function* fn = nullptr;
};

// Shared: a communicator keeps its handler alive after MPI_Errhandler_free.
using ErrhandlerPtr = std::shared_ptr<const Errhandler>;

}  // namespace mpi
