/* MPI_Comm_spawn (tests/mpi/spawn_test.cc): the job spawns 3 copies of this program as a job of
 * their own ("child"), and the two talk across the inter-communicator: every parent sends each
 * child its rank, the children answer with a sum, a broadcast from the parents' root, a merge;
 * then an inter-communicator across the two jobs from MPI_Intercomm_create over the merged one;
 * then both disconnect. In the children MPI_Comm_get_parent is that inter-communicator (and
 * MPI_COMM_NULL after the disconnect), named MPI_COMM_PARENT; in the parents, MPI_COMM_NULL.
 * The children find a name the parents published (spawned jobs share lapirun's name service).
 * The parents name the program bare, with info "path" naming its directory. `bad`: spawning what
 * cannot run is MPI_ERR_SPAWN at every rank, and nothing waits. `multiple`: the job spawns a
 * job of two programs (both this one, in `app` mode) with MPI_Comm_spawn_multiple. `app`: a
 * rank of a job of several programs (that, or lapirun's MPMD form). `self_spawn`: see there.
 * Every process prints OK. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { kChildren = 3 };
static const char kService[] = "lapis-spawn-test";

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
  /* Spawned jobs share the names of the job that spawned them (lapirun's name service). */
  if (rank == 0) CHECK_OK(MPI_Publish_name(kService, MPI_INFO_NULL, "port-of-the-parents"));
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
  /* MPI_Intercomm_create across the two jobs, over the merged communicator (MPICH's
   * spaiccreate): the members go by identities both jobs know, not by task ids. */
  MPI_Comm across;
  CHECK_OK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, all, size, 9, &across));
  CHECK_OK(MPI_Comm_remote_size(across, &remote));
  CHECK(remote == kChildren);
  const int token = 4242 + rank;
  for (int c = 0; c < kChildren; ++c) CHECK_OK(MPI_Send(&token, 1, MPI_INT, c, 4, across));
  CHECK_OK(MPI_Comm_free(&across));
  CHECK_OK(MPI_Comm_free(&all));
  CHECK_OK(MPI_Comm_disconnect(&children));
  if (rank == 0) CHECK_OK(MPI_Unpublish_name(kService, MPI_INFO_NULL, "port-of-the-parents"));
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
  char published[MPI_MAX_PORT_NAME] = "";
  CHECK_OK(MPI_Lookup_name(kService, MPI_INFO_NULL, published));
  CHECK(strcmp(published, "port-of-the-parents") == 0);
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
  MPI_Comm across;
  CHECK_OK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, all, 0, 9, &across));
  int remote = 0;
  CHECK_OK(MPI_Comm_remote_size(across, &remote));
  CHECK(remote == nparents);
  for (int p = 0; p < nparents; ++p) {
    int token = -1;
    CHECK_OK(MPI_Recv(&token, 1, MPI_INT, p, 4, across, MPI_STATUS_IGNORE));
    CHECK(token == 4242 + p);
  }
  CHECK_OK(MPI_Comm_free(&across));
  CHECK_OK(MPI_Comm_free(&all));
  CHECK_OK(MPI_Comm_disconnect(&parents));
  MPI_Comm after = MPI_COMM_WORLD;
  CHECK_OK(MPI_Comm_get_parent(&after));
  CHECK(after == MPI_COMM_NULL);
}

/* A rank of a job of several programs: argv = app INDEX SIZE DIR VALUE. MPI_APPNUM is INDEX,
 * the job has SIZE ranks, program 0's first, the rank runs in DIR ("-": anywhere) and sees
 * MPMD_VALUE=VALUE ("-": unset). Spawned, it tells the parents' rank 0 its index. */
static void app(char** argv) {
  const int index = atoi(argv[2]), size = atoi(argv[3]);
  int* appnum = NULL;
  int flag = 0, world = 0;
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
  CHECK(flag && *appnum == index);
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &world));
  CHECK(world == size && size <= 16);
  int all[16];
  CHECK_OK(MPI_Allgather(&index, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
  for (int r = 1; r < size; ++r) CHECK(all[r - 1] <= all[r]);
  const char* value = getenv("MPMD_VALUE");
  if (strcmp(argv[5], "-") == 0) {
    CHECK(value == NULL);
  } else {
    CHECK(value != NULL && strcmp(value, argv[5]) == 0);
  }
  if (strcmp(argv[4], "-") != 0) {
    char here[4096], want[4096];
    CHECK(getcwd(here, sizeof here) != NULL && realpath(argv[4], want) != NULL);
    CHECK(strcmp(here, want) == 0);
  }
  MPI_Comm parents = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_get_parent(&parents));
  if (parents != MPI_COMM_NULL) {
    CHECK_OK(MPI_Send(&index, 1, MPI_INT, 0, 3, parents));
    CHECK_OK(MPI_Comm_disconnect(&parents));
  }
}

