/* Nonblocking and persistent collectives against serial references: every
 * MPI_I... collective outstanding at once on one communicator, interleaved
 * with point-to-point traffic (a wildcard receive that must not take
 * collective messages) and with a blocking collective, completed with
 * Waitall, Test loops or Waitany; persistent collectives restarted many
 * times; bad arguments under MPI_ERRORS_RETURN.
 * argv[1], if given, runs one family: nonblocking, persistent, errors (all:
 * every family, as without arguments);
 * argv[2] the number of persistent restarts (default 1000). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;
static int restarts = 1000;
static MPI_Op compose_op; /* non-commutative: x -> a x + b maps composed */

static int ival(int r, int i) { return r * 1000003 + i * 7 + 1; }

static void* xmalloc(size_t n) {
  void* p = calloc(n ? n : 1, 1);
  CHECK(p != NULL);
  return p;
}

typedef struct { unsigned a, b; } Map;
static Map compose(Map p, Map q) { /* p after q */
  Map m = {p.a * q.a, p.a * q.b + p.b};
  return m;
}
static void compose_fn(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  Map* x = in;
  Map* y = inout;
  for (int i = 0; i < *len; ++i) y[i] = compose(x[i], y[i]);
}
static Map map_of(int r, int i, int round) {
  Map m = {2u * r + 3u + (unsigned)i + (unsigned)round, (unsigned)r + 7u * i};
  return m;
}

/* ---- every nonblocking collective at once ------------------------------ */

enum { kMaxReqs = 32 };

/* The buffers of one round; `n` ints per block. */
typedef struct {
  int n, root;
  int *ar_in, *ar_out;        /* Iallreduce */
  int* bc;                    /* Ibcast */
  Map *rd_in, *rd_out;        /* Ireduce, non-commutative, to root */
  int *ag_out;                /* Iallgather */
  int *agv_out, *agv_counts, *agv_displs;
  int *a2a_in, *a2a_out;      /* Ialltoall */
  int *a2av_in, *a2av_out, *a2av_counts, *a2av_displs;
  int *a2aw_in, *a2aw_out, *a2aw_counts, *a2aw_displs;
  MPI_Datatype* a2aw_types;
  int *g_out, *sc_in, sc_out; /* Igather to root, Iscatter from root */
  int *gv_out, *scv_in, *scv_out;
  int *rs_in, *rs_out, *rs_counts, *rsb_out;
  int *scan_out, *exscan_out;
  int* mine;                  /* this rank's block: ival(rank, i) */
} Round;

