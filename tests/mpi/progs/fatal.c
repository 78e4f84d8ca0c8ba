/* Jobs that must end with a non-zero status (argv[1] picks the case):
 *   bad-rank     the last rank sends to a bad rank under MPI_ERRORS_ARE_FATAL
 *   before-init  MPI_Send before MPI_Init
 *   abort        the last rank calls MPI_Abort while the others block
 *   truncate     rank 0 receives a too-long message (fatal handler)
 *   exit-in-recv     the last rank exits 0 without MPI_Finalize while rank 0 waits in MPI_Recv
 *   exit-in-finalize the last rank exits 0 without MPI_Finalize; the others call MPI_Finalize */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int v[4] = {0};
  if (strcmp(what, "before-init") == 0) {
    MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    printf("NOT REACHED\n");
    return 0;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(what, "bad-rank") == 0) {
    if (rank == size - 1) MPI_Send(v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    if (rank != size - 1) MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "abort") == 0) {
    if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(what, "exit-in-recv") == 0 || strcmp(what, "exit-in-finalize") == 0) {
    if (rank == size - 1) exit(0);
    if (what[8] == 'r') {
      MPI_Recv(v, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Finalize();
      return 0; /* not reached either: the launcher ends the job first */
    }
  } else if (strcmp(what, "truncate") == 0) {
    MPI_Request r;
    if (rank == (size > 1 ? 1 : 0)) MPI_Isend(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    if (rank == 0) MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("NOT REACHED\n");
  MPI_Finalize();
  return 0;
}
