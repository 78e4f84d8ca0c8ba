/* Communicators, groups and attributes: split/dup/create, isolation of
 * contexts, compare, group algebra against communicators, predefined and
 * user attributes, user error handlers, barriers. */
#include <mpi.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Same tag, same peers, two communicators: each receive gets its own
 * communicator's message even when the other was sent first. */
static void dup_isolation(void) {
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int result;
  CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_OK(MPI_Comm_compare(dup, dup, &result));
  CHECK(result == MPI_IDENT);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int a = rank, b = rank + 100, ra = -1, rb = -1;
  /* Nonblocking: safe even when every message goes by rendezvous. */
  MPI_Request sr[2];
  CHECK_OK(MPI_Isend(&a, 1, MPI_INT, right, 0, MPI_COMM_WORLD, &sr[0]));
  CHECK_OK(MPI_Isend(&b, 1, MPI_INT, right, 0, dup, &sr[1]));
  /* Receive in the opposite order, even with wildcards on dup. */
  CHECK_OK(MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Recv(&ra, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(ra == left && rb == left + 100);
  CHECK_OK(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
  /* A dup of a dup, freed in a different order. */
  MPI_Comm dup2;
  CHECK_OK(MPI_Comm_dup(dup, &dup2));
  CHECK_OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
  CHECK_OK(MPI_Barrier(dup2));
  CHECK_OK(MPI_Comm_free(&dup2));
  /* Many create/free cycles reuse context ids without clashes. */
  for (int i = 0; i < 100; ++i) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    int v = i, w = -1;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 1, &w, 1, MPI_INT, left, 1, c, MPI_STATUS_IGNORE));
    CHECK(w == i);
    CHECK_OK(MPI_Comm_free(&c));
  }
}

static void split(void) {
  MPI_Comm half;
  int color = rank % 2, key = -rank; /* reversed order inside each colour */
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, color, key, &half));
  int hr, hs;
  CHECK_OK(MPI_Comm_rank(half, &hr));
  CHECK_OK(MPI_Comm_size(half, &hs));
  int expect_size = (size - color + 1) / 2;
  CHECK(hs == expect_size);
  /* Highest world rank of my colour is rank 0 in `half`. */
  int top = (size - 1) - ((size - 1 - color) % 2);
  CHECK(hr == (top - rank) / 2);
  /* Sum of world ranks within the colour, by a ring inside `half`. */
  int sum = rank, token = rank;
  for (int step = 1; step < hs; ++step) {
    int in;
    CHECK_OK(MPI_Sendrecv(&token, 1, MPI_INT, (hr + 1) % hs, 3, &in, 1, MPI_INT, (hr + hs - 1) % hs, 3,
                          half, MPI_STATUS_IGNORE));
    token = in;
    sum += in;
  }
  int expect = 0;
  for (int r = color; r < size; r += 2) expect += r;
  CHECK(sum == expect);
  /* Groups: my half's group, translated to world ranks. */
  MPI_Group wg, hg;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_OK(MPI_Comm_group(half, &hg));
  int ranks[64], out[64];
  for (int i = 0; i < hs; ++i) ranks[i] = i;
  CHECK_OK(MPI_Group_translate_ranks(hg, hs, ranks, wg, out));
  for (int i = 0; i < hs; ++i) CHECK(out[i] == top - 2 * i);
  int gr;
  CHECK_OK(MPI_Group_rank(hg, &gr));
  CHECK(gr == hr);
  CHECK_OK(MPI_Group_free(&hg));
  CHECK_OK(MPI_Group_free(&wg));
  CHECK(wg == MPI_GROUP_NULL);
  CHECK_OK(MPI_Comm_free(&half));

  /* MPI_UNDEFINED colour gets MPI_COMM_NULL. */
  MPI_Comm some;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &some));
  if (rank == 0) {
    int s;
    CHECK_OK(MPI_Comm_size(some, &s));
    CHECK(s == 1);
    CHECK_OK(MPI_Comm_free(&some));
  } else {
    CHECK(some == MPI_COMM_NULL);
  }
}

