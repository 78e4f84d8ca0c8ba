/* MPI 4.0 sessions, run as `sessions MODE`:
 *   no-init        sessions without MPI_Init: process sets and their info,
 *                  thread levels, communicators from mpi://WORLD, from a
 *                  subgroup (only its members call) and from mpi://SELF,
 *                  communication on them, two creations with different
 *                  string tags at once, an inter-communicator from two
 *                  groups, two sessions at once finalised in the order they
 *                  were made and the other, a user session error handler,
 *                  bad arguments on a live session
 *   init-before    MPI_Init, then a session; MPI_Initialized/Finalized
 *                  follow the world model only; finalised and null sessions
 *                  refused (MPI_ERR_SESSION through MPI_COMM_WORLD's handler)
 *   init-after     a session, then MPI_Init; MPI_Finalize while the session
 *                  still communicates, then MPI_Session_finalize
 *   init-between   session A, MPI_Init, A finalised, session B, MPI_Finalize,
 *                  B finalised
 *   re-init        a session, finalised (the library stops), a second one
 *   threads        two threads per process, each with its own session
 *                  (MPI_THREAD_MULTIPLE) made and finalised at the same time,
 *                  each making a communicator from mpi://WORLD under its own
 *                  string tag while the other does
 *   node-reduce    MPICH's session_4x4 pattern, three times (the library stops
 *                  and starts again each time): groups of up to 4 ranks reduce
 *                  to their first rank, the first ranks reduce among
 *                  themselves (same string tag), then everyone frees and
 *                  finalises at once; a rank that finished first must not
 *                  release what a root still reads (node collectives'
 *                  shared memory)
 *   fatal-null     MPI_Session_get_num_psets(MPI_SESSION_NULL) with no world
 *                  model: fatal, with its message (tests/mpi/sessions_test.cc)
 * Every rank prints OK. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static MPI_Session open_session(const char* level) {
  MPI_Info info = MPI_INFO_NULL;
  if (level != NULL) {
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "thread_level", level));
  }
  MPI_Session s = MPI_SESSION_NULL;
  CHECK_OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
  CHECK(s != MPI_SESSION_NULL);
  if (info != MPI_INFO_NULL) CHECK_OK(MPI_Info_free(&info));
  return s;
}

static MPI_Group pset_group(MPI_Session s, const char* name) {
  MPI_Group g = MPI_GROUP_NULL;
  CHECK_OK(MPI_Group_from_session_pset(s, name, &g));
  return g;
}

/* A communicator over the session's mpi://WORLD. */
static MPI_Comm world_comm(MPI_Session s, const char* tag) {
  MPI_Group g = pset_group(s, "mpi://WORLD");
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK(c != MPI_COMM_NULL);
  CHECK_OK(MPI_Group_free(&g));
  return c;
}

/* Ring exchange and an allreduce on `c` (every rank of it calls). */
static void exercise(MPI_Comm c) {
  int rank = -1, size = 0;
  CHECK_OK(MPI_Comm_rank(c, &rank));
  CHECK_OK(MPI_Comm_size(c, &size));
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c,
                        MPI_STATUS_IGNORE));
  CHECK(got == left);
  int sum = -1;
  CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == size * (size - 1) / 2);
}

/* A communicator from `g` under `tag`, exercised at once (the members of one
 * creation go on to their next one in the same order). */
static MPI_Comm made_from(MPI_Group g, const char* tag) {
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK(c != MPI_COMM_NULL);
  exercise(c);
  return c;
}