static void setup_round(Round* b, int n, int round) {
  b->n = n;
  b->root = round % size;
  const size_t blk = (size_t)n * sizeof(int), all = blk * size;
  /* At least rank + 1 ints: the v-forms send that many. */
  const int mine_n = n > size ? n : size;
  b->mine = xmalloc(mine_n * sizeof(int));
  for (int i = 0; i < mine_n; ++i) b->mine[i] = ival(rank, i);
  b->ar_in = xmalloc(blk), b->ar_out = xmalloc(blk);
  memcpy(b->ar_in, b->mine, blk);
  b->bc = xmalloc(blk);
  if (rank == b->root) memcpy(b->bc, b->mine, blk);
  b->rd_in = xmalloc(n * sizeof(Map)), b->rd_out = xmalloc(n * sizeof(Map));
  for (int i = 0; i < n; ++i) b->rd_in[i] = map_of(rank, i, round);
  b->ag_out = xmalloc(all);
  /* Allgatherv: rank r gives r + 1 ints, blocks in reverse rank order. */
  b->agv_counts = xmalloc(size * sizeof(int)), b->agv_displs = xmalloc(size * sizeof(int));
  int total = 0;
  for (int r = size - 1; r >= 0; --r) b->agv_counts[r] = r + 1, b->agv_displs[r] = total, total += r + 1;
  b->agv_out = xmalloc(total * sizeof(int));
  b->a2a_in = xmalloc(all), b->a2a_out = xmalloc(all);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < n; ++i) b->a2a_in[r * n + i] = ival(rank, r * n + i);
  /* Alltoallv: ranks r and q swap (r + q) % (n + 1) ints, the head of
   * a2a_in's block for the peer. */
  b->a2av_counts = xmalloc(size * sizeof(int)), b->a2av_displs = xmalloc(size * sizeof(int));
  for (int q = 0; q < size; ++q) b->a2av_counts[q] = (rank + q) % (n + 1), b->a2av_displs[q] = q * n;
  b->a2av_in = b->a2a_in;
  b->a2av_out = xmalloc(all);
  /* Alltoallw: the same as Alltoall, byte displacements, MPI_INT each. */
  b->a2aw_counts = xmalloc(size * sizeof(int)), b->a2aw_displs = xmalloc(size * sizeof(int));
  b->a2aw_types = xmalloc(size * sizeof(MPI_Datatype));
  for (int q = 0; q < size; ++q) {
    b->a2aw_counts[q] = n;
    b->a2aw_displs[q] = q * (int)blk;
    b->a2aw_types[q] = MPI_INT;
  }
  b->a2aw_in = b->a2a_in;
  b->a2aw_out = xmalloc(all);
  b->g_out = xmalloc(all);
  b->sc_in = xmalloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) b->sc_in[r] = ival(r, round);
  b->gv_out = xmalloc(total * sizeof(int));
  b->scv_in = xmalloc(total * sizeof(int));
  for (int r = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i) b->scv_in[b->agv_displs[r] + i] = ival(r, i);
  b->scv_out = xmalloc((size + 1) * sizeof(int));
  /* Reduce_scatter: rank r gets r + 1 of the sums. */
  b->rs_in = xmalloc(total * sizeof(int) + all);
  for (int i = 0; i < total + n * size; ++i) b->rs_in[i] = ival(rank, i);
  b->rs_counts = xmalloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) b->rs_counts[r] = r + 1;
  b->rs_out = xmalloc((size + 1) * sizeof(int));
  b->rsb_out = xmalloc(blk);
  b->scan_out = xmalloc(blk), b->exscan_out = xmalloc(blk);
}

/* Starts every nonblocking collective; returns how many requests. */
static int start_all(Round* b, MPI_Comm comm, MPI_Request* q) {
  const int n = b->n, root = b->root;
  int k = 0;
  CHECK_OK(MPI_Iallreduce(b->ar_in, b->ar_out, n, MPI_INT, MPI_SUM, comm, &q[k++]));
  CHECK_OK(MPI_Ibcast(b->bc, n, MPI_INT, root, comm, &q[k++]));
  CHECK_OK(MPI_Ireduce(b->rd_in, b->rd_out, n, MPI_2INT, compose_op, root, comm, &q[k++]));
  CHECK_OK(MPI_Iallgather(b->mine, n, MPI_INT, b->ag_out, n, MPI_INT, comm, &q[k++]));
  CHECK_OK(MPI_Iallgatherv(b->mine, rank + 1, MPI_INT, b->agv_out, b->agv_counts, b->agv_displs,
                           MPI_INT, comm, &q[k++]));
  CHECK_OK(MPI_Ibarrier(comm, &q[k++]));
  CHECK_OK(MPI_Ialltoall(b->a2a_in, n, MPI_INT, b->a2a_out, n, MPI_INT, comm, &q[k++]));
  CHECK_OK(MPI_Ialltoallv(b->a2av_in, b->a2av_counts, b->a2av_displs, MPI_INT, b->a2av_out,
                          b->a2av_counts, b->a2av_displs, MPI_INT, comm, &q[k++]));
  CHECK_OK(MPI_Ialltoallw(b->a2aw_in, b->a2aw_counts, b->a2aw_displs, b->a2aw_types, b->a2aw_out,
                          b->a2aw_counts, b->a2aw_displs, b->a2aw_types, comm, &q[k++]));
  CHECK_OK(MPI_Igather(b->mine, n, MPI_INT, b->g_out, n, MPI_INT, root, comm, &q[k++]));
  CHECK_OK(MPI_Iscatter(b->sc_in, 1, MPI_INT, &b->sc_out, 1, MPI_INT, root, comm, &q[k++]));
  CHECK_OK(MPI_Igatherv(b->mine, rank + 1, MPI_INT, b->gv_out, b->agv_counts, b->agv_displs,
                        MPI_INT, root, comm, &q[k++]));
  CHECK_OK(MPI_Iscatterv(b->scv_in, b->agv_counts, b->agv_displs, MPI_INT, b->scv_out, rank + 1,
                         MPI_INT, root, comm, &q[k++]));
  CHECK_OK(MPI_Ireduce_scatter(b->rs_in, b->rs_out, b->rs_counts, MPI_INT, MPI_SUM, comm, &q[k++]));
  CHECK_OK(MPI_Ireduce_scatter_block(b->rs_in, b->rsb_out, n, MPI_INT, MPI_MAX, comm, &q[k++]));
  CHECK_OK(MPI_Iscan(b->mine, b->scan_out, n, MPI_INT, MPI_SUM, comm, &q[k++]));
  CHECK_OK(MPI_Iexscan(b->mine, b->exscan_out, n, MPI_INT, MPI_SUM, comm, &q[k++]));
  return k;
}

