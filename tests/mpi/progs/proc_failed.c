/* Under lapirun --continue-on-failure, 3 ranks, rank 2 killed: the calls
 * that needed it return MPIX_ERR_PROC_FAILED through MPI_ERRORS_RETURN (a
 * receive posted before it died, a blocking one, sends and receives naming
 * it afterwards), while ranks 0 and 1 go on exchanging messages, eager and
 * rendezvous, and finalize. Prints "OK" per surviving rank. */
#include <signal.h>
#include <string.h>

#include "check.h"

static void expect_proc_failed(int rc, const char* what) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  if (cls != MPIX_ERR_PROC_FAILED) {
    fprintf(stderr, "FAILED rank %d: %s returned class %d, not MPIX_ERR_PROC_FAILED\n", check_rank(), what, cls);
    exit(3);
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_OK(MPI_Error_string(rc, text, &len));
  CHECK(strstr(text, "MPIX_ERR_PROC_FAILED") != NULL);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int value = 0;
  MPI_Request early;
  if (rank == 0) CHECK_OK(MPI_Irecv(&value, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &early));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Rank 2 dies once both others are past the barrier (they tell it so). */
  if (rank == 2) {
    CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    raise(SIGKILL);
  }
  CHECK_OK(MPI_Send(&rank, 1, MPI_INT, 2, 1, MPI_COMM_WORLD));

  MPI_Status status;
  if (rank == 0) {
    expect_proc_failed(MPI_Wait(&early, &status), "MPI_Wait on a receive posted before rank 2 died");
  } else {
    expect_proc_failed(MPI_Recv(&value, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &status),
                       "MPI_Recv from rank 2");
  }
  /* Rank 2 is known failed now: calls naming it fail at once. */
  expect_proc_failed(MPI_Send(&value, 1, MPI_INT, 2, 7, MPI_COMM_WORLD), "MPI_Send to rank 2");
  expect_proc_failed(MPI_Recv(&value, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &status), "a later MPI_Recv from rank 2");

  /* The two left: small and large messages both ways, content checked. */
  const int other = 1 - rank;
  enum { kBig = 1 << 18 };
  static int out[kBig], in[kBig];
  for (int round = 0; round < 50; ++round) {
    const int n = round % 2 ? kBig : 4;
    for (int i = 0; i < n; ++i) out[i] = rank * 1000003 + round * 31 + i;
    CHECK_OK(MPI_Sendrecv(out, n, MPI_INT, other, round, in, n, MPI_INT, other, round, MPI_COMM_WORLD, &status));
    for (int i = 0; i < n; ++i) CHECK(in[i] == other * 1000003 + round * 31 + i);
  }
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
