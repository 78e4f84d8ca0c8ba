/* Under lapirun --continue-on-failure, 2 ranks: rank 1 exits right after
 * MPI_Init (and a message saying so), taking in nothing; rank 0's sends to it (1 B, 100 kB
 * and 4 MiB, nonblocking and blocking; on one node the large ones go by
 * split copy, which the target would help copy) all end — with success,
 * the data having left, or MPIX_ERR_PROC_FAILED — and never wait for the
 * dead rank (MPICH's test/mpi/ft/isenddead hung here). Prints "OK". */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static void expect_done(int rc, const char* what) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  if (cls != MPI_SUCCESS && cls != MPIX_ERR_PROC_FAILED) {
    fprintf(stderr, "FAILED rank 0: %s returned class %d\n", what, cls);
    exit(3);
  }
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2);
  /* Rank 1 says it is past MPI_Init and leaves at once; rank 0 sends once it
   * heard, or heard of its death first (its last message may then be lost). */
  int note = 0;
  if (rank == 1) {
    CHECK_OK(MPI_Send(&note, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
    _exit(EXIT_FAILURE); /* no exit handlers: UCX's race with its own thread at exit trips TSan */
  }
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  expect_done(MPI_Recv(&note, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv of its last message");
  static char buf[4 << 20];
  const int sizes[] = {1, 100000, 4 << 20};
  MPI_Request reqs[3];
  for (int i = 0; i < 3; ++i) {
    int rc = MPI_Isend(buf, sizes[i], MPI_CHAR, 1, i, MPI_COMM_WORLD, &reqs[i]);
    expect_done(rc, "MPI_Isend to the dead rank");
    if (rc != MPI_SUCCESS) reqs[i] = MPI_REQUEST_NULL;
  }
  for (int i = 0; i < 3; ++i) expect_done(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE), "MPI_Wait on a send to the dead rank");
  for (int i = 0; i < 3; ++i) expect_done(MPI_Send(buf, sizes[i], MPI_CHAR, 1, 10 + i, MPI_COMM_WORLD), "MPI_Send to the dead rank");
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