static void check_round(const Round* b, int round) {
  const int n = b->n, root = b->root;
  for (int i = 0; i < n; ++i) {
    int sum = 0, scan = 0, exscan = 0;
    for (int r = 0; r < size; ++r) {
      sum += ival(r, i);
      if (r <= rank) scan += ival(r, i);
      if (r < rank) exscan += ival(r, i);
    }
    CHECK(b->ar_out[i] == sum);
    CHECK(b->bc[i] == ival(root, i));
    CHECK(b->scan_out[i] == scan);
    if (rank > 0) CHECK(b->exscan_out[i] == exscan);
    if (rank == root) {
      Map m = map_of(size - 1, i, round);
      for (int r = size - 2; r >= 0; --r) m = compose(map_of(r, i, round), m);
      CHECK(b->rd_out[i].a == m.a && b->rd_out[i].b == m.b);
    }
    int mx = ival(size - 1, rank * n + i); /* MAX over ranks: the highest rank's */
    CHECK(b->rsb_out[i] == mx);
  }
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < n; ++i) {
      CHECK(b->ag_out[r * n + i] == ival(r, i));
      CHECK(b->a2a_out[r * n + i] == ival(r, rank * n + i));
      CHECK(b->a2aw_out[r * n + i] == ival(r, rank * n + i));
      if (rank == root) CHECK(b->g_out[r * n + i] == ival(r, i));
    }
    for (int i = 0; i < (rank + r) % (n + 1); ++i) {
      CHECK(b->a2av_out[r * n + i] == ival(r, rank * n + i));
    }
    for (int i = 0; i <= r; ++i) {
      CHECK(b->agv_out[b->agv_displs[r] + i] == ival(r, i));
      if (rank == root) CHECK(b->gv_out[b->agv_displs[r] + i] == ival(r, i));
    }
  }
  CHECK(b->sc_out == ival(rank, round));
  int first = 0;
  for (int r = 0; r < rank; ++r) first += r + 1;
  for (int i = 0; i <= rank; ++i) {
    CHECK(b->scv_out[i] == ival(rank, i));
    int sum = 0;
    for (int r = 0; r < size; ++r) sum += ival(r, first + i);
    CHECK(b->rs_out[i] == sum);
  }
}

static void free_round(Round* b) {
  void* ps[] = {b->mine, b->ar_in, b->ar_out, b->bc, b->rd_in, b->rd_out, b->ag_out, b->agv_out,
                b->agv_counts, b->agv_displs, b->a2a_in, b->a2a_out, b->a2av_out, b->a2av_counts,
                b->a2av_displs, b->a2aw_out, b->a2aw_counts, b->a2aw_displs, b->a2aw_types,
                b->g_out, b->sc_in, b->gv_out, b->scv_in, b->scv_out, b->rs_in, b->rs_counts,
                b->rs_out, b->rsb_out, b->scan_out, b->exscan_out};
  for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); ++i) free(ps[i]);
}

/* Point-to-point around a ring while the collectives are pending: a
 * wildcard receive on the same communicator must get only this message. */
static int ring_out, ring_in;
static void ring_exchange(MPI_Comm comm, int round, MPI_Request* q) {
  ring_out = ival(rank, round);
  ring_in = -1;
  CHECK_OK(MPI_Irecv(&ring_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &q[0]));
  CHECK_OK(MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % size, 5, comm, &q[1]));
}

