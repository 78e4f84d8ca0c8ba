/* ULFM's rule for receives from MPI_ANY_SOURCE, under lapirun
 * --continue-on-failure, 3 ranks: rank 1 leaves after a barrier. Until
 * rank 0 acknowledges the failure (MPIX_Comm_failure_ack), a blocking
 * receive or probe from any source fails with MPIX_ERR_PROC_FAILED, and a
 * nonblocking one stays active while MPI_Wait, the Test forms and
 * MPI_Request_get_status answer MPIX_ERR_PROC_FAILED_PENDING (flag 0;
 * MPI_Waitall and MPI_Testsome with MPI_ERR_IN_STATUS); it can be
 * cancelled; receives naming the live rank 2, and a wildcard receive
 * matching a message already here, work. After the acknowledgement the
 * pending requests (a persistent one too) complete with rank 2's messages,
 * and new wildcard receives work. Another communicator that never received
 * from any source is not touched. Prints "OK" per survivor. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { kEarly = 5, kPending = 1, kPersistent = 6, kAfter = 2, kSpecific = 4, kCancel = 3, kGo = 0 };

static void rank0(MPI_Comm other) {
  int value = -1;
  MPI_Status st;
  /* Wakes with the failure (or finds it already known). */
  CHECK_CLASS(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, kPending, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              MPIX_ERR_PROC_FAILED);
  int flag = 1;
  CHECK_CLASS(MPI_Iprobe(MPI_ANY_SOURCE, kPending, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
              MPIX_ERR_PROC_FAILED);

  /* A nonblocking one stays active, answering PENDING. */
  MPI_Request pending = MPI_REQUEST_NULL;
  int got = -1;
  int rc = MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, kPending, MPI_COMM_WORLD, &pending);
  CHECK(pending != MPI_REQUEST_NULL);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_SUCCESS || cls == MPIX_ERR_PROC_FAILED_PENDING);
  CHECK_CLASS(MPI_Wait(&pending, &st), MPIX_ERR_PROC_FAILED_PENDING);
  CHECK(pending != MPI_REQUEST_NULL);
  flag = 1;
  CHECK_CLASS(MPI_Test(&pending, &flag, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING);
  CHECK(flag == 0 && pending != MPI_REQUEST_NULL);
  int index = -1;
  flag = 1;
  CHECK_CLASS(MPI_Testany(1, &pending, &index, &flag, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING);
  CHECK(flag == 0 && index == 0 && pending != MPI_REQUEST_NULL);
  int outcount = -1, indices[1] = {-1};
  MPI_Status one[1];
  CHECK_CLASS(MPI_Testsome(1, &pending, &outcount, indices, one), MPI_ERR_IN_STATUS);
  CHECK(outcount == 1 && indices[0] == 0 && one[0].MPI_ERROR == MPIX_ERR_PROC_FAILED_PENDING);
  CHECK(pending != MPI_REQUEST_NULL);
  flag = 1;
  CHECK_CLASS(MPI_Request_get_status(pending, &flag, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING);
  CHECK(flag == 0);

  /* The same for a persistent receive. */
  MPI_Request persistent = MPI_REQUEST_NULL;
  int got_persistent = -1;
  CHECK_OK(MPI_Recv_init(&got_persistent, 1, MPI_INT, MPI_ANY_SOURCE, kPersistent, MPI_COMM_WORLD, &persistent));
  CHECK_OK(MPI_Start(&persistent));
  CHECK_CLASS(MPI_Wait(&persistent, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED_PENDING);

  /* In an array: MPI_ERR_IN_STATUS, the request left as it is. */
  MPI_Request two[2];
  int pair[2] = {-1, -1};
  MPI_Status sts[2];
  CHECK_OK(MPI_Irecv(&pair[0], 1, MPI_INT, MPI_ANY_SOURCE, kCancel, MPI_COMM_WORLD, &two[0]));
  CHECK_OK(MPI_Irecv(&pair[1], 1, MPI_INT, 2, kSpecific, MPI_COMM_WORLD, &two[1]));
  CHECK_OK(MPI_Send(&value, 1, MPI_INT, 2, kGo, MPI_COMM_WORLD)); /* rank 2 sends kEarly, kSpecific */
  CHECK_CLASS(MPI_Waitall(2, two, sts), MPI_ERR_IN_STATUS);
  CHECK(sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED_PENDING && two[0] != MPI_REQUEST_NULL);
  CHECK(sts[1].MPI_ERROR == MPI_SUCCESS && two[1] == MPI_REQUEST_NULL && pair[1] == 200 + kSpecific);
  /* A pending request can be cancelled. */
  CHECK_OK(MPI_Cancel(&two[0]));
  CHECK_OK(MPI_Wait(&two[0], &st));
  int cancelled = 0;
  CHECK_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled == 1 && two[0] == MPI_REQUEST_NULL);

  /* A message already here still matches a wildcard receive. */
  CHECK_OK(MPI_Probe(2, kEarly, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, kEarly, MPI_COMM_WORLD, &st));
  CHECK(value == 200 + kEarly && st.MPI_SOURCE == 2);
  /* Nothing changed on a communicator without wildcard receives. */
  CHECK_OK(MPI_Send(&value, 1, MPI_INT, 1, 7, other));
  CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 1, 7, other, MPI_STATUS_IGNORE));
  CHECK(value == 700);

  /* Acknowledged: the pending ones complete with rank 2's messages. */
  CHECK_OK(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  CHECK_OK(MPI_Send(&value, 1, MPI_INT, 2, kGo, MPI_COMM_WORLD)); /* kPending, kPersistent, kAfter */
  CHECK_OK(MPI_Wait(&pending, &st));
  CHECK(got == 200 + kPending && st.MPI_SOURCE == 2 && pending == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Wait(&persistent, &st));
  CHECK(got_persistent == 200 + kPersistent && st.MPI_SOURCE == 2);
  CHECK_OK(MPI_Request_free(&persistent));
  CHECK_OK(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, kAfter, MPI_COMM_WORLD, &st));
  CHECK(value == 200 + kAfter && st.MPI_SOURCE == 2);
}

