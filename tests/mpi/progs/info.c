/* MPI_Info objects: set/get round trips, key order, dup independence,
 * MPI_Info_get_string's size query and truncation, MPI_INFO_ENV, and every
 * bad argument under MPI_ERRORS_RETURN; MPI_Comm_remote_size on an
 * intra-communicator. MPI_Info_create_env, and info calls before MPI_Init
 * and after MPI_Finalize (MPI 4.0), giving the same contents in every phase. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Whether two info objects hold the same keys and values, in the same order. */
static int same_info(MPI_Info a, MPI_Info b) {
  int na = -1, nb = -2;
  CHECK_OK(MPI_Info_get_nkeys(a, &na));
  CHECK_OK(MPI_Info_get_nkeys(b, &nb));
  if (na != nb) return 0;
  for (int i = 0; i < na; ++i) {
    char key[MPI_MAX_INFO_KEY], va[MPI_MAX_INFO_VAL], vb[MPI_MAX_INFO_VAL];
    int la = sizeof va, lb = sizeof vb, fa = 0, fb = 0;
    CHECK_OK(MPI_Info_get_nthkey(a, i, key));
    CHECK_OK(MPI_Info_get_string(a, key, &la, va, &fa));
    CHECK_OK(MPI_Info_get_string(b, key, &lb, vb, &fb));
    if (!fa || !fb || strcmp(va, vb) != 0) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  /* Before MPI_Init: the environment as an info object, which a plain info call can use. */
  MPI_Info before, scratch;
  CHECK_OK(MPI_Info_create_env(argc, argv, &before));
  char command[MPI_MAX_INFO_VAL];
  int command_len = sizeof command, found = 0;
  CHECK_OK(MPI_Info_get_string(before, "command", &command_len, command, &found));
  CHECK(found && strcmp(command, argv[0]) == 0);
  CHECK_OK(MPI_Info_create(&scratch));
  CHECK_OK(MPI_Info_set(scratch, "made", "before MPI_Init"));

  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int size = 0;
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

  MPI_Info info, dup;
  CHECK_OK(MPI_Info_create(&info));
  int nkeys = -1, flag = -1, len = -1;
  CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 0);
  CHECK_OK(MPI_Info_set(info, "zeta", "1"));
  CHECK_OK(MPI_Info_set(info, "alpha", "two"));
  CHECK_OK(MPI_Info_set(info, "zeta", "three")); /* replaces, keeps its place */
  CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 2);
  char key[MPI_MAX_INFO_KEY], value[MPI_MAX_INFO_VAL];
  CHECK_OK(MPI_Info_get_nthkey(info, 0, key));
  CHECK(strcmp(key, "zeta") == 0);
  CHECK_OK(MPI_Info_get_nthkey(info, 1, key));
  CHECK(strcmp(key, "alpha") == 0);
  CHECK_OK(MPI_Info_get(info, "zeta", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag == 1 && strcmp(value, "three") == 0);
  CHECK_OK(MPI_Info_get(info, "zeta", 2, value, &flag)); /* 2 chars + null */
  CHECK(flag == 1 && strcmp(value, "th") == 0);
  CHECK_OK(MPI_Info_get(info, "missing", 10, value, &flag));
  CHECK(flag == 0);
  CHECK_OK(MPI_Info_get_valuelen(info, "alpha", &len, &flag));
  CHECK(flag == 1 && len == 3);
  /* get_string: size query, then a truncating and a fitting buffer. */
  int buflen = 0;
  CHECK_OK(MPI_Info_get_string(info, "zeta", &buflen, NULL, &flag));
  CHECK(flag == 1 && buflen == 6);
  buflen = 3;
  CHECK_OK(MPI_Info_get_string(info, "zeta", &buflen, value, &flag));
  CHECK(strcmp(value, "th") == 0 && buflen == 6);
  buflen = 6;
  CHECK_OK(MPI_Info_get_string(info, "zeta", &buflen, value, &flag));
  CHECK(strcmp(value, "three") == 0);
  /* A dup is independent. */
  CHECK_OK(MPI_Info_dup(info, &dup));
  CHECK_OK(MPI_Info_delete(info, "zeta"));
  CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 1);
  CHECK_OK(MPI_Info_get(dup, "zeta", 10, value, &flag));
  CHECK(flag == 1 && strcmp(value, "three") == 0);
  /* MPI_INFO_ENV. */
  CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", 20, value, &flag));
  char expected[32];
  snprintf(expected, sizeof expected, "%d", size);
  CHECK(flag == 1 && strcmp(value, expected) == 0);
  CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "thread_level", 40, value, &flag));
  CHECK(flag == 1 && strcmp(value, "MPI_THREAD_SINGLE") == 0);
  /* Persistent collective init takes an info object. */
  int x = 1, y = 0;
  MPI_Request req;
  CHECK_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, info, &req));
  CHECK_OK(MPI_Start(&req));
  CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(y == size);
  CHECK_OK(MPI_Request_free(&req));

  /* Bad arguments. */
  char long_key[MPI_MAX_INFO_KEY + 2];
  memset(long_key, 'k', sizeof long_key - 1);
  long_key[sizeof long_key - 1] = '\0';
  static char long_value[MPI_MAX_INFO_VAL + 2];
  memset(long_value, 'v', sizeof long_value - 1);
  CHECK_CLASS(MPI_Info_set(info, long_key, "v"), MPI_ERR_INFO_KEY);
  CHECK_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
  CHECK_CLASS(MPI_Info_set(info, NULL, "v"), MPI_ERR_INFO_KEY);
  CHECK_CLASS(MPI_Info_set(info, "k", long_value), MPI_ERR_INFO_VALUE);
  CHECK_CLASS(MPI_Info_set(info, "k", NULL), MPI_ERR_INFO_VALUE);
  CHECK_CLASS(MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
  CHECK_CLASS(MPI_Info_set((MPI_Info)MPI_COMM_WORLD, "k", "v"), MPI_ERR_INFO);
  CHECK_CLASS(MPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO);
  CHECK_CLASS(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY);
  CHECK_CLASS(MPI_Info_get_nthkey(info, 1, key), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Info_get_nthkey(info, -1, key), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Info_get(info, "alpha", -1, value, &flag), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Info_get_nkeys(info, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Info_create(NULL), MPI_ERR_ARG);
  MPI_Info env = MPI_INFO_ENV;
  CHECK_CLASS(MPI_Info_free(&env), MPI_ERR_INFO);
  int rsize = -1;
  CHECK_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &rsize), MPI_ERR_COMM);
  CHECK(rsize == -1);

  CHECK_OK(MPI_Info_free(&info));
  CHECK(info == MPI_INFO_NULL);
  CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
  CHECK_OK(MPI_Info_free(&dup));

  /* MPI_Info_create_env while MPI runs: as before MPI_Init; its bad arguments. */
  MPI_Info during;
  CHECK_OK(MPI_Info_create_env(argc, argv, &during));
  CHECK(same_info(before, during));
  char maxprocs[16];
  int maxprocs_len = sizeof maxprocs;
  CHECK_OK(MPI_Info_get_string(during, "maxprocs", &maxprocs_len, maxprocs, &found));
  snprintf(expected, sizeof expected, "%d", size);
  CHECK(found && strcmp(maxprocs, expected) == 0);
  MPI_Info none = MPI_INFO_NULL;
  CHECK_OK(MPI_Info_create_env(0, NULL, &none));
  CHECK_OK(MPI_Info_get_string(none, "command", &command_len, command, &found));
  CHECK(!found);
  CHECK_OK(MPI_Info_free(&none));
  CHECK_CLASS(MPI_Info_create_env(-1, argv, &none), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Info_create_env(1, NULL, &none), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Info_create_env(argc, argv, NULL), MPI_ERR_ARG);
  CHECK_OK(MPI_Finalize());

  /* After MPI_Finalize: the objects made before and during MPI stay usable, and new ones
   * can be made and freed. */
  MPI_Info after;
  CHECK_OK(MPI_Info_create_env(argc, argv, &after));
  CHECK(same_info(before, after));
  CHECK(same_info(during, after));
  int made_len = sizeof command;
  CHECK_OK(MPI_Info_get_string(scratch, "made", &made_len, command, &found));
  CHECK(found && strcmp(command, "before MPI_Init") == 0);
  CHECK_OK(MPI_Info_free(&scratch));
  CHECK_OK(MPI_Info_free(&after));
  CHECK_OK(MPI_Info_free(&during));
  CHECK_OK(MPI_Info_free(&before));
  CHECK(before == MPI_INFO_NULL);
  printf("OK\n");
  return 0;
}
