/* Under lapirun --continue-on-failure, 4 ranks: rank 2 leaves right after
 * a barrier; the others agree on MPI_COMM_WORLD at once, not knowing yet,
 * so their votes to rank 2 may go out after it died (in interrupt mode
 * through UCX, to a task this one never reached that way: MPICH's
 * test/mpi/ft/agree_shrink hung so); the agreement reports the failure,
 * then shrink, agree again and finalize. Prints "OK" per survivor. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* Everyone is past MPI_Init; rank 2 leaves as soon as it is through the
   * barrier, which may therefore fail elsewhere (either outcome is right). */
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Barrier(MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_SUCCESS || cls == MPIX_ERR_PROC_FAILED);
  if (rank == 2) _exit(EXIT_FAILURE); /* no exit handlers: UCX's race with its own thread at exit trips TSan */
  int flag = 1;
  MPI_Error_class(MPIX_Comm_agree(MPI_COMM_WORLD, &flag), &cls);
  CHECK(cls == MPIX_ERR_PROC_FAILED); /* rank 2 was gone before the agreement ended */
  MPI_Comm shrunk;
  CHECK_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
  int n = 0;
  CHECK_OK(MPI_Comm_size(shrunk, &n));
  CHECK(n == 3);
  flag = rank == 0 ? 6 : 7;
  CHECK_OK(MPIX_Comm_agree(shrunk, &flag));
  CHECK(flag == 6);
  CHECK_OK(MPI_Comm_free(&shrunk));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