/* Rank 2 sends what rank 0 asks for, in two rounds (kGo), answering on
 * `other` in between. */
static void rank2(MPI_Comm other) {
  int value = 0;
  CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, kGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  const int first[] = {kEarly, kSpecific};
  for (int i = 0; i < 2; ++i) {
    value = 200 + first[i];
    CHECK_OK(MPI_Send(&value, 1, MPI_INT, 0, first[i], MPI_COMM_WORLD));
  }
  CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, 7, other, MPI_STATUS_IGNORE));
  value = 700;
  CHECK_OK(MPI_Send(&value, 1, MPI_INT, 0, 7, other));
  CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, kGo, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  const int second[] = {kPending, kPersistent, kAfter};
  for (int i = 0; i < 3; ++i) {
    value = 200 + second[i];
    CHECK_OK(MPI_Send(&value, 1, MPI_INT, 0, second[i], MPI_COMM_WORLD));
  }
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* Ranks 0 and 2 of world, as 0 and 1: rank 1's failure is not its business. */
  MPI_Comm other;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 1 ? MPI_UNDEFINED : 0, rank, &other));
  /* Everyone is past the split; rank 1 leaves as soon as it is through the
   * barrier, which may therefore fail elsewhere (either outcome is right). */
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Barrier(MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_SUCCESS || cls == MPIX_ERR_PROC_FAILED);
  if (rank == 1) _exit(EXIT_FAILURE); /* no exit handlers: UCX's race with its own thread at exit trips TSan */
  CHECK_OK(MPI_Comm_set_errhandler(other, MPI_ERRORS_RETURN));
  if (rank == 0) {
    rank0(other);
  } else {
    rank2(other);
  }
  CHECK_OK(MPI_Comm_free(&other));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
