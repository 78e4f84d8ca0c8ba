/* MPI_Comm_spawn from two threads at once (tests/mpi/spawn_test.cc; MPICH's
 * threads/spawn/th_taskmanager): at MPI_THREAD_MULTIPLE each of two threads per rank spawns 2
 * children over its own duplicate of MPI_COMM_WORLD. Each child sends every parent its thread's
 * number and its own rank, the parents answer, and both sides disconnect. The two spawns join
 * the children's tasks at the same time, so each must number its own children and tell them so
 * (a child numbered like its cousin sent under the cousin's id and the job hung). Every process
 * prints OK. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kThreads = 2, kChildren = 2 };

static MPI_Comm comms[kThreads];
static const char* self;

static void* spawn_and_talk(void* arg) {
  const int id = (int)(size_t)arg;
  char number[16];
  snprintf(number, sizeof number, "%d", id);
  char* args[] = {"child", number, NULL};
  MPI_Comm children;
  int errcodes[kChildren] = {-1, -1};
  CHECK_OK(MPI_Comm_spawn(self, args, kChildren, MPI_INFO_NULL, 0, comms[id], &children, errcodes));
  int remote = 0;
  CHECK_OK(MPI_Comm_remote_size(children, &remote));
  CHECK(remote == kChildren);
  for (int c = 0; c < kChildren; ++c) {
    int got[2] = {-1, -1};
    CHECK_OK(MPI_Recv(got, 2, MPI_INT, c, 5, children, MPI_STATUS_IGNORE));
    CHECK(got[0] == id && got[1] == c);
    const int answer = 1000 * id + c;
    CHECK_OK(MPI_Send(&answer, 1, MPI_INT, c, 6, children));
  }
  CHECK_OK(MPI_Comm_disconnect(&children));
  return NULL;
}

static void child(int id) {
  int rank, parents_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm parents;
  CHECK_OK(MPI_Comm_get_parent(&parents));
  CHECK(parents != MPI_COMM_NULL);
  CHECK_OK(MPI_Comm_remote_size(parents, &parents_size));
  const int mine[2] = {id, rank};
  for (int p = 0; p < parents_size; ++p) CHECK_OK(MPI_Send(mine, 2, MPI_INT, p, 5, parents));
  for (int p = 0; p < parents_size; ++p) {
    int answer = -1;
    CHECK_OK(MPI_Recv(&answer, 1, MPI_INT, p, 6, parents, MPI_STATUS_IGNORE));
    CHECK(answer == 1000 * id + rank);
  }
  CHECK_OK(MPI_Comm_disconnect(&parents));
}

int main(int argc, char** argv) {
  int provided = 0;
  CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  if (argc >= 3 && strcmp(argv[1], "child") == 0) {
    child(atoi(argv[2]));
  } else {
    self = argv[0];
    for (int i = 0; i < kThreads; ++i) CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
    pthread_t threads[kThreads];
    for (int i = 0; i < kThreads; ++i) CHECK(pthread_create(&threads[i], NULL, spawn_and_talk, (void*)(size_t)i) == 0);
    for (int i = 0; i < kThreads; ++i) CHECK(pthread_join(threads[i], NULL) == 0);
    for (int i = 0; i < kThreads; ++i) CHECK_OK(MPI_Comm_free(&comms[i]));
  }
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
