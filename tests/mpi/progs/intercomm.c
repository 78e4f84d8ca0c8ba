/* Inter-communicators: MPI_COMM_WORLD split into two groups of unequal
 * size (not contiguous in world order, one of them in reversed order),
 * joined by MPI_Intercomm_create. Queries, point-to-point across, merge,
 * dup/split/create/compare/free, every collective across it against a
 * serial reference (MPI_ROOT / MPI_PROC_NULL roots, zero counts, a derived
 * datatype, a non-commutative op), nonblocking forms, bad arguments.
 * Needs 2 ranks or more. Argument: a fatal case ("fatal_root",
 * "fatal_leader") or nothing. */
#define _POSIX_C_SOURCE 200809L /* alarm() under -std=c11 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int wrank, wsize;
static int color;             /* 0: group A (world ranks 1, 4, 7, ...), 1: group B */
static int lsize, rsize, lrank;
static int* lworld;           /* world rank of each local rank */
static int* rworld;           /* world rank of each remote rank */

static int in_a(int w) { return w % 3 == 1; }

/* World ranks of group `c` in its rank order (A ascending, B descending). */
static int members(int c, int* out) {
  int n = 0;
  if (c == 0) {
    for (int w = 0; w < wsize; ++w)
      if (in_a(w)) out[n++] = w;
  } else {
    for (int w = wsize - 1; w >= 0; --w)
      if (!in_a(w)) out[n++] = w;
  }
  return n;
}

static MPI_Comm make_inter(void) {
  MPI_Comm local, inter;
  color = in_a(wrank) ? 0 : 1;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, color, color ? -wrank : wrank, &local));
  lworld = malloc(sizeof(int) * wsize);
  rworld = malloc(sizeof(int) * wsize);
  lsize = members(color, lworld);
  rsize = members(1 - color, rworld);
  CHECK_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rworld[0], 77, &inter));
  CHECK_OK(MPI_Comm_free(&local));
  return inter;
}

/* ---- queries --------------------------------------------------------- */

static void queries(MPI_Comm inter) {
  int flag = -1, n = -1, r = -1;
  CHECK_OK(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag == 1);
  CHECK_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0);
  CHECK_OK(MPI_Comm_size(inter, &n));
  CHECK(n == lsize);
  CHECK_OK(MPI_Comm_rank(inter, &r));
  CHECK(lworld[r] == wrank);
  lrank = r;
  CHECK_OK(MPI_Comm_remote_size(inter, &n));
  CHECK(n == rsize);
  MPI_Group wg, rg, lg;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_OK(MPI_Comm_remote_group(inter, &rg));
  CHECK_OK(MPI_Comm_group(inter, &lg));
  int ranks[64], out[64];
  for (int i = 0; i < wsize; ++i) ranks[i] = i;
  CHECK_OK(MPI_Group_translate_ranks(rg, rsize, ranks, wg, out));
  for (int i = 0; i < rsize; ++i) CHECK(out[i] == rworld[i]);
  CHECK_OK(MPI_Group_translate_ranks(lg, lsize, ranks, wg, out));
  for (int i = 0; i < lsize; ++i) CHECK(out[i] == lworld[i]);
  CHECK_OK(MPI_Group_free(&wg));
  CHECK_OK(MPI_Group_free(&rg));
  CHECK_OK(MPI_Group_free(&lg));
  MPI_Comm parent = MPI_COMM_WORLD;
  CHECK_OK(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);
}

/* ---- point-to-point ---------------------------------------------------- */

static void p2p(MPI_Comm inter) {
  /* Every rank sends its world rank to every remote rank, then receives
   * one message from each with MPI_ANY_SOURCE: the status names the
   * remote rank. */
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * rsize);
  int* vals = malloc(sizeof(int) * rsize * 2);
  for (int r = 0; r < rsize; ++r) {
    vals[2 * r] = wrank;
    vals[2 * r + 1] = r;
    CHECK_OK(MPI_Isend(&vals[2 * r], 2, MPI_INT, r, 5 + color, inter, &reqs[r]));
  }
  int seen = 0;
  for (int k = 0; k < rsize; ++k) {
    int got[2];
    MPI_Status st;
    /* Tag named: the next step's messages may already be arriving. */
    CHECK_OK(MPI_Recv(got, 2, MPI_INT, MPI_ANY_SOURCE, 5 + (1 - color), inter, &st));
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize);
    CHECK(got[0] == rworld[st.MPI_SOURCE]);
    CHECK(got[1] == lrank);
    CHECK(st.MPI_TAG == 5 + (1 - color));
    seen |= 1 << st.MPI_SOURCE;
  }
  CHECK(seen == (1 << rsize) - 1);
  CHECK_OK(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
  int peer = lrank % rsize, x = wrank * 3, y = -1;
  /* Local rank i sends to remote rank i % rsize: a rank may get several
   * messages or none; probe tells whose each is. */
  MPI_Request sr;
  CHECK_OK(MPI_Isend(&x, 1, MPI_INT, peer, 9, inter, &sr));
  int expect = 0;
  /* Remote ranks j with j % lsize == lrank send to me. */
  for (int j = 0; j < rsize; ++j)
    if (j % lsize == lrank) ++expect;
  for (int k = 0; k < expect; ++k) {
    MPI_Status st;
    CHECK_OK(MPI_Probe(MPI_ANY_SOURCE, 9, inter, &st));
    CHECK(st.MPI_SOURCE % lsize == lrank);
    CHECK_OK(MPI_Recv(&y, 1, MPI_INT, st.MPI_SOURCE, 9, inter, MPI_STATUS_IGNORE));
    CHECK(y == rworld[st.MPI_SOURCE] * 3);
  }
  CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
  MPI_Status st;
  CHECK_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, inter,
                        &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  free(reqs);
  free(vals);
}

