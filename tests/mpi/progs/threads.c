/* Two threads in MPI at once under MPI_THREAD_SERIALIZED (2 ranks): rank 0's
 * second thread blocks in MPI_Recv from rank 1 while its main thread calls
 * MPI_Iprobe until the library refuses an overlapping call with
 * MPI_ERR_OTHER (instead of corrupting its state). Then rank 0 creates a
 * flag file; rank 1, which waits for it, sends the message the receive is
 * waiting for, and the receive must complete normally. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static int g_recv_rc = -1;
static int g_recv_value = 0;

static void* receiver(void* arg) {
  (void)arg;
  int v = 0;
  /* Refused while the main thread was inside MPI_Iprobe: try again. */
  do {
    g_recv_rc = MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } while (g_recv_rc == MPI_ERR_OTHER);
  g_recv_value = v;
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1, rank = -1, size = 0;
  CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
  CHECK(provided == MPI_THREAD_SERIALIZED);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size == 2);
  char flag_path[512];
  snprintf(flag_path, sizeof flag_path, "%s/overlap-%s", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp",
           getenv("LAPIS_JOB_ID") ? getenv("LAPIS_JOB_ID") : "nojob");
  if (rank == 0) {
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, receiver, NULL) == 0);
    int rc = MPI_SUCCESS, flag = 0;
    while (rc == MPI_SUCCESS) rc = MPI_Iprobe(1, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER);
    FILE* f = fopen(flag_path, "w");
    CHECK(f != NULL);
    fclose(f);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(g_recv_rc == MPI_SUCCESS && g_recv_value == 42);
    unlink(flag_path);
  } else {
    while (access(flag_path, F_OK) != 0) sched_yield();
    int v = 42;
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  printf("OK\n");
  CHECK_OK(MPI_Finalize());
  return 0;
}