static void check_psets(MPI_Session s, int world_size) {
  int n = -1;
  CHECK_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK(n == 2);
  int seen_world = 0, seen_self = 0;
  for (int i = 0; i < n; ++i) {
    int len = 0;
    CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    char* name = malloc((size_t)len);
    CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK((int)strlen(name) + 1 == len);
    MPI_Info info;
    CHECK_OK(MPI_Session_get_pset_info(s, name, &info));
    char value[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_OK(MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL - 1, value, &flag));
    CHECK(flag);
    MPI_Group g = pset_group(s, name);
    int gsize = -1;
    CHECK_OK(MPI_Group_size(g, &gsize));
    CHECK(atoi(value) == gsize);
    if (strcmp(name, "mpi://WORLD") == 0) {
      seen_world = 1;
      CHECK(gsize == world_size);
    } else if (strcmp(name, "mpi://SELF") == 0) {
      seen_self = 1;
      CHECK(gsize == 1);
    }
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Info_free(&info));
    free(name);
  }
  CHECK(seen_world && seen_self);
  /* A buffer too short: cut, terminated, and the full length reported. */
  char shortname[5];
  int len = (int)sizeof shortname;
  CHECK_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, shortname));
  CHECK(strcmp(shortname, "mpi:") == 0 && len == (int)strlen("mpi://WORLD") + 1);
  /* Names compare without regard to case. */
  MPI_Group g = pset_group(s, "MPI://world");
  int gsize = -1;
  CHECK_OK(MPI_Group_size(g, &gsize));
  CHECK(gsize == world_size);
  CHECK_OK(MPI_Group_free(&g));
}

static void check_bad_arguments(MPI_Session s) {
  MPI_Group g = MPI_GROUP_NULL;
  MPI_Info info = MPI_INFO_NULL;
  int n = 0, len = 0;
  CHECK_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
  CHECK(g == MPI_GROUP_NULL);
  CHECK_CLASS(MPI_Session_get_pset_info(s, "mpi://nowhere", &info), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_get_pset_info(s, NULL, &info), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
  (void)n;
  /* A thread level that is none. */
  MPI_Info bad;
  MPI_Session t = MPI_SESSION_NULL;
  CHECK_OK(MPI_Info_create(&bad));
  CHECK_OK(MPI_Info_set(bad, "thread_level", "MPI_THREAD_SOMETIMES"));
  CHECK_CLASS(MPI_Session_init(bad, MPI_ERRORS_RETURN, &t), MPI_ERR_ARG);
  CHECK(t == MPI_SESSION_NULL);
  CHECK_OK(MPI_Info_free(&bad));
  /* A bad string tag and group for a communicator. */
  MPI_Comm c = MPI_COMM_NULL;
  g = pset_group(s, "mpi://SELF");
  CHECK_CLASS(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
              MPI_ERR_GROUP);
  CHECK_OK(MPI_Group_free(&g));
}

static int handler_calls = 0;
static MPI_Session handler_session = MPI_SESSION_NULL;
static int handler_code = 0;
static void session_handler(MPI_Session* s, int* code, ...) {
  ++handler_calls;
  handler_session = *s;
  handler_code = *code;
}

static void check_errhandler(MPI_Session s) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
  CHECK_OK(MPI_Session_get_errhandler(s, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  CHECK_OK(MPI_Session_create_errhandler(session_handler, &eh));
  CHECK_OK(MPI_Session_set_errhandler(s, eh));
  CHECK_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK(handler_calls == 1 && handler_session == s && handler_code == MPI_ERR_OTHER);
  /* An error of the session goes to it too. */
  int n = 0;
  CHECK_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 9, &n, NULL), MPI_ERR_ARG);
  CHECK(handler_calls == 2 && handler_code == MPI_ERR_ARG);
  CHECK_OK(MPI_Session_get_errhandler(s, &got));
  CHECK(got == eh);
  CHECK_OK(MPI_Errhandler_free(&got));
  CHECK_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Errhandler_free(&eh));
  /* Handles convert to Fortran and back unchanged. */
  CHECK(MPI_Session_f2c(MPI_Session_c2f(s)) == s);
}

