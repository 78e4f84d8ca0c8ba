#pragma once
// MPI_Message handles: a message taken out of matching by MPI_(I)mprobe.

#include "mpcpi/mpcpi.hpp"
#include "mpi/internal/comm.hpp"
#include "mpi/internal/handles.hpp"

namespace mpi {

struct MatchedMessage {
  mpcpi::Message* msg = nullptr;
  CommPtr comm;
};

HandleTable<MatchedMessage>& messages();

}  // namespace mpi
