#pragma once
// The collectives that move blocks without combining them (gather, scatter,
// allgather, all-to-all), on validated arguments in the user's layouts.
// Counts and displacements are per rank; null displacements mean the
// regular layout (block r right after block r - 1). MPI_IN_PLACE is passed
// as that pointer, where the standard allows it.

#include <cstdint>
#include <vector>

#include "mpi/internal/coll/channel.hpp"
#include "mpi/internal/coll/select.hpp"
#include "mpi/internal/datatype.hpp"

namespace mpi {

struct GatherArgs {
  const void* sendbuf;  // MPI_IN_PLACE at the root: its block is in recvbuf
  std::int64_t sendcount;
  const Datatype* sendtype;
  void* recvbuf;  // significant at the root only
  const int* recvcounts;
  const int* displs;
  const Datatype* recvtype;
  int root;
};
int gather_run(CollChannel& ch, const GatherArgs& a);

struct ScatterArgs {
  const void* sendbuf;  // significant at the root only
  const int* sendcounts;
  const int* displs;
  const Datatype* sendtype;
  void* recvbuf;  // MPI_IN_PLACE at the root: its block stays in sendbuf
  std::int64_t recvcount;
  const Datatype* recvtype;
  int root;
};
int scatter_run(CollChannel& ch, const ScatterArgs& a);

struct AllgatherArgs {
  const void* sendbuf;  // MPI_IN_PLACE: this rank's block is in recvbuf
  std::int64_t sendcount;
  const Datatype* sendtype;
  void* recvbuf;
  const int* recvcounts;
  const int* displs;
  const Datatype* recvtype;
};
int allgather_run(CollChannel& ch, const AllgatherArgs& a);

// One peer's part of an all-to-all: `count` instances of `type` at `buf`.
struct Part {
  char* buf;
  std::int64_t count;
  const Datatype* type;
};
// sends empty: MPI_IN_PLACE (the data to send is in the receive parts).
int alltoall_run(CollChannel& ch, const std::vector<Part>& sends, const std::vector<Part>& recvs);

}  // namespace mpi