static void check_thread_level(MPI_Session s, const char* expect) {
  MPI_Info used;
  CHECK_OK(MPI_Session_get_info(s, &used));
  char value[MPI_MAX_INFO_VAL];
  int flag = 0;
  CHECK_OK(MPI_Info_get(used, "thread_level", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag && strcmp(value, expect) == 0);
  CHECK_OK(MPI_Info_free(&used));
}

/* Communicators from a subgroup (the even ranks, only they call), from
 * mpi://SELF, and two creations with different string tags in flight at
 * once: the even ranks make one, the odd ranks another, and every rank
 * makes a third with its right neighbour's pair, in different orders. */
static void check_from_group(MPI_Session s) {
  MPI_Group world = pset_group(s, "mpi://WORLD");
  int rank = -1, size = 0;
  CHECK_OK(MPI_Group_rank(world, &rank));
  CHECK_OK(MPI_Group_size(world, &size));

  int nhalf = 0;
  int* half = malloc(sizeof(int) * (size_t)size);
  for (int r = rank % 2; r < size; r += 2) half[nhalf++] = r;
  MPI_Group parity;
  CHECK_OK(MPI_Group_incl(world, nhalf, half, &parity));
  MPI_Comm pc = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_create_from_group(parity, rank % 2 ? "tests.odd" : "tests.even", MPI_INFO_NULL,
                                      MPI_ERRORS_RETURN, &pc));
  int prank = -1, psize = 0;
  CHECK_OK(MPI_Comm_rank(pc, &prank));
  CHECK_OK(MPI_Comm_size(pc, &psize));
  CHECK(psize == nhalf && prank == rank / 2);
  exercise(pc);
  free(half);

  if (size >= 2) {
    /* Pairs {r, r+1}: rank r makes its pair with the right neighbour and the one
     * with its left; even ranks right first, odd ranks left first, so each pair's
     * two members meet in the same creation while the others are in theirs. */
    MPI_Comm right = MPI_COMM_NULL, left = MPI_COMM_NULL;
    int rpair[2] = {rank, (rank + 1) % size}, lpair[2] = {(rank + size - 1) % size, rank};
    char rtag[64], ltag[64];
    snprintf(rtag, sizeof rtag, "tests.pair.%d", rank);
    snprintf(ltag, sizeof ltag, "tests.pair.%d", (rank + size - 1) % size);
    MPI_Group rg, lg;
    CHECK_OK(MPI_Group_incl(world, 2, rpair, &rg));
    CHECK_OK(MPI_Group_incl(world, 2, lpair, &lg));
    /* size 2: both pairs are {0, 1}, the two tags still make two communicators. */
    if (rank % 2 == 0) {
      right = made_from(rg, rtag);
      left = made_from(lg, ltag);
    } else {
      left = made_from(lg, ltag);
      right = made_from(rg, rtag);
    }
    CHECK_OK(MPI_Comm_free(&right));
    CHECK_OK(MPI_Comm_free(&left));
    CHECK_OK(MPI_Group_free(&rg));
    CHECK_OK(MPI_Group_free(&lg));

    /* An inter-communicator between the low and the high half. */
    int n1 = size / 2, n2 = size - n1;
    int* ranks = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) ranks[r] = r;
    MPI_Group low, high;
    CHECK_OK(MPI_Group_incl(world, n1, ranks, &low));
    CHECK_OK(MPI_Group_incl(world, n2, ranks + n1, &high));
    MPI_Comm inter = MPI_COMM_NULL;
    const int in_low = rank < n1;
    CHECK_OK(MPI_Intercomm_create_from_groups(in_low ? low : high, 0, in_low ? high : low, 0,
                                              "tests.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                              &inter));
    int flag = 0, rsize = 0;
    CHECK_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK_OK(MPI_Comm_remote_size(inter, &rsize));
    CHECK(flag && rsize == (in_low ? n2 : n1));
    int mine = rank, theirs = -1;
    /* Each side's rank 0 swaps its world rank with the other's. */
    int irank = -1;
    CHECK_OK(MPI_Comm_rank(inter, &irank));
    if (irank == 0) {
      CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &theirs, 1, MPI_INT, 0, 3, inter,
                            MPI_STATUS_IGNORE));
      CHECK(theirs == (in_low ? n1 : 0));
    }
    int total = -1;
    CHECK_OK(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, inter));
    /* An inter-communicator's allreduce gives the other group's sum. */
    int low_sum = n1 * (n1 - 1) / 2, all_sum = size * (size - 1) / 2;
    CHECK(total == (in_low ? all_sum - low_sum : low_sum));
    CHECK_OK(MPI_Comm_free(&inter));
    CHECK_OK(MPI_Group_free(&low));
    CHECK_OK(MPI_Group_free(&high));
    /* A process in neither of its groups' local_group is refused. */
    CHECK_CLASS(MPI_Intercomm_create_from_groups(in_low ? high : low, 0, in_low ? low : high, 0,
                                                 "tests.bad", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                                 &inter),
                MPI_ERR_GROUP);
    free(ranks);
  }

  /* Only the even ranks make a communicator; the odd ones go on at once. */
  MPI_Comm evens = MPI_COMM_NULL;
  if (rank % 2 == 0) {
    MPI_Group eg;
    int nev = (size + 1) / 2, ev[64];
    for (int i = 0; i < nev; ++i) ev[i] = 2 * i;
    CHECK_OK(MPI_Group_incl(world, nev, ev, &eg));
    CHECK_OK(MPI_Comm_create_from_group(eg, "tests.evens", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                        &evens));
    exercise(evens);
    CHECK_OK(MPI_Comm_free(&evens));
    CHECK_OK(MPI_Group_free(&eg));
  }
  /* The empty group: MPI_COMM_NULL, no communication. */
  MPI_Comm none = MPI_COMM_SELF;
  CHECK_OK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "tests.none", MPI_INFO_NULL,
                                      MPI_ERRORS_RETURN, &none));
  CHECK(none == MPI_COMM_NULL);

  MPI_Group self = pset_group(s, "mpi://SELF");
  MPI_Comm sc = MPI_COMM_NULL;
  CHECK_OK(MPI_Comm_create_from_group(self, "tests.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
  exercise(sc);
  CHECK_OK(MPI_Comm_free(&sc));
  CHECK_OK(MPI_Group_free(&self));
  CHECK_OK(MPI_Comm_free(&pc));
  CHECK_OK(MPI_Group_free(&parity));
  CHECK_OK(MPI_Group_free(&world));
}

static int world_model_flags(void) {
  int init = -1, fin = -1;
  CHECK_OK(MPI_Initialized(&init));
  CHECK_OK(MPI_Finalized(&fin));
  return init * 2 + fin;
}

static void no_init(void) {
  CHECK(world_model_flags() == 0);
  MPI_Session a = open_session("MPI_THREAD_FUNNELED");
  CHECK(world_model_flags() == 0); /* sessions are not the world model */
  check_thread_level(a, "MPI_THREAD_FUNNELED");
  MPI_Comm c = world_comm(a, "tests.world");
  int size = 0;
  CHECK_OK(MPI_Comm_size(c, &size));
  check_psets(a, size);
  exercise(c);
  check_from_group(a);
  check_errhandler(a);
  check_bad_arguments(a);
  /* A second session at once, asking for more threads: the process gives it. */
  MPI_Session b = open_session("mpi_thread_multiple");
  CHECK(b != a);
  check_thread_level(b, "MPI_THREAD_MULTIPLE");
  MPI_Comm d = world_comm(b, "tests.world"); /* same tag, after the first is made */
  exercise(d);
  exercise(c);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Session_finalize(&a)); /* the first one first */
  CHECK(a == MPI_SESSION_NULL);
  exercise(d);
  CHECK_OK(MPI_Comm_free(&d));
  MPI_Session e = open_session(NULL);
  CHECK_OK(MPI_Session_finalize(&b));
  MPI_Comm f = world_comm(e, "tests.world.e");
  exercise(f);
  CHECK_OK(MPI_Comm_free(&f));
  CHECK_OK(MPI_Session_finalize(&e));
  CHECK(world_model_flags() == 0);
}