static void test_nonblocking(void) {
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  const int counts[] = {1, 3, 4097, 0, 17};
  for (int round = 0; round < 5; ++round) {
    MPI_Comm comm = round % 2 ? dup : MPI_COMM_WORLD;
    Round b;
    setup_round(&b, counts[round], round);
    MPI_Request q[kMaxReqs];
    MPI_Status st[kMaxReqs];
    ring_exchange(comm, round, q);
    int k = 2 + start_all(&b, comm, q + 2);
    /* A blocking collective while those are pending, on the same comm. */
    int one = 1, all = 0;
    CHECK_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm));
    CHECK(all == size);
    if (round % 3 == 0) {
      CHECK_OK(MPI_Waitall(k, q, st));
    } else if (round % 3 == 1) {
      /* Test from the last to the first until all are done. */
      int left = k;
      while (left > 0) {
        for (int i = k - 1; i >= 0; --i) {
          if (q[i] == MPI_REQUEST_NULL) continue;
          int flag = 0;
          CHECK_OK(MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE));
          if (flag) --left;
        }
      }
    } else {
      for (int done = 0; done < k; ++done) {
        int index = -1;
        CHECK_OK(MPI_Waitany(k, q, &index, MPI_STATUS_IGNORE));
        CHECK(index >= 0 && index < k);
      }
    }
    for (int i = 0; i < k; ++i) CHECK(q[i] == MPI_REQUEST_NULL);
    /* The ring message went to the user's wildcard receive. */
    CHECK(ring_in == ival((rank - 1 + size) % size, round));
    check_round(&b, round);
    free_round(&b);
  }
  /* Pending when its communicator is freed, and when its request is. */
  MPI_Comm tmp;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &tmp));
  /* r2's buffers outlive this function: a freed request's collective may
   * still be writing after it returns (until MPI_Finalize). */
  static int y, ysum;
  int x = rank + 1, sum = 0;
  y = rank;
  ysum = -1;
  MPI_Request r1, r2;
  CHECK_OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, tmp, &r1));
  CHECK_OK(MPI_Iallreduce(&y, &ysum, 1, MPI_INT, MPI_SUM, tmp, &r2));
  CHECK_OK(MPI_Comm_free(&tmp));
  CHECK_OK(MPI_Request_free(&r2));
  CHECK_OK(MPI_Wait(&r1, MPI_STATUS_IGNORE));
  CHECK(sum == size * (size + 1) / 2);
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Comm_free(&dup));
}

/* ---- persistent collectives ----------------------------------------- */

