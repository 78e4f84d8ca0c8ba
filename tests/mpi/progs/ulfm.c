/* ULFM (MPICH's MPIX_Comm_revoke/agree/shrink/failure_ack/failure_get_acked)
 * under lapirun --continue-on-failure, 4 ranks. First with every rank alive:
 * agree ANDs the flags, shrink gives a copy, a revoked communicator fails
 * the receives and barriers waiting in it at every rank and every later
 * call but agree and shrink. Then rank 3 is killed: agree reports the
 * failure until it is acknowledged, get_acked names it, shrink leaves it
 * out and its communicator works, a revoke of MPI_COMM_WORLD wakes the
 * survivors blocked on it. Bad input for every function. Prints "OK" per
 * surviving rank. */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* A fresh duplicate of `parent` that returns errors. */
static MPI_Comm dup_returning(MPI_Comm parent) {
  MPI_Comm c;
  CHECK_OK(MPI_Comm_dup(parent, &c));
  CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  return c;
}

/* rank `revoker` revokes c; the others are (or soon will be) blocked in a
 * receive from any source, then a barrier: both fail with MPIX_ERR_REVOKED. */
static void revoke_wakes_waiters(MPI_Comm c, int revoker) {
  int rank, size, value = 0;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  if (rank == revoker) {
    CHECK_OK(MPIX_Comm_revoke(c));
    CHECK_OK(MPIX_Comm_revoke(c)); /* twice is harmless */
  } else {
    CHECK_CLASS(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 5, c, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED);
  }
  /* Everything after it fails, at every rank, without waiting for anyone. */
  CHECK_CLASS(MPI_Barrier(c), MPIX_ERR_REVOKED);
  CHECK_CLASS(MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, 5, c), MPIX_ERR_REVOKED);
  static char big[1 << 20];
  MPI_Request req;
  int rc = MPI_Isend(big, sizeof big, MPI_CHAR, (rank + 1) % size, 6, c, &req);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK_CLASS(rc, MPIX_ERR_REVOKED);
  CHECK_CLASS(MPI_Recv(&value, 1, MPI_INT, (rank + size - 1) % size, 5, c, MPI_STATUS_IGNORE),
              MPIX_ERR_REVOKED);
  int flag = 0;
  CHECK_CLASS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED);
  int one = 1, sum = 0;
  CHECK_CLASS(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c), MPIX_ERR_REVOKED);
  /* Agree and shrink still work on it. */
  flag = rank == revoker ? 6 : 7;
  CHECK_OK(MPIX_Comm_agree(c, &flag));
  CHECK(flag == 6);
  MPI_Comm shrunk;
  CHECK_OK(MPIX_Comm_shrink(c, &shrunk));
  int n = 0;
  CHECK_OK(MPI_Comm_size(shrunk, &n));
  CHECK(n == size);
  CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, shrunk));
  CHECK(sum == size);
  CHECK_OK(MPI_Comm_free(&shrunk));
  CHECK_OK(MPI_Comm_free(&c));
}

