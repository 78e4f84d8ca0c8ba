/* Under lapirun --continue-on-failure, 3 ranks: rank 1 leaves the moment
 * its MPI_Init returns, as MPICH's test/mpi/ft programs do, while the
 * others may still be inside theirs. What rank 1 sent during MPI_Init still
 * counts, so their MPI_Init succeeds (it failed about 1 run in 8 in
 * interrupt mode when lapi's address_init gave up at the first failure);
 * then ranks 0 and 2 exchange a message and finalize. Prints "OK" per
 * survivor. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) _exit(EXIT_FAILURE); /* no exit handlers: UCX's race with its own thread at exit trips TSan */
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int value = rank == 0 ? 42 : 0;
  if (rank == 0) {
    CHECK_OK(MPI_Send(&value, 1, MPI_INT, 2, 0, MPI_COMM_WORLD));
  } else {
    CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(value == 42);
  }
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