static void check_refused(MPI_Session finalized) {
  int n = -1;
  CHECK_CLASS(MPI_Session_get_num_psets(finalized, MPI_INFO_NULL, &n), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n), MPI_ERR_SESSION);
  MPI_Session copy = finalized;
  CHECK_CLASS(MPI_Session_finalize(&copy), MPI_ERR_SESSION);
  MPI_Group g = MPI_GROUP_NULL;
  CHECK_CLASS(MPI_Group_from_session_pset(finalized, "mpi://WORLD", &g), MPI_ERR_SESSION);
  MPI_Info info = MPI_INFO_NULL;
  CHECK_CLASS(MPI_Session_get_info(MPI_SESSION_NULL, &info), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_call_errhandler(finalized, MPI_ERR_OTHER), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG);
}

static void init_before(int* argc, char*** argv) {
  int provided = -1;
  CHECK_OK(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided));
  CHECK(provided == MPI_THREAD_SERIALIZED);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(world_model_flags() == 2);
  MPI_Session s = open_session("MPI_THREAD_SINGLE");
  check_thread_level(s, "MPI_THREAD_SERIALIZED"); /* what the process provides */
  MPI_Comm c = world_comm(s, "tests.before");
  exercise(c);
  exercise(MPI_COMM_WORLD);
  int result = -1;
  CHECK_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_Session old = s;
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Session_finalize(&s));
  check_refused(old);
  exercise(MPI_COMM_WORLD);
  CHECK_OK(MPI_Finalize());
  CHECK(world_model_flags() == 3);
}