/* ---- merge, dup, split, create, compare ------------------------------- */

static void merge(MPI_Comm inter) {
  /* Group A high: B's members come first, in B's order. */
  MPI_Comm m;
  CHECK_OK(MPI_Intercomm_merge(inter, color == 0, &m));
  int n, r, flag;
  CHECK_OK(MPI_Comm_size(m, &n));
  CHECK_OK(MPI_Comm_rank(m, &r));
  CHECK_OK(MPI_Comm_test_inter(m, &flag));
  CHECK(n == wsize && flag == 0);
  CHECK(r == (color == 1 ? lrank : rsize + lrank));
  int sum = -1;
  CHECK_OK(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, m));
  CHECK(sum == wsize * (wsize - 1) / 2);
  /* Rank order of m through a gather of world ranks at its rank 0. */
  int* all = malloc(sizeof(int) * wsize);
  CHECK_OK(MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, m));
  int* b = malloc(sizeof(int) * wsize);
  int* a = malloc(sizeof(int) * wsize);
  int nb = members(1, b), na = members(0, a);
  for (int i = 0; i < nb; ++i) CHECK(all[i] == b[i]);
  for (int i = 0; i < na; ++i) CHECK(all[nb + i] == a[i]);
  CHECK_OK(MPI_Comm_free(&m));
  /* Both low: the group whose leader has the lower world rank first. */
  CHECK_OK(MPI_Intercomm_merge(inter, 0, &m));
  CHECK_OK(MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, m));
  const int a_first = a[0] < b[0];
  for (int i = 0; i < wsize; ++i) {
    int expect = a_first ? (i < na ? a[i] : b[i - na]) : (i < nb ? b[i] : a[i - nb]);
    CHECK(all[i] == expect);
  }
  CHECK_OK(MPI_Comm_free(&m));
  free(all);
  free(a);
  free(b);
}