static void create_from_group(void) {
  MPI_Group wg, evens, odds, u, inter, diff;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int range[1][3] = {{0, size - 1, 2}};
  CHECK_OK(MPI_Group_range_incl(wg, 1, range, &evens));
  CHECK_OK(MPI_Group_difference(wg, evens, &odds));
  CHECK_OK(MPI_Group_union(evens, odds, &u));
  CHECK_OK(MPI_Group_intersection(evens, odds, &inter));
  CHECK_OK(MPI_Group_difference(wg, wg, &diff));
  int s, cmp;
  CHECK_OK(MPI_Group_size(inter, &s));
  CHECK(s == 0);
  CHECK_OK(MPI_Group_size(diff, &s));
  CHECK(s == 0);
  CHECK_OK(MPI_Group_compare(u, wg, &cmp));
  CHECK(cmp == (size <= 2 ? MPI_IDENT : MPI_SIMILAR));
  CHECK_OK(MPI_Group_size(evens, &s));
  CHECK(s == (size + 1) / 2);
  int mine;
  CHECK_OK(MPI_Group_rank(odds, &mine));
  CHECK(mine == (rank % 2 ? rank / 2 : MPI_UNDEFINED));

  MPI_Comm ec;
  CHECK_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &ec));
  if (rank % 2 == 0) {
    int er, es;
    CHECK_OK(MPI_Comm_rank(ec, &er));
    CHECK_OK(MPI_Comm_size(ec, &es));
    CHECK(er == rank / 2 && es == (size + 1) / 2);
    CHECK_OK(MPI_Barrier(ec));
    int v = er, w = -1;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, (er + 1) % es, 0, &w, 1, MPI_INT, (er + es - 1) % es, 0, ec,
                          MPI_STATUS_IGNORE));
    CHECK(w == (er + es - 1) % es);
    CHECK_OK(MPI_Comm_free(&ec));
  } else {
    CHECK(ec == MPI_COMM_NULL);
  }
  /* excl / incl against each other. */
  int zero[1] = {0};
  MPI_Group no0, only0;
  CHECK_OK(MPI_Group_excl(wg, 1, zero, &no0));
  CHECK_OK(MPI_Group_incl(wg, 1, zero, &only0));
  CHECK_OK(MPI_Group_size(no0, &s));
  CHECK(s == size - 1);
  MPI_Group groups[] = {wg, evens, odds, u, inter, diff, no0, only0};
  for (unsigned i = 0; i < sizeof groups / sizeof groups[0]; ++i) CHECK_OK(MPI_Group_free(&groups[i]));
}

static int copies, deletes;

static int copy_fn(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag) {
  (void)c, (void)key;
  CHECK(extra == &copies);
  ++copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void* value, void* extra) {
  (void)c, (void)key, (void)value, (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static int failing_copy_fn(MPI_Comm c, int key, void* extra, void* in, void* out, int* flag) {
  (void)c, (void)key, (void)extra, (void)in, (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}

static void attributes(void) {
  int* v;
  int flag = 0;
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag && *v >= 32767);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
  CHECK(flag && (*v == 0 || *v == 1));
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
  CHECK(flag && *v == MPI_PROC_NULL);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
  CHECK(flag);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
  CHECK(flag && *v >= size);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
  CHECK(flag && *v == 0);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
  CHECK(flag && *v >= MPI_ERR_LASTCODE);
  CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag);

  int key;
  static char base[4];
  CHECK_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &copies));
  CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, base));
  void* got = NULL;
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag));
  CHECK(flag && got == base);
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK(copies == 1);
  CHECK_OK(MPI_Comm_get_attr(d, key, &got, &flag));
  CHECK(flag && got == base + 1);
  CHECK_OK(MPI_Comm_free(&d));
  CHECK(deletes == 1);
  CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
  CHECK(deletes == 2);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag));
  CHECK(!flag);
  /* Predefined copy functions. */
  int k2;
  CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL));
  CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, base + 2));
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_OK(MPI_Comm_get_attr(d, k2, &got, &flag));
  CHECK(flag && got == base + 2);
  CHECK_OK(MPI_Comm_free(&d));
  CHECK_OK(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  CHECK_OK(MPI_Comm_free_keyval(&k2));

  /* A copy callback that fails fails the dup: its error comes back, and no half-copied
   * communicator is left (newcomm is MPI_COMM_NULL, as MPICH's attrerr expects). */
  int k3;
  CHECK_OK(MPI_Comm_create_keyval(failing_copy_fn, MPI_COMM_NULL_DELETE_FN, &k3, NULL));
  CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k3, base));
  MPI_Errhandler old;
  CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &old));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  d = MPI_COMM_WORLD;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d) != MPI_SUCCESS);
  CHECK(d == MPI_COMM_NULL);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, old));
  CHECK_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k3));
  CHECK_OK(MPI_Comm_free_keyval(&k3));
}

/* Delete callbacks run in reverse order of setting (MPI-2.2+ requires it for
 * MPI_COMM_SELF at MPI_Finalize; MPICH's attrself/attrend2 check it). */