static void init_after(int* argc, char*** argv) {
  MPI_Session s = open_session(NULL);
  MPI_Comm c = world_comm(s, "tests.after");
  CHECK_OK(MPI_Init(argc, argv));
  CHECK(world_model_flags() == 2);
  int provided = -1;
  CHECK_OK(MPI_Query_thread(&provided));
  CHECK(provided == MPI_THREAD_SINGLE);
  exercise(c);
  exercise(MPI_COMM_WORLD);
  CHECK_OK(MPI_Finalize());
  CHECK(world_model_flags() == 3);
  /* The session still runs after the world model ended. */
  exercise(c);
  MPI_Comm d = world_comm(s, "tests.after.2");
  exercise(d);
  CHECK_OK(MPI_Comm_free(&d));
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Session_finalize(&s));
  CHECK(world_model_flags() == 3);
}

static void init_between(int* argc, char*** argv) {
  MPI_Session a = open_session(NULL);
  CHECK_OK(MPI_Init(argc, argv));
  MPI_Comm c = world_comm(a, "tests.between.a");
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Session_finalize(&a));
  exercise(MPI_COMM_WORLD);
  MPI_Session b = open_session(NULL);
  MPI_Comm d = world_comm(b, "tests.between.b");
  exercise(d);
  CHECK_OK(MPI_Finalize());
  exercise(d);
  CHECK_OK(MPI_Comm_free(&d));
  CHECK_OK(MPI_Session_finalize(&b));
  CHECK(world_model_flags() == 3);
}