static void test_persistent(void) {
  enum { kAllIters = 40, n = 5 };
  const int kIters = restarts;
  int ar_in[n] = {0}, ar_out[n] = {0}, bc[n] = {0};
  MPI_Request q[3];
  CHECK_OK(MPI_Allreduce_init(ar_in, ar_out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &q[0]));
  CHECK_OK(MPI_Bcast_init(bc, n, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]));
  CHECK_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_ENV, &q[2]));
  for (int it = 0; it < kIters; ++it) {
    for (int i = 0; i < n; ++i) {
      ar_in[i] = ival(rank, i + it);
      bc[i] = rank == size - 1 ? ival(it, i) : -1;
    }
    CHECK_OK(MPI_Startall(3, q));
    CHECK_OK(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; ++i) {
      int sum = 0;
      for (int r = 0; r < size; ++r) sum += ival(r, i + it);
      CHECK(ar_out[i] == sum);
      CHECK(bc[i] == ival(it, i));
    }
  }
  for (int i = 0; i < 3; ++i) {
    CHECK(q[i] != MPI_REQUEST_NULL); /* inactive, not freed */
    CHECK_OK(MPI_Request_free(&q[i]));
  }
  /* Every other _init form, restarted a few times, checked like round 0. */
  for (int round = 0; round < 2; ++round) {
    Round b;
    setup_round(&b, 3 + round, 0);
    MPI_Comm comm = MPI_COMM_WORLD;
    const int root = b.root;
    MPI_Request p[kMaxReqs];
    int k = 0;
    CHECK_OK(MPI_Reduce_init(b.rd_in, b.rd_out, b.n, MPI_2INT, compose_op, root, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Allgather_init(b.mine, b.n, MPI_INT, b.ag_out, b.n, MPI_INT, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Allgatherv_init(b.mine, rank + 1, MPI_INT, b.agv_out, b.agv_counts, b.agv_displs, MPI_INT, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Alltoall_init(b.a2a_in, b.n, MPI_INT, b.a2a_out, b.n, MPI_INT, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Alltoallv_init(b.a2av_in, b.a2av_counts, b.a2av_displs, MPI_INT, b.a2av_out, b.a2av_counts, b.a2av_displs, MPI_INT, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Alltoallw_init(b.a2aw_in, b.a2aw_counts, b.a2aw_displs, b.a2aw_types, b.a2aw_out, b.a2aw_counts, b.a2aw_displs, b.a2aw_types, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Gather_init(b.mine, b.n, MPI_INT, b.g_out, b.n, MPI_INT, root, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Gatherv_init(b.mine, rank + 1, MPI_INT, b.gv_out, b.agv_counts, b.agv_displs, MPI_INT, root, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Scatter_init(b.sc_in, 1, MPI_INT, &b.sc_out, 1, MPI_INT, root, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Scatterv_init(b.scv_in, b.agv_counts, b.agv_displs, MPI_INT, b.scv_out, rank + 1, MPI_INT, root, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Reduce_scatter_init(b.rs_in, b.rs_out, b.rs_counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Reduce_scatter_block_init(b.rs_in, b.rsb_out, b.n, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Scan_init(b.mine, b.scan_out, b.n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Exscan_init(b.mine, b.exscan_out, b.n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &p[k++]));
    CHECK_OK(MPI_Iallreduce(b.ar_in, b.ar_out, b.n, MPI_INT, MPI_SUM, comm, &p[k++]));
    CHECK_OK(MPI_Ibcast(b.bc, b.n, MPI_INT, root, comm, &p[k++]));
    for (int it = 0; it < kAllIters; ++it) {
      /* Stale results must not pass for new ones. */
      memset(b.ag_out, 0, (size_t)b.n * size * sizeof(int));
      memset(b.a2a_out, 0, (size_t)b.n * size * sizeof(int));
      memset(b.scan_out, 0, (size_t)b.n * sizeof(int));
      CHECK_OK(MPI_Startall(k - 2, p));
      CHECK_OK(MPI_Waitall(k, p, MPI_STATUSES_IGNORE));
      check_round(&b, 0);
    }
    for (int i = 0; i < k - 2; ++i) CHECK_OK(MPI_Request_free(&p[i]));
    free_round(&b);
  }
}

/* ---- bad arguments --------------------------------------------------- */

static void test_errors(void) {
  MPI_Comm comm;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 1, y = 0;
  MPI_Request q = MPI_REQUEST_NULL;
  CHECK_CLASS(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Ibarrier(comm, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Ibcast(&x, 1, MPI_INT, size, comm, &q), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, comm, &q), MPI_ERR_OP);
  CHECK_CLASS(MPI_Iallreduce(&x, &y, 1, MPI_BYTE, MPI_SUM, comm, &q), MPI_ERR_OP);
  CHECK_CLASS(MPI_Igather(&x, -1, MPI_INT, &y, 1, MPI_INT, 0, comm, &q), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Ialltoall(&x, 1, MPI_INT, &y, 1, MPI_DATATYPE_NULL, comm, &q), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &q), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, (MPI_Info)12345, &q),
              MPI_ERR_INFO);
  CHECK_CLASS(MPI_Bcast_init(&x, 1, MPI_INT, -1, comm, MPI_INFO_NULL, &q), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Barrier_init(comm, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
  CHECK(q == MPI_REQUEST_NULL); /* no failed call made a request */
  /* Starting an active persistent collective; cancelling a collective. */
  CHECK_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &q));
  CHECK_OK(MPI_Start(&q));
  CHECK_CLASS(MPI_Start(&q), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Cancel(&q), MPI_ERR_REQUEST);
  CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK(y == size);
  CHECK_OK(MPI_Request_free(&q));
  CHECK_OK(MPI_Comm_free(&comm));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_OK(MPI_Op_create(compose_fn, 0, &compose_op));
  const char* only = argc > 1 && strcmp(argv[1], "all") ? argv[1] : NULL;
  if (argc > 2) restarts = atoi(argv[2]);
  if (!only || !strcmp(only, "nonblocking")) test_nonblocking();
  if (!only || !strcmp(only, "persistent")) test_persistent();
  if (!only || !strcmp(only, "errors")) test_errors();
  CHECK_OK(MPI_Op_free(&compose_op));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