static void dup_split_create(MPI_Comm inter) {
  MPI_Comm d;
  int result;
  CHECK_OK(MPI_Comm_dup(inter, &d));
  CHECK_OK(MPI_Comm_compare(inter, d, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_OK(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL);
  int flag, n;
  CHECK_OK(MPI_Comm_test_inter(d, &flag));
  CHECK_OK(MPI_Comm_remote_size(d, &n));
  CHECK(flag == 1 && n == rsize);
  /* Same tag, same peer, two communicators: no mixing. */
  int x = wrank, y = wrank + 1000, gx = -1, gy = -1;
  MPI_Request s[2];
  CHECK_OK(MPI_Isend(&x, 1, MPI_INT, 0, 1, inter, &s[0]));
  CHECK_OK(MPI_Isend(&y, 1, MPI_INT, 0, 1, d, &s[1]));
  if (lrank == 0) {
    for (int j = 0; j < rsize; ++j) {
      CHECK_OK(MPI_Recv(&gy, 1, MPI_INT, j, 1, d, MPI_STATUS_IGNORE));
      CHECK_OK(MPI_Recv(&gx, 1, MPI_INT, j, 1, inter, MPI_STATUS_IGNORE));
      CHECK(gx == rworld[j] && gy == rworld[j] + 1000);
    }
  }
  CHECK_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
  CHECK_OK(MPI_Barrier(d));
  CHECK_OK(MPI_Comm_free(&d));
  CHECK(d == MPI_COMM_NULL);
  MPI_Request r;
  CHECK_OK(MPI_Comm_idup(inter, &d, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Comm_remote_size(d, &n));
  CHECK(n == rsize);
  CHECK_OK(MPI_Comm_free(&d));
  /* Split by local rank parity, keys reversing the order. */
  MPI_Comm sp;
  CHECK_OK(MPI_Comm_split(inter, lrank % 2, -lrank, &sp));
  const int remote_same = (rsize + 1 - lrank % 2) / 2; /* remote ranks of my parity */
  if (remote_same == 0) {
    CHECK(sp == MPI_COMM_NULL);
  } else {
    int ls, rs, r;
    CHECK_OK(MPI_Comm_size(sp, &ls));
    CHECK_OK(MPI_Comm_remote_size(sp, &rs));
    CHECK_OK(MPI_Comm_rank(sp, &r));
    CHECK(ls == (lsize + 1 - lrank % 2) / 2 && rs == remote_same);
    CHECK(r == (ls - 1) - lrank / 2);
    /* Remote rank 0 of sp is the highest remote rank of my parity. */
    int top = rsize - 1;
    if (top % 2 != lrank % 2) --top;
    int v = -1, mine = wrank;
    if (r == 0) {
      CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &v, 1, MPI_INT, 0, 3, sp, MPI_STATUS_IGNORE));
      CHECK(v == rworld[top]);
    }
    CHECK_OK(MPI_Comm_free(&sp));
  }
  /* Undefined colour everywhere in one group: MPI_COMM_NULL for all. */
  CHECK_OK(MPI_Comm_split(inter, color == 0 ? MPI_UNDEFINED : 0, 0, &sp));
  CHECK(sp == MPI_COMM_NULL);
  /* Create: the first half (rounded up) of each local group. */
  MPI_Group lg, half;
  CHECK_OK(MPI_Comm_group(inter, &lg));
  int range[1][3] = {{0, (lsize + 1) / 2 - 1, 1}};
  CHECK_OK(MPI_Group_range_incl(lg, 1, range, &half));
  MPI_Comm cr;
  CHECK_OK(MPI_Comm_create(inter, half, &cr));
  if (lrank < (lsize + 1) / 2) {
    int ls, rs;
    CHECK(cr != MPI_COMM_NULL);
    CHECK_OK(MPI_Comm_size(cr, &ls));
    CHECK_OK(MPI_Comm_remote_size(cr, &rs));
    CHECK(ls == (lsize + 1) / 2 && rs == (rsize + 1) / 2);
    CHECK_OK(MPI_Comm_free(&cr));
  } else {
    CHECK(cr == MPI_COMM_NULL);
  }
  CHECK_OK(MPI_Group_free(&half));
  CHECK_OK(MPI_Group_free(&lg));
}

/* MPI_Comm_idup on an inter-communicator does not block: group A starts
 * it, then A's leader sends to B's leader, which receives before B starts
 * its own. An idup that waited for the other group would deadlock here
 * (the alarm ends the job instead of the launcher's timeout). Then
 * MPI_Comm_idup_with_info and MPI_Comm_disconnect on inter-communicators. */
static void idup_nonblocking(MPI_Comm inter) {
  MPI_Comm d, e;
  MPI_Request r;
  int token = 4242, got = 0, result = -1, n = -1;
  alarm(60);
  if (color == 0) {
    CHECK_OK(MPI_Comm_idup(inter, &d, &r));
    if (lrank == 0) CHECK_OK(MPI_Send(&token, 1, MPI_INT, 0, 9, inter));
  } else {
    if (lrank == 0) {
      CHECK_OK(MPI_Recv(&got, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE));
      CHECK(got == token);
    }
    CHECK_OK(MPI_Comm_idup(inter, &d, &r));
  }
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  alarm(0);
  CHECK_OK(MPI_Comm_compare(d, inter, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_OK(MPI_Comm_remote_size(d, &n));
  CHECK(n == rsize);
  int mine = wrank, theirs = -1;
  if (lrank == 0) {
    CHECK_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 2, &theirs, 1, MPI_INT, 0, 2, d,
                          MPI_STATUS_IGNORE));
    CHECK(theirs == rworld[0]);
  }
  /* with info: the duplicate carries the hint */
  MPI_Info info, used;
  char value[MPI_MAX_INFO_VAL];
  int flag = 0;
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "lapis_note", "inter"));
  CHECK_OK(MPI_Comm_idup_with_info(d, info, &e, &r));
  CHECK_OK(MPI_Info_free(&info));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Comm_get_info(e, &used));
  CHECK_OK(MPI_Info_get(used, "lapis_note", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag && !strcmp(value, "inter"));
  CHECK_OK(MPI_Info_free(&used));
  /* disconnect: a freed send to the remote leader still arrives */
  MPI_Request s;
  if (lrank == 0) {
    CHECK_OK(MPI_Isend(&mine, 1, MPI_INT, 0, 3, e, &s));
    CHECK_OK(MPI_Request_free(&s));
    CHECK_OK(MPI_Recv(&theirs, 1, MPI_INT, 0, 3, e, MPI_STATUS_IGNORE));
    CHECK(theirs == rworld[0]);
  }
  CHECK_OK(MPI_Comm_disconnect(&e));
  CHECK(e == MPI_COMM_NULL);
  CHECK_OK(MPI_Comm_disconnect(&d));
  CHECK(d == MPI_COMM_NULL);
}

/* intercomm_coll.c */
void inter_colls(MPI_Comm inter, int color_, const int* lworld_, const int* rworld_);
void inter_errors(MPI_Comm inter, int color_);
void inter_fatal(MPI_Comm inter, const char* what, int color_);

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK(wsize >= 2);
  MPI_Comm inter = make_inter();
  if (argc > 1) {
    inter_fatal(inter, argv[1], color);
    CHECK(0 && "NOT REACHED");
  }
  queries(inter);
  p2p(inter);
  merge(inter);
  dup_split_create(inter);
  idup_nonblocking(inter);
  inter_colls(inter, color, lworld, rworld);
  inter_errors(inter, color);
  CHECK_OK(MPI_Comm_free(&inter));
  CHECK(inter == MPI_COMM_NULL);
  free(lworld);
  free(rworld);
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
