/* A deadlock on purpose, for lapirun's report of where ranks wait
 * (tests/mpi/hang_report_test): rank 1 probes for a message nobody sends,
 * the others receive one from their right neighbour that never comes.
 * `spawn`: first spawns 2 copies of itself that deadlock the same way, then
 * every parent waits for a message from child 0 that never comes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc >= 2 && strcmp(argv[1], "spawn") == 0) {
    MPI_Comm children;
    MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children,
                   MPI_ERRCODES_IGNORE);
    int y = 0;
    printf("parent waiting\n");
    fflush(stdout);
    MPI_Recv(&y, 1, MPI_INT, 0, 9, children, MPI_STATUS_IGNORE);
  }
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