#define ORDER_KEYS 6
static int order_keys[ORDER_KEYS], order_seen[ORDER_KEYS], order_calls;
static int order_delete_fn(MPI_Comm c, int key, void* value, void* extra) {
  (void)c, (void)key, (void)extra;
  if (order_calls < ORDER_KEYS) order_seen[order_calls] = (int)(long)value;
  ++order_calls;
  return MPI_SUCCESS;
}
/* Sets keys 3,1,5,0,4,2 (then 1 again, which keeps its place) on comm. */
static void set_in_order(MPI_Comm comm) {
  static const int set_order[ORDER_KEYS] = {3, 1, 5, 0, 4, 2};
  for (int i = 0; i < ORDER_KEYS; ++i) {
    int k = set_order[i];
    CHECK_OK(MPI_Comm_set_attr(comm, order_keys[k], (void*)(long)k));
  }
  order_calls = 0;
  CHECK_OK(MPI_Comm_set_attr(comm, order_keys[1], (void*)1L));
  CHECK(order_calls == 1 && order_seen[0] == 1); /* replacing deletes the old value */
  order_calls = 0;
}
static int order_is_lifo(void) {
  static const int lifo[ORDER_KEYS] = {2, 4, 0, 5, 1, 3};
  if (order_calls != ORDER_KEYS) return 0;
  for (int i = 0; i < ORDER_KEYS; ++i)
    if (order_seen[i] != lifo[i]) return 0;
  return 1;
}
static void attribute_order(void) {
  for (int i = 0; i < ORDER_KEYS; ++i)
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, order_delete_fn, &order_keys[i], NULL));
  MPI_Comm d, d2;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  set_in_order(d);
  /* A deleted key leaves the order; setting it again puts it last. */
  CHECK_OK(MPI_Comm_delete_attr(d, order_keys[5]));
  CHECK(order_calls == 1 && order_seen[0] == 5);
  CHECK_OK(MPI_Comm_set_attr(d, order_keys[5], (void*)5L));
  order_calls = 0;
  /* The dup copies in setting order, so it deletes in the same order. */
  CHECK_OK(MPI_Comm_dup(d, &d2));
  CHECK_OK(MPI_Comm_free(&d));
  static const int after_reset[ORDER_KEYS] = {5, 2, 4, 0, 1, 3};
  CHECK(order_calls == ORDER_KEYS);
  for (int i = 0; i < ORDER_KEYS; ++i) CHECK(order_seen[i] == after_reset[i]);
  order_calls = 0;
  CHECK_OK(MPI_Comm_free(&d2));
  CHECK(order_calls == ORDER_KEYS);
  for (int i = 0; i < ORDER_KEYS; ++i) CHECK(order_seen[i] == after_reset[i]);
  /* MPI_COMM_SELF's go at MPI_Finalize (checked in main): keys freed first. */
  order_calls = 0;
  set_in_order(MPI_COMM_SELF);
  for (int i = 0; i < ORDER_KEYS; ++i) CHECK_OK(MPI_Comm_free_keyval(&order_keys[i]));
  CHECK(order_calls == 0);
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_comm = *comm;
}

