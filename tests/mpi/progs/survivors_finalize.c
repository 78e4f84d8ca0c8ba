/* Under lapirun --continue-on-failure, 4 ranks: a communicator of ranks 0,
 * 2 and 3 is made, then rank 1 exits. Rank 0 roots scatters on
 * MPI_COMM_WORLD that fail for want of rank 1 (small, then large), then all
 * three reduce to rank 0 on their communicator, its first collective, and
 * finalize at once. Ranks 2 and 3 leave the reduce first; their
 * MPI_Finalize must not unmap the node segment rank 0 still reads (it
 * crashed so, from MPICH's test/mpi/ft/scatter). Prints "OK" per survivor. */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Group world, others;
  const int gone[1] = {1};
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_OK(MPI_Group_excl(world, 1, gone, &others));
  MPI_Comm left = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, others, 0, &left));
  /* Rank 1 leaves once the others are past MPI_Init (they tell it so). */
  int note = 0;
  if (rank == 1) {
    for (int from = 0; from < 4; from += from == 0 ? 2 : 1)
      CHECK_OK(MPI_Recv(&note, 1, MPI_INT, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    _exit(EXIT_FAILURE); /* no exit handlers: UCX's race with its own thread at exit trips TSan */
  }
  CHECK_OK(MPI_Send(&note, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
  static char out[4 * 100000], in[100000];
  for (int n = 10; n <= 100000; n *= 10000) {
    const int rc = MPI_Scatter(out, n, MPI_CHAR, in, n, MPI_CHAR, 0, MPI_COMM_WORLD);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_SUCCESS || cls == MPIX_ERR_PROC_FAILED);
    CHECK(rank != 0 || cls == MPIX_ERR_PROC_FAILED);
  }
  int one = 1, sum = 0;
  CHECK_OK(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, left));
  CHECK(rank != 0 || sum == 3);
  CHECK_OK(MPI_Comm_free(&left));
  CHECK_OK(MPI_Group_free(&others));
  CHECK_OK(MPI_Group_free(&world));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