static void bad_input(void) {
  int flag = 1;
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPIX_Comm_revoke(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_agree(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_agree(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Comm_shrink(MPI_COMM_NULL, &out), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_shrink(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Comm_failure_ack(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_failure_get_acked(MPI_COMM_NULL, &g), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_failure_get_acked(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Comm_agree((MPI_Comm)0x12345, &flag), MPI_ERR_COMM);
  /* On MPI_COMM_SELF: the flag comes back, shrink copies it. */
  flag = 0x5a;
  CHECK_OK(MPIX_Comm_agree(MPI_COMM_SELF, &flag));
  CHECK(flag == 0x5a);
  CHECK_OK(MPIX_Comm_shrink(MPI_COMM_SELF, &out));
  int n = 0;
  CHECK_OK(MPI_Comm_size(out, &n));
  CHECK(n == 1);
  CHECK_OK(MPI_Comm_free(&out));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  bad_input();

  /* ---- Everyone alive ---- */
  int flag = rank == 2 ? 0x0f : 0xff;
  CHECK_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0x0f);
  flag = -1;
  CHECK_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == -1);
  MPI_Group acked;
  CHECK_OK(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  CHECK_OK(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked));
  int n = -1;
  CHECK_OK(MPI_Group_size(acked, &n));
  CHECK(n == 0);
  if (acked != MPI_GROUP_EMPTY) CHECK_OK(MPI_Group_free(&acked));
  MPI_Comm copy;
  CHECK_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &copy));
  int crank = -1;
  CHECK_OK(MPI_Comm_size(copy, &n));
  CHECK_OK(MPI_Comm_rank(copy, &crank));
  CHECK(n == 4 && crank == rank);
  CHECK_OK(MPI_Comm_free(&copy));
  /* Each rank revokes once; the blocked ones wake. */
  for (int revoker = 0; revoker < size; ++revoker) revoke_wakes_waiters(dup_returning(MPI_COMM_WORLD), revoker);
  /* A revoked communicator fails nothing on another one. */
  MPI_Comm a = dup_returning(MPI_COMM_WORLD), b = dup_returning(MPI_COMM_WORLD);
  if (rank == 0) CHECK_OK(MPIX_Comm_revoke(a));
  CHECK_OK(MPI_Barrier(b));
  int one = 1, sum = 0;
  CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, b));
  CHECK(sum == 4);
  CHECK_CLASS(MPI_Barrier(a), MPIX_ERR_REVOKED);
  CHECK_OK(MPI_Comm_free(&a));
  CHECK_OK(MPI_Comm_free(&b));

  /* ---- Rank 3 dies, once the others are past the barrier (they tell it so) ---- */
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  int value = 0;
  if (rank == 3) {
    for (int from = 0; from < 3; ++from) CHECK_OK(MPI_Recv(&value, 1, MPI_INT, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    raise(SIGKILL);
  }
  CHECK_OK(MPI_Send(&rank, 1, MPI_INT, 3, 2, MPI_COMM_WORLD));
  CHECK_CLASS(MPI_Recv(&value, 1, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED);
  /* Not acknowledged yet: every survivor hears of it, the flag is agreed all the same. */
  flag = rank == 1 ? 0x3c : 0xfc;
  CHECK_CLASS(MPIX_Comm_agree(MPI_COMM_WORLD, &flag), MPIX_ERR_PROC_FAILED);
  CHECK(flag == 0x3c);
  CHECK_OK(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  CHECK_OK(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked));
  CHECK_OK(MPI_Group_size(acked, &n));
  CHECK(n == 1);
  MPI_Group world_group;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  int zero = 0, which = -1;
  CHECK_OK(MPI_Group_translate_ranks(acked, 1, &zero, world_group, &which));
  CHECK(which == 3);
  CHECK_OK(MPI_Group_free(&acked));
  CHECK_OK(MPI_Group_free(&world_group));
  flag = rank + 1;
  CHECK_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == ((1 & 2) & 3)); /* ranks 0, 1, 2: 1 & 2 & 3 */
  /* The survivors' communicator, in rank order. */
  MPI_Comm alive;
  CHECK_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &alive));
  CHECK_OK(MPI_Comm_size(alive, &n));
  CHECK_OK(MPI_Comm_rank(alive, &crank));
  CHECK(n == 3 && crank == rank);
  CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, alive));
  CHECK(sum == 3);
  static char big[1 << 20];
  for (int i = 0; i < (int)sizeof big; ++i) big[i] = rank == 2 ? (char)(i * 13) : 0;
  CHECK_OK(MPI_Bcast(big, sizeof big, MPI_CHAR, 2, alive));
  for (int i = 0; i < (int)sizeof big; ++i) CHECK(big[i] == (char)(i * 13));
  CHECK_OK(MPI_Barrier(alive));
  /* Rank 1 revokes MPI_COMM_WORLD: the others wake from a receive on it. */
  if (rank == 1) {
    CHECK_OK(MPIX_Comm_revoke(MPI_COMM_WORLD));
  } else {
    CHECK_CLASS(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                MPIX_ERR_REVOKED);
  }
  CHECK_OK(MPI_Barrier(alive));
  CHECK_OK(MPI_Comm_free(&alive));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
