/* A deadlock on purpose, for lapirun's report of where ranks wait
 * (tests/mpi/hang_report_test): rank 1 probes for a message nobody sends,
 * the others receive one from their right neighbour that never comes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d waiting\n", rank);
  fflush(stdout);
  if (rank == 1) {
    MPI_Probe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
