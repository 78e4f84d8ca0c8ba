/* MPI_Comm_spawn (tests/mpi/spawn_test.cc): the job spawns 3 copies of this program as a job of
 * their own ("child"), and the two talk across the inter-communicator: every parent sends each
 * child its rank, the children answer with a sum, a broadcast from the parents' root, a merge;
 * then both disconnect. In the children MPI_Comm_get_parent is that inter-communicator (and
 * MPI_COMM_NULL after the disconnect), named MPI_COMM_PARENT; in the parents, MPI_COMM_NULL.
 * The parents name the program bare, with info "path" naming its directory. `bad`: spawning what
 * cannot run is MPI_ERR_SPAWN at every rank, and nothing waits. Every process prints OK. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { kChildren = 3 };

static void parent(const char* self) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm none = MPI_COMM_WORLD;
  CHECK_OK(MPI_Comm_get_parent(&none));
  CHECK(none == MPI_COMM_NULL);

  /* LAPIS_UNIVERSE_SIZE (spawn_test sets 8). */
  int* universe = NULL;
  int flag = 0;
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
  CHECK(flag && *universe == 8);

  /* The program by its bare name, found through info "path" (its directory). */
  char dir[4096];
  CHECK(strlen(self) < sizeof dir);
  strcpy(dir, self);
  char* slash = strrchr(dir, '/');
  CHECK(slash != NULL);
  *slash = '\0';
  MPI_Info info;
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "path", dir));
  char* args[] = {"child", NULL};
  int errcodes[kChildren] = {-1, -1, -1};
  MPI_Comm children;
  CHECK_OK(MPI_Comm_spawn(slash + 1, args, kChildren, info, 0, MPI_COMM_WORLD, &children, errcodes));
  CHECK_OK(MPI_Info_free(&info));
  if (rank == 0) {
    for (int i = 0; i < kChildren; ++i) CHECK(errcodes[i] == MPI_SUCCESS);
  }
  int remote = 0;
  CHECK_OK(MPI_Comm_remote_size(children, &remote));
  CHECK(remote == kChildren);
  for (int c = 0; c < kChildren; ++c) CHECK_OK(MPI_Send(&rank, 1, MPI_INT, c, 1, children));
  for (int c = 0; c < kChildren; ++c) {
    int sum = -1;
    CHECK_OK(MPI_Recv(&sum, 1, MPI_INT, c, 2, children, MPI_STATUS_IGNORE));
    CHECK(sum == size * (size - 1) / 2 + c);
  }
  int word = 777;
  CHECK_OK(MPI_Bcast(&word, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, children));
  MPI_Comm all;
  CHECK_OK(MPI_Intercomm_merge(children, 0, &all));
  int all_size = 0, all_rank = -1;
  CHECK_OK(MPI_Comm_size(all, &all_size));
  CHECK_OK(MPI_Comm_rank(all, &all_rank));
  CHECK(all_size == size + kChildren);
  CHECK(all_rank == rank);
  CHECK_OK(MPI_Comm_free(&all));
  CHECK_OK(MPI_Comm_disconnect(&children));
}

static void child(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm parents = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_get_parent(&parents));
  CHECK(parents != MPI_COMM_NULL);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  CHECK_OK(MPI_Comm_get_name(parents, name, &len));
  CHECK(strcmp(name, "MPI_COMM_PARENT") == 0);
  int nparents = 0, sum = 0;
  CHECK_OK(MPI_Comm_remote_size(parents, &nparents));
  for (int p = 0; p < nparents; ++p) {
    int r = -1;
    CHECK_OK(MPI_Recv(&r, 1, MPI_INT, p, 1, parents, MPI_STATUS_IGNORE));
    CHECK(r == p);
    sum += r;
  }
  sum += rank;
  for (int p = 0; p < nparents; ++p) CHECK_OK(MPI_Send(&sum, 1, MPI_INT, p, 2, parents));
  int word = 0;
  CHECK_OK(MPI_Bcast(&word, 1, MPI_INT, 0, parents));
  CHECK(word == 777);
  MPI_Comm all;
  CHECK_OK(MPI_Intercomm_merge(parents, 1, &all));
  int all_rank = -1;
  CHECK_OK(MPI_Comm_rank(all, &all_rank));
  CHECK(all_rank == nparents + rank);
  CHECK_OK(MPI_Comm_free(&all));
  CHECK_OK(MPI_Comm_disconnect(&parents));
  MPI_Comm after = MPI_COMM_WORLD;
  CHECK_OK(MPI_Comm_get_parent(&after));
  CHECK(after == MPI_COMM_NULL);
}

static void bad(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm children = MPI_COMM_WORLD;
  int errcodes[2] = {-1, -1}, cls = 0;
  MPI_Error_class(MPI_Comm_spawn("/nonexistent/program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                                 MPI_COMM_WORLD, &children, errcodes), &cls);
  CHECK(cls == MPI_ERR_SPAWN);
  CHECK(children == MPI_COMM_NULL);
  if (rank == 0) CHECK(errcodes[0] == MPI_ERR_SPAWN && errcodes[1] == MPI_ERR_SPAWN);
  MPI_Error_class(MPI_Comm_spawn("x", MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                 &children, MPI_ERRCODES_IGNORE), &cls);
  CHECK(cls == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_SPAWN));
  MPI_Error_class(MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 99, MPI_COMM_WORLD,
                                 &children, MPI_ERRCODES_IGNORE), &cls);
  CHECK(cls == MPI_ERR_ROOT);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  if (argc >= 2 && strcmp(argv[1], "child") == 0) child();
  else if (argc >= 2 && strcmp(argv[1], "bad") == 0) bad();
  else parent(argv[0]);
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