static void error_handlers(void) {
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_Errhandler eh, got;
  CHECK_OK(MPI_Comm_create_errhandler(my_handler, &eh));
  CHECK_OK(MPI_Comm_set_errhandler(d, eh));
  CHECK_OK(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  int rc = MPI_Send(&rank, 1, MPI_INT, size, 0, d); /* bad rank */
  CHECK(rc == MPI_ERR_RANK && handler_calls == 1 && handler_code == MPI_ERR_RANK && handler_comm == d);
  CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
  CHECK(got == MPI_ERRORS_ARE_FATAL);
  /* Children inherit the handler. */
  MPI_Comm dd;
  CHECK_OK(MPI_Comm_dup(d, &dd));
  rc = MPI_Recv(&rank, 1, MPI_INT, 0, -5, dd, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_ERR_TAG && handler_calls == 2 && handler_comm == dd);
  CHECK_OK(MPI_Comm_call_errhandler(dd, MPI_ERR_OTHER));
  CHECK(handler_calls == 3 && handler_code == MPI_ERR_OTHER);
  CHECK_OK(MPI_Comm_get_errhandler(dd, &got));
  CHECK_OK(MPI_Errhandler_free(&got));
  /* While the program holds a handle for a handler, a get returns that
   * handle (MPICH's commerrf compares them), and each get's free leaves it
   * valid for the holder's own. */
  MPI_Errhandler mine, got2;
  CHECK_OK(MPI_Comm_create_errhandler(my_handler, &mine));
  CHECK_OK(MPI_Comm_set_errhandler(dd, mine));
  CHECK_OK(MPI_Comm_get_errhandler(dd, &got));
  CHECK_OK(MPI_Comm_get_errhandler(dd, &got2));
  CHECK(got == mine && got2 == mine);
  CHECK_OK(MPI_Errhandler_free(&got));
  CHECK_OK(MPI_Errhandler_free(&got2));
  CHECK(got == MPI_ERRHANDLER_NULL && got2 == MPI_ERRHANDLER_NULL);
  CHECK_OK(MPI_Comm_set_errhandler(d, mine)); /* still a handle */
  CHECK_OK(MPI_Errhandler_free(&mine));
  CHECK_OK(MPI_Comm_free(&dd));
  CHECK_OK(MPI_Comm_free(&d));
}

static void names_and_misc(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len, flag;
  CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &d));
  CHECK_OK(MPI_Comm_set_name(d, "mine"));
  CHECK_OK(MPI_Comm_get_name(d, name, &len));
  CHECK(strcmp(name, "mine") == 0);
  CHECK_OK(MPI_Comm_test_inter(d, &flag));
  CHECK(!flag);
  /* The PMPI_ handle conversions exist too (macros, as in MPICH). */
  CHECK(PMPI_Comm_f2c(PMPI_Comm_c2f(d)) == d && PMPI_Comm_c2f(d) == MPI_Comm_c2f(d));
  CHECK(PMPI_Message_f2c(PMPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL);
  CHECK(PMPI_Type_f2c(PMPI_Type_c2f(MPI_INT)) == MPI_INT && PMPI_Op_f2c(PMPI_Op_c2f(MPI_SUM)) == MPI_SUM);
  CHECK(PMPI_Group_f2c(PMPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY);
  CHECK(PMPI_Request_f2c(PMPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
  CHECK(PMPI_Errhandler_f2c(PMPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN);
  CHECK(PMPI_Info_f2c(PMPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL);
  CHECK(PMPI_Win_f2c(PMPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL);
  int cmp;
  CHECK_OK(MPI_Comm_compare(MPI_COMM_SELF, d, &cmp));
  CHECK(cmp == MPI_CONGRUENT);
  CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &cmp));
  CHECK(cmp == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
  CHECK_OK(MPI_Comm_free(&d));
  for (int i = 0; i < 50; ++i) CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Barrier(MPI_COMM_SELF));
  double t0 = MPI_Wtime(), t1 = MPI_Wtime();
  CHECK(t1 >= t0 && MPI_Wtick() > 0 && MPI_Wtick() < 1);
  int provided, main;
  CHECK_OK(MPI_Query_thread(&provided));
  CHECK(provided == MPI_THREAD_SINGLE);
  CHECK_OK(MPI_Is_thread_main(&main));
  CHECK(main);
  void* mem = NULL;
  CHECK_OK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
  CHECK(mem != NULL);
  memset(mem, 1, 1 << 20);
  /* Registered memory works as a message buffer. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  char* m = mem;
  m[0] = (char)rank;
  CHECK_OK(MPI_Sendrecv(m, 1 << 19, MPI_BYTE, right, 2, m + (1 << 19), 1 << 19, MPI_BYTE, left, 2,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(m[1 << 19] == (char)left);
  CHECK_OK(MPI_Free_mem(mem));
}

/* MPI_Comm_free and MPI_Type_free while requests on them are pending: the
 * operations complete normally (the objects live until they do), with the
 * status translated through the freed communicator. */
static void free_while_pending(void) {
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_Datatype every_other;
  CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
  CHECK_OK(MPI_Type_commit(&every_other));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[8], in[8];
  for (int i = 0; i < 8; ++i) out[i] = rank * 100 + i, in[i] = -1;
  MPI_Request reqs[2];
  CHECK_OK(MPI_Irecv(in, 1, every_other, left, 5, d, &reqs[0]));
  CHECK_OK(MPI_Isend(out, 1, every_other, right, 5, d, &reqs[1]));
  CHECK_OK(MPI_Type_free(&every_other));
  CHECK_OK(MPI_Comm_free(&d));
  CHECK(d == MPI_COMM_NULL && every_other == MPI_DATATYPE_NULL);
  MPI_Status st[2];
  CHECK_OK(MPI_Waitall(2, reqs, st));
  CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 5);
  for (int i = 0; i < 8; ++i) CHECK(in[i] == (i % 2 == 0 ? left * 100 + i : -1));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dup_isolation();
  split();
  create_from_group();
  attributes();
  error_handlers();
  names_and_misc();
  free_while_pending();
  attribute_order();
  CHECK_OK(MPI_Finalize());
  CHECK(order_is_lifo());
  printf("OK\n");
  return 0;
}
