#pragma once
// Partitioned point-to-point (MPI 4.0 chapter 4) over the engine's plain
// point-to-point.
//
// Design (the simple one): a partitioned send is one engine message of all
// partitions, posted when the last partition of the epoch is marked ready
// (the MPI_Pready* call that readies it posts the send); a partitioned
// receive is one engine receive of the whole buffer, posted by MPI_Start, and
// MPI_Parrived reports every partition arrived once that receive has
// completed (none before). So sender and receiver may partition differently
// as long as the totals (in bytes of the type signature) match. Messages go on
// the communicator's reserved3 context under the user's tag, so they never
// match ordinary sends and receives (the context MPI_Comm_create_group uses on
// its parent for its own agreement, under its tag, while that call runs).
//
// A started send whose partitions are not all ready has no engine request:
// MPI_Test* report it not complete. MPI_Wait and MPI_Waitall on it wait,
// under MPI_THREAD_MULTIPLE, for other threads' MPI_Pready (dropping the MPI
// lock between checks); at lower levels they refuse it with MPI_ERR_REQUEST,
// since no other thread could mark a partition while this one waits.
// MPI_Waitany/Waitsome pass it over like an inactive request.

#include <cstdint>
#include <vector>

#include "mpi/internal/request.hpp"

namespace mpi {

struct Partitioned {
  bool send = false;  // MPI_Psend_init (else MPI_Precv_init), also for MPI_PROC_NULL
  int partitions = 0;
  long count = 0;  // elements per partition
  // Send: partitions marked ready in this epoch, and how many.
  std::vector<std::uint8_t> ready;
  int ready_count = 0;
  bool posted = false;  // the epoch's engine operation is posted (or none is needed)
};

// MPI_Start of a partitioned request (start_request calls it): a receive
// posts its engine receive; a send clears its ready marks and waits for them.
[[gnu::noinline]] int start_partitioned(Request& r);

// Marks partition `p` of send request r ready (validated by the caller);
// posts the send when it was the last one.
int pready_one(Request& r, int p);

// An active partitioned send still waiting for MPI_Pready (no engine request
// yet): not complete.
inline bool awaiting_pready(const Request& r) {
  return r.part != nullptr && r.active && !r.part->posted;
}

}  // namespace mpi