static void re_init(void) {
  for (int round = 0; round < 3; ++round) {
    MPI_Session s = open_session(round == 1 ? "MPI_THREAD_MULTIPLE" : NULL);
    check_thread_level(s, round == 1 ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SINGLE");
    MPI_Comm c = world_comm(s, "tests.again");
    exercise(c);
    CHECK_OK(MPI_Comm_free(&c));
    CHECK_OK(MPI_Session_finalize(&s));
  }
  /* A call needing the library once every session has ended. */
  CHECK(world_model_flags() == 0);
}

static void node_reduce(void) {
  for (int round = 0; round < 3; ++round) {
    MPI_Session s = open_session(NULL);
    MPI_Group world = pset_group(s, "mpi://WORLD");
    int rank = -1, size = 0;
    CHECK_OK(MPI_Group_rank(world, &rank));
    CHECK_OK(MPI_Group_size(world, &size));
    const int first = rank / 4 * 4, n = size - first < 4 ? size - first : 4;
    int list[64];
    for (int i = 0; i < n; ++i) list[i] = first + i;
    MPI_Group ng, rg = MPI_GROUP_NULL;
    MPI_Comm nc, rc = MPI_COMM_NULL;
    CHECK_OK(MPI_Group_incl(world, n, list, &ng));
    CHECK_OK(MPI_Comm_create_from_group(ng, "tag", MPI_INFO_NULL, MPI_ERRORS_RETURN, &nc));
    const int nroots = (size + 3) / 4;
    if (rank == first) {
      for (int i = 0; i < nroots; ++i) list[i] = 4 * i;
      CHECK_OK(MPI_Group_incl(world, nroots, list, &rg));
      CHECK_OK(MPI_Comm_create_from_group(rg, "tag", MPI_INFO_NULL, MPI_ERRORS_RETURN, &rc));
    }
    int node_sum = -1, sum = -1;
    CHECK_OK(MPI_Reduce(&rank, &node_sum, 1, MPI_INT, MPI_SUM, 0, nc));
    if (rank == first) {
      CHECK(node_sum == n * first + n * (n - 1) / 2);
      CHECK_OK(MPI_Reduce(&node_sum, &sum, 1, MPI_INT, MPI_SUM, 0, rc));
      if (rank == 0) CHECK(sum == size * (size - 1) / 2);
      CHECK_OK(MPI_Comm_free(&rc));
      CHECK_OK(MPI_Group_free(&rg));
    }
    CHECK_OK(MPI_Comm_free(&nc));
    CHECK_OK(MPI_Group_free(&ng));
    CHECK_OK(MPI_Group_free(&world));
    CHECK_OK(MPI_Session_finalize(&s));
  }
}

static void* session_thread(void* arg) {
  const int id = *(const int*)arg;
  for (int round = 0; round < 3; ++round) {
    MPI_Session s = open_session("MPI_THREAD_MULTIPLE");
    check_thread_level(s, "MPI_THREAD_MULTIPLE");
    char tag[64];
    snprintf(tag, sizeof tag, "tests.thread.%d", id);
    MPI_Comm c = world_comm(s, tag);
    exercise(c);
    CHECK_OK(MPI_Comm_free(&c));
    CHECK_OK(MPI_Session_finalize(&s));
  }
  return NULL;
}

/* The main thread holds a session open throughout: the threads' sessions
 * then never leave the library without users, which would stop it (a
 * collective step) in some processes and not in others, as timing goes. */
static void threads(void) {
  MPI_Session keep = open_session("MPI_THREAD_MULTIPLE");
  pthread_t t[2];
  int ids[2] = {0, 1};
  for (int i = 0; i < 2; ++i) CHECK(pthread_create(&t[i], NULL, session_thread, &ids[i]) == 0);
  for (int i = 0; i < 2; ++i) CHECK(pthread_join(t[i], NULL) == 0);
  CHECK_OK(MPI_Session_finalize(&keep));
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "no-init") == 0) {
    no_init();
  } else if (strcmp(mode, "init-before") == 0) {
    init_before(&argc, &argv);
  } else if (strcmp(mode, "init-after") == 0) {
    init_after(&argc, &argv);
  } else if (strcmp(mode, "init-between") == 0) {
    init_between(&argc, &argv);
  } else if (strcmp(mode, "re-init") == 0) {
    re_init();
  } else if (strcmp(mode, "node-reduce") == 0) {
    node_reduce();
  } else if (strcmp(mode, "threads") == 0) {
    threads();
  } else if (strcmp(mode, "fatal-null") == 0) {
    int n = 0;
    MPI_Session s = open_session(NULL);
    MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
    printf("NOT REACHED\n");
    MPI_Session_finalize(&s);
    return 0;
  } else {
    fprintf(stderr, "FAILED: unknown mode '%s'\n", mode);
    return 2;
  }
  printf("OK\n");
  return 0;
}
