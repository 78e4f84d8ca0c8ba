/* Under lapirun --continue-on-failure, 3 ranks, rank 2 killed (or, with
 * "--cut IFNAME", rank 2 alone on another host deletes that host's network
 * interface and waits: the link is gone, the rank is not): the calls
 * that needed it return MPIX_ERR_PROC_FAILED through MPI_ERRORS_RETURN (a
 * receive posted before it died, a blocking one, sends and receives naming
 * it afterwards, collectives on MPI_COMM_WORLD), while ranks 0 and 1 go on
 * exchanging messages, eager and rendezvous, run collectives on a
 * communicator of their own, and finalize. Prints "OK" per surviving rank. */
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

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

extern char** environ;

/* Rank 2 pulls its host's cable: `ip link del IFNAME`. */
static void cut_link(const char* ifname) {
  char* args[] = {(char*)"ip", (char*)"link", (char*)"del", (char*)ifname, NULL};
  pid_t pid = 0;
  int status = 0;
  CHECK(posix_spawnp(&pid, "ip", NULL, NULL, args, environ) == 0);
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  const char* cut = argc == 3 && strcmp(argv[1], "--cut") == 0 ? argv[2] : NULL;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 3);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm pair; /* ranks 0 and 1, made before rank 2 dies */
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 2 ? MPI_UNDEFINED : 0, rank, &pair));
  int value = 0;
  MPI_Request early;
  if (rank == 0) CHECK_OK(MPI_Irecv(&value, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &early));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Rank 2 dies once both others are past the barrier (they tell it so). */
  if (rank == 2) {
    CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (!cut) raise(SIGKILL);
    cut_link(cut);
    /* Never answered: the launcher (or, cut off from it, the rank itself) ends this rank. */
    CHECK_OK(MPI_Recv(&value, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fprintf(stderr, "FAILED rank 2: a receive nobody sent completed\n");
    return 3;
  }
  CHECK_OK(MPI_Send(&rank, 1, MPI_INT, 2, 1, MPI_COMM_WORLD));
  const double told = MPI_Wtime();

  MPI_Status status;
  if (rank == 0) {
    expect_proc_failed(MPI_Wait(&early, &status), "MPI_Wait on a receive posted before rank 2 died");
  } else {
    expect_proc_failed(MPI_Recv(&value, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, &status),
                       "MPI_Recv from rank 2");
  }
  if (cut) fprintf(stderr, "rank %d: rank 2's failure reported %.3f s after it was told to cut\n", rank, MPI_Wtime() - told);
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
  /* Collectives on a communicator that holds rank 2 fail at once at both
   * survivors (node segment or point-to-point), never wait. */
  static char big[1 << 20];
  int one = 1, sum = 0;
  expect_proc_failed(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier on MPI_COMM_WORLD");
  expect_proc_failed(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce on MPI_COMM_WORLD");
  expect_proc_failed(MPI_Bcast(big, sizeof big, MPI_CHAR, 0, MPI_COMM_WORLD), "1 MiB MPI_Bcast on MPI_COMM_WORLD");
  int blocks[3] = {0, 0, 0};
  expect_proc_failed(MPI_Allgather(&one, 1, MPI_INT, blocks, 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather on MPI_COMM_WORLD");
  /* Rooted ones fail where rank 2's part was needed: at the root (rank 1's part may go through). */
  int rc = MPI_Gather(&one, 1, MPI_INT, blocks, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) expect_proc_failed(rc, "MPI_Gather to rank 0 on MPI_COMM_WORLD");
  rc = MPI_Scatter(blocks, 1, MPI_INT, &sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) expect_proc_failed(rc, "MPI_Scatter from rank 0 on MPI_COMM_WORLD");
  int to_each[3] = {1, 1, 1};
  expect_proc_failed(MPI_Alltoall(to_each, 1, MPI_INT, blocks, 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall on MPI_COMM_WORLD");
  /* Those on the communicator of the two left go on. */
  CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, pair));
  CHECK(sum == 2);
  for (int i = 0; i < (int)sizeof big; ++i) big[i] = rank == 1 ? (char)(i * 7) : 0;
  CHECK_OK(MPI_Bcast(big, sizeof big, MPI_CHAR, 1, pair));
  for (int i = 0; i < (int)sizeof big; ++i) CHECK(big[i] == (char)(i * 7));
  CHECK_OK(MPI_Barrier(pair));
  CHECK_OK(MPI_Comm_free(&pair));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