/* MPI_Comm_spawn_multiple: this program twice, 1 + 2 ranks, the second in "/" (info "wdir"). */
static void multiple(char* self) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* commands[2] = {self, self};
  char* args0[] = {"app", "0", "3", "-", "-", NULL};
  char* args1[] = {"app", "1", "3", "/", "-", NULL};
  char** argvs[2] = {args0, args1};
  const int maxprocs[2] = {1, 2};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  CHECK_OK(MPI_Info_create(&infos[1]));
  CHECK_OK(MPI_Info_set(infos[1], "wdir", "/"));
  int errcodes[3] = {-1, -1, -1};
  MPI_Comm children;
  CHECK_OK(MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &children,
                                   errcodes));
  CHECK_OK(MPI_Info_free(&infos[1]));
  int remote = 0;
  CHECK_OK(MPI_Comm_remote_size(children, &remote));
  CHECK(remote == 3);
  if (rank == 0) {
    int sum = 0;
    for (int i = 0; i < 3; ++i) {
      int index = -1;
      CHECK(errcodes[i] == MPI_SUCCESS);
      CHECK_OK(MPI_Recv(&index, 1, MPI_INT, MPI_ANY_SOURCE, 3, children, MPI_STATUS_IGNORE));
      sum += index;
    }
    CHECK(sum == 0 + 1 + 1);
  }
  CHECK_OK(MPI_Comm_disconnect(&children));
}

/* Only rank 0 spawns (over MPI_COMM_SELF), so rank 1 never connected to the children; then
 * MPI_Intercomm_create over that inter-communicator joins the parents' world and the children's
 * (MPICH's spaiccreate), and every child sends to parent rank 1. `self_child`: the children. */
static void self_spawn(char* self) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm children = MPI_COMM_NULL;
  char* args[] = {"self_child", NULL};
  if (rank == 0) {
    CHECK_OK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &children, MPI_ERRCODES_IGNORE));
  }
  MPI_Comm across;
  CHECK_OK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, children, 0, 123, &across));
  int remote = 0;
  CHECK_OK(MPI_Comm_remote_size(across, &remote));
  CHECK(remote == 2);
  if (rank == 1) {
    for (int c = 0; c < 2; ++c) {
      int got = -1;
      CHECK_OK(MPI_Recv(&got, 1, MPI_INT, c, 7, across, MPI_STATUS_IGNORE));
      CHECK(got == 100 + c);
    }
  }
  CHECK_OK(MPI_Comm_disconnect(&across));
  if (rank == 0) CHECK_OK(MPI_Comm_disconnect(&children));
}

static void self_child(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm parents = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_get_parent(&parents));
  CHECK(parents != MPI_COMM_NULL);
  MPI_Comm across;
  CHECK_OK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, parents, 0, 123, &across));
  int remote = 0;
  CHECK_OK(MPI_Comm_remote_size(across, &remote));
  CHECK(remote == 2);
  const int token = 100 + rank;
  CHECK_OK(MPI_Send(&token, 1, MPI_INT, 1, 7, across));
  CHECK_OK(MPI_Comm_disconnect(&across));
  CHECK_OK(MPI_Comm_disconnect(&parents));
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
  /* MPI_Comm_spawn_multiple: no commands; an argument lapirun cannot pass. */
  char* commands[1] = {"x"};
  const int one[1] = {1};
  MPI_Info infos[1] = {MPI_INFO_NULL};
  MPI_Error_class(MPI_Comm_spawn_multiple(0, commands, MPI_ARGVS_NULL, one, infos, 0, MPI_COMM_WORLD,
                                          &children, MPI_ERRCODES_IGNORE), &cls);
  CHECK(cls == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_SPAWN));
  MPI_Error_class(MPI_Comm_spawn_multiple(1, NULL, MPI_ARGVS_NULL, one, infos, 0, MPI_COMM_WORLD,
                                          &children, MPI_ERRCODES_IGNORE), &cls);
  CHECK(cls == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_SPAWN));
  MPI_Error_class(MPI_Comm_spawn_multiple(1, commands, MPI_ARGVS_NULL, NULL, infos, 0, MPI_COMM_WORLD,
                                          &children, MPI_ERRCODES_IGNORE), &cls);
  CHECK(cls == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_SPAWN));
  char* colon[] = {":", NULL};
  char** argvs[1] = {colon};
  commands[0] = "/bin/true";
  MPI_Error_class(MPI_Comm_spawn_multiple(1, commands, argvs, one, infos, 0, MPI_COMM_WORLD, &children,
                                          MPI_ERRCODES_IGNORE), &cls);
  CHECK(cls == (rank == 0 ? MPI_ERR_ARG : MPI_ERR_SPAWN));
  CHECK(children == MPI_COMM_NULL);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  if (argc >= 2 && strcmp(argv[1], "child") == 0) child();
  else if (argc >= 2 && strcmp(argv[1], "bad") == 0) bad();
  else if (argc >= 6 && strcmp(argv[1], "app") == 0) app(argv);
  else if (argc >= 2 && strcmp(argv[1], "multiple") == 0) multiple(argv[0]);
  else if (argc >= 2 && strcmp(argv[1], "self_spawn") == 0) self_spawn(argv[0]);
  else if (argc >= 2 && strcmp(argv[1], "self_child") == 0) self_child();
  else parent(argv[0]);
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
