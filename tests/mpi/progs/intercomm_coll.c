/* Collectives across an inter-communicator (see intercomm.c) against a
 * serial reference: each group receives what the other group sent. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int color, wrank, wsize, lsize, rsize, lrank;
static const int* lworld;
static const int* rworld;

static int val(int w, int i) { return w * 100 + i; }

/* A non-commutative op on pairs (a, b): affine maps t -> a t + b composed
 * in rank order (x then y). */
typedef struct {
  unsigned a, b;
} Map;
static Map compose(Map x, Map y) {
  Map m = {x.a * y.a, y.a * x.b + y.b};
  return m;
}
static void compose_fn(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  Map* x = in;
  Map* y = inout;
  for (int i = 0; i < *len; ++i) y[i] = compose(x[i], y[i]);
}
static Map map_of(int w, int i) {
  Map m = {2u * (unsigned)w + 3u + (unsigned)i, (unsigned)w + 7u * (unsigned)i};
  return m;
}
static MPI_Op compose_op;
static MPI_Datatype map_type;

/* The roots tried on side s: its first and last rank. */
static int nroots(int side_size) { return side_size > 1 ? 2 : 1; }
static int root_at(int side_size, int k) { return k == 0 ? 0 : side_size - 1; }
static int side_size(int s) { return s == color ? lsize : rsize; }

/* Root argument for this rank when side s's rank rr is the root. */
static int root_arg(int s, int rr) {
  if (s == color) return lrank == rr ? MPI_ROOT : MPI_PROC_NULL;
  return rr;
}

static void bcast(MPI_Comm inter) {
  enum { N = 7 };
  for (int s = 0; s < 2; ++s) {
    for (int k = 0; k < nroots(side_size(s)); ++k) {
      const int rr = root_at(side_size(s), k), root = root_arg(s, rr);
      int buf[N];
      for (int i = 0; i < N; ++i) buf[i] = root == MPI_ROOT ? val(wrank, i) : -1;
      CHECK_OK(MPI_Bcast(buf, N, MPI_INT, root, inter));
      for (int i = 0; i < N; ++i) {
        if (root == MPI_PROC_NULL) CHECK(buf[i] == -1);
        if (root >= 0) CHECK(buf[i] == val(rworld[rr], i));
        if (root == MPI_ROOT) CHECK(buf[i] == val(wrank, i));
      }
      /* Receivers use a vector type of the same signature (6 ints). */
      MPI_Datatype vec;
      CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
      CHECK_OK(MPI_Type_commit(&vec));
      int v[9];
      for (int i = 0; i < 9; ++i) v[i] = root == MPI_ROOT ? val(wrank, i) : -1;
      if (root == MPI_ROOT) {
        CHECK_OK(MPI_Bcast(v, 6, MPI_INT, root, inter));
      } else {
        CHECK_OK(MPI_Bcast(v, 3, vec, root, inter));
      }
      if (root >= 0) {
        const int at[6] = {0, 2, 3, 5, 6, 8};
        for (int i = 0; i < 6; ++i) CHECK(v[at[i]] == val(rworld[rr], i));
        CHECK(v[1] == -1 && v[4] == -1 && v[7] == -1);
      }
      CHECK_OK(MPI_Type_free(&vec));
      /* Zero count. */
      CHECK_OK(MPI_Bcast(NULL, 0, MPI_INT, root, inter));
    }
  }
}

static void reduce(MPI_Comm inter) {
  enum { N = 5 };
  for (int s = 0; s < 2; ++s) {
    for (int k = 0; k < nroots(side_size(s)); ++k) {
      const int rr = root_at(side_size(s), k), root = root_arg(s, rr);
      int in[N], out[N];
      Map min[N], mout[N];
      for (int i = 0; i < N; ++i) {
        in[i] = val(wrank, i);
        out[i] = -1;
        min[i] = map_of(wrank, i);
        mout[i].a = mout[i].b = 0;
      }
      CHECK_OK(MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, root, inter));
      CHECK_OK(MPI_Reduce(min, mout, N, map_type, compose_op, root, inter));
      for (int i = 0; i < N; ++i) {
        if (root != MPI_ROOT) {
          CHECK(out[i] == -1);
          continue;
        }
        int sum = 0;
        Map acc = map_of(rworld[0], i);
        for (int j = 0; j < rsize; ++j) sum += val(rworld[j], i);
        for (int j = 1; j < rsize; ++j) acc = compose(acc, map_of(rworld[j], i));
        CHECK(out[i] == sum);
        CHECK(mout[i].a == acc.a && mout[i].b == acc.b);
      }
      CHECK_OK(MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, inter));
    }
  }
}

static void allreduce(MPI_Comm inter) {
  enum { N = 6 };
  int in[N], out[N];
  Map min[N], mout[N];
  for (int i = 0; i < N; ++i) {
    in[i] = val(wrank, i);
    min[i] = map_of(wrank, i);
  }
  CHECK_OK(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, inter));
  CHECK_OK(MPI_Allreduce(min, mout, N, map_type, compose_op, inter));
  for (int i = 0; i < N; ++i) {
    int sum = 0;
    Map acc = map_of(rworld[0], i);
    for (int j = 0; j < rsize; ++j) sum += val(rworld[j], i);
    for (int j = 1; j < rsize; ++j) acc = compose(acc, map_of(rworld[j], i));
    CHECK(out[i] == sum);
    CHECK(mout[i].a == acc.a && mout[i].b == acc.b);
  }
  CHECK_OK(MPI_Allreduce(in, out, 0, MPI_INT, MPI_SUM, inter));
}

static void gather_scatter(MPI_Comm inter) {
  enum { B = 3 };
  int* big = malloc(sizeof(int) * (B * wsize + 8 * wsize));
  int* counts = malloc(sizeof(int) * wsize);
  int* displs = malloc(sizeof(int) * wsize);
  for (int s = 0; s < 2; ++s) {
    for (int k = 0; k < nroots(side_size(s)); ++k) {
      const int rr = root_at(side_size(s), k), root = root_arg(s, rr);
      /* Gather: block j from remote rank j. */
      int mine[B];
      for (int i = 0; i < B; ++i) mine[i] = val(wrank, i);
      for (int i = 0; i < B * rsize; ++i) big[i] = -1;
      CHECK_OK(MPI_Gather(mine, B, MPI_INT, big, B, MPI_INT, root, inter));
      if (root == MPI_ROOT) {
        for (int j = 0; j < rsize; ++j)
          for (int i = 0; i < B; ++i) CHECK(big[j * B + i] == val(rworld[j], i));
      }
      /* Gatherv: remote rank j sends j + 1 ints; blocks stored in reverse. */
      int total = 0;
      for (int j = 0; j < rsize; ++j) total += j + 1;
      for (int j = rsize - 1, at = 0; j >= 0; --j) {
        counts[j] = j + 1;
        displs[j] = at;
        at += j + 1;
      }
      for (int i = 0; i < total; ++i) big[i] = -1;
      int vmine[64];
      for (int i = 0; i <= lrank; ++i) vmine[i] = val(wrank, i);
      CHECK_OK(MPI_Gatherv(vmine, lrank + 1, MPI_INT, big, counts, displs, MPI_INT, root, inter));
      if (root == MPI_ROOT) {
        for (int j = 0; j < rsize; ++j)
          for (int i = 0; i <= j; ++i) CHECK(big[displs[j] + i] == val(rworld[j], i));
      }
      /* Scatter: the root sends block j to remote rank j. */
      for (int j = 0; j < rsize; ++j)
        for (int i = 0; i < B; ++i) big[j * B + i] = val(rworld[j], i) + 7;
      int got[B] = {-1, -1, -1};
      CHECK_OK(MPI_Scatter(big, B, MPI_INT, got, B, MPI_INT, root, inter));
      for (int i = 0; i < B; ++i) CHECK(got[i] == (root >= 0 ? val(wrank, i) + 7 : -1));
      /* Scatterv with the reversed layout: remote rank j gets j + 1 ints. */
      for (int j = 0; j < rsize; ++j)
        for (int i = 0; i <= j; ++i) big[displs[j] + i] = val(rworld[j], i) + 9;
      int vgot[64];
      for (int i = 0; i < 64; ++i) vgot[i] = -1;
      CHECK_OK(MPI_Scatterv(big, counts, displs, MPI_INT, vgot, lrank + 1, MPI_INT, root, inter));
      if (root >= 0) {
        for (int i = 0; i <= lrank; ++i) CHECK(vgot[i] == val(wrank, i) + 9);
      }
      CHECK(vgot[lrank + 1] == -1);
      /* Zero counts. */
      CHECK_OK(MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, inter));
      CHECK_OK(MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, inter));
    }
  }
  free(big);
  free(counts);
  free(displs);
}

static void allgather(MPI_Comm inter) {
  enum { B = 2 };
  int* all = malloc(sizeof(int) * wsize * wsize);
  int* counts = malloc(sizeof(int) * wsize);
  int* displs = malloc(sizeof(int) * wsize);
  int mine[64];
  for (int i = 0; i < 64; ++i) mine[i] = val(wrank, i);
  CHECK_OK(MPI_Allgather(mine, B, MPI_INT, all, B, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j)
    for (int i = 0; i < B; ++i) CHECK(all[j * B + i] == val(rworld[j], i));
  /* v-form: remote rank j sends j ints (rank 0 sends none), reversed layout. */
  int total = 0;
  for (int j = rsize - 1; j >= 0; --j) {
    counts[j] = j;
    displs[j] = total;
    total += j;
  }
  for (int i = 0; i < total; ++i) all[i] = -1;
  CHECK_OK(MPI_Allgatherv(mine, lrank, MPI_INT, all, counts, displs, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j)
    for (int i = 0; i < j; ++i) CHECK(all[displs[j] + i] == val(rworld[j], i));
  CHECK_OK(MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, inter));
  free(all);
  free(counts);
  free(displs);
}

static int val2(int w, int to, int i) { return w * 1000 + to * 10 + i; }

static void alltoall(MPI_Comm inter) {
  enum { B = 2 };
  const int cap = 3 * wsize;
  int* sbuf = malloc(sizeof(int) * cap);
  int* rbuf = malloc(sizeof(int) * cap);
  int *sc = malloc(sizeof(int) * wsize), *sd = malloc(sizeof(int) * wsize);
  int *rc = malloc(sizeof(int) * wsize), *rd = malloc(sizeof(int) * wsize);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * wsize);
  for (int j = 0; j < rsize; ++j)
    for (int i = 0; i < B; ++i) sbuf[j * B + i] = val2(wrank, j, i);
  CHECK_OK(MPI_Alltoall(sbuf, B, MPI_INT, rbuf, B, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j)
    for (int i = 0; i < B; ++i) CHECK(rbuf[j * B + i] == val2(rworld[j], lrank, i));
  /* v and w: (my local rank + peer's) % 3 ints each way, zeros included. */
  for (int pass = 0; pass < 2; ++pass) {
    int sat = 0, rat = 0;
    for (int j = 0; j < rsize; ++j) {
      sc[j] = rc[j] = (lrank + j) % 3;
      sd[j] = sat;
      rd[j] = rat;
      for (int i = 0; i < sc[j]; ++i) sbuf[sat + i] = val2(wrank, j, i);
      sat += sc[j];
      rat += rc[j];
      types[j] = MPI_INT;
    }
    for (int i = 0; i < rat; ++i) rbuf[i] = -1;
    if (pass == 0) {
      CHECK_OK(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, inter));
    } else {
      for (int j = 0; j < rsize; ++j) {
        sd[j] *= (int)sizeof(int);
        rd[j] *= (int)sizeof(int);
      }
      CHECK_OK(MPI_Alltoallw(sbuf, sc, sd, types, rbuf, rc, rd, types, inter));
      for (int j = 0; j < rsize; ++j) rd[j] /= (int)sizeof(int);
    }
    for (int j = 0; j < rsize; ++j)
      for (int i = 0; i < rc[j]; ++i) CHECK(rbuf[rd[j] + i] == val2(rworld[j], lrank, i));
  }
  free(sbuf);
  free(rbuf);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(types);
}

static void reduce_scatter(MPI_Comm inter) {
  /* Both groups reduce vectors of lsize * rsize elements. */
  const int total = lsize * rsize;
  int* in = malloc(sizeof(int) * total);
  int* out = malloc(sizeof(int) * total);
  int* counts = malloc(sizeof(int) * lsize);
  for (int k = 0; k < total; ++k) in[k] = val(wrank, k);
  for (int block = 0; block < 2; ++block) {
    for (int i = 0; i < lsize; ++i) counts[i] = rsize;
    if (!block && lsize > 1) { /* uneven, one rank gets nothing */
      counts[0] = 2 * rsize;
      counts[lsize - 1] = 0;
    }
    int first = 0;
    for (int i = 0; i < lrank; ++i) first += counts[i];
    for (int k = 0; k < total; ++k) out[k] = -1;
    if (block) {
      CHECK_OK(MPI_Reduce_scatter_block(in, out, rsize, MPI_INT, MPI_SUM, inter));
    } else {
      CHECK_OK(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, inter));
    }
    for (int k = 0; k < counts[lrank]; ++k) {
      int sum = 0;
      for (int j = 0; j < rsize; ++j) sum += val(rworld[j], first + k);
      CHECK(out[k] == sum);
    }
    CHECK(counts[lrank] == total || out[counts[lrank]] == -1); /* nothing past its block */
  }
  free(in);
  free(out);
  free(counts);
}

static void nonblocking(MPI_Comm inter) {
  /* Several at once, a barrier among them, then a persistent allreduce. */
  enum { N = 4 };
  int b[N], in[N], out[N], a2a_s[64], a2a_r[64];
  const int broot = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  for (int i = 0; i < N; ++i) {
    b[i] = broot == MPI_ROOT ? val(wrank, i) : -1;
    in[i] = val(wrank, i);
  }
  for (int j = 0; j < rsize; ++j) a2a_s[j] = val2(wrank, j, 0);
  MPI_Request r[4];
  CHECK_OK(MPI_Ibcast(b, N, MPI_INT, broot, inter, &r[0]));
  CHECK_OK(MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, inter, &r[1]));
  CHECK_OK(MPI_Ibarrier(inter, &r[2]));
  CHECK_OK(MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, inter, &r[3]));
  CHECK_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
  /* Group A's rank 0 is world rank 1. */
  for (int i = 0; i < N; ++i) {
    if (color == 1) CHECK(b[i] == val(rworld[0], i));
    int sum = 0;
    for (int j = 0; j < rsize; ++j) sum += val(rworld[j], i);
    CHECK(out[i] == sum);
  }
  for (int j = 0; j < rsize; ++j) CHECK(a2a_r[j] == val2(rworld[j], lrank, 0));
  MPI_Request p;
  CHECK_OK(MPI_Allreduce_init(in, out, N, MPI_INT, MPI_MAX, inter, MPI_INFO_NULL, &p));
  for (int round = 0; round < 5; ++round) {
    in[0] = wrank * 10 + round;
    CHECK_OK(MPI_Start(&p));
    CHECK_OK(MPI_Wait(&p, MPI_STATUS_IGNORE));
    int mx = 0;
    for (int j = 0; j < rsize; ++j) mx = rworld[j] * 10 + round > mx ? rworld[j] * 10 + round : mx;
    CHECK(out[0] == mx);
  }
  CHECK_OK(MPI_Request_free(&p));
}

void inter_colls(MPI_Comm inter, int color_, const int* lworld_, const int* rworld_) {
  color = color_;
  lworld = lworld_;
  rworld = rworld_;
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK_OK(MPI_Comm_size(inter, &lsize));
  CHECK_OK(MPI_Comm_rank(inter, &lrank));
  CHECK_OK(MPI_Comm_remote_size(inter, &rsize));
  CHECK_OK(MPI_Op_create(compose_fn, 0, &compose_op));
  CHECK_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &map_type));
  CHECK_OK(MPI_Type_commit(&map_type));
  CHECK_OK(MPI_Barrier(inter));
  bcast(inter);
  reduce(inter);
  allreduce(inter);
  gather_scatter(inter);
  allgather(inter);
  alltoall(inter);
  reduce_scatter(inter);
  nonblocking(inter);
  CHECK_OK(MPI_Barrier(inter));
  CHECK_OK(MPI_Op_free(&compose_op));
  CHECK_OK(MPI_Type_free(&map_type));
}

/* Bad arguments under MPI_ERRORS_RETURN: class checked; those that belong
 * to a leader make its whole group fail instead of hang. */
void inter_errors(MPI_Comm inter, int color_) {
  color = color_;
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
  int x = 1, y = 0, n;
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Group g;
  MPI_Request q = MPI_REQUEST_NULL;
  CHECK_CLASS(MPI_Bcast(&x, 1, MPI_INT, rsize, inter), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Bcast(&x, 1, MPI_INT, -7, inter), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, rsize + 1, inter), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, &y, 1, MPI_INT, inter), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, inter, &q), MPI_ERR_COMM);
  CHECK(q == MPI_REQUEST_NULL);
  CHECK_CLASS(MPI_Gather(&x, 1, MPI_INT, &y, -1, MPI_INT, MPI_ROOT, inter), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allreduce(&x, &y, 1, MPI_BYTE, MPI_SUM, inter), MPI_ERR_OP);
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, rsize, 0, inter, MPI_STATUS_IGNORE), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Intercomm_merge(inter, 0, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_get_parent(NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Intercomm_create(MPI_COMM_WORLD, wsize, MPI_COMM_WORLD, 0, 1, &c),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, 1, NULL), MPI_ERR_ARG);
  CHECK(c == MPI_COMM_NULL);
  /* Leaders' arguments: a remote leader outside peer_comm, then one inside
   * the leader's own group. The leader reports it; its group MPI_ERR_OTHER. */
  MPI_Comm local;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, color, color ? -wrank : wrank, &local));
  int lr;
  CHECK_OK(MPI_Comm_rank(local, &lr));
  CHECK_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wsize, 1, &c),
              lr == 0 ? MPI_ERR_RANK : MPI_ERR_OTHER);
  CHECK_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wrank, 1, &c),
              lr == 0 ? MPI_ERR_RANK : MPI_ERR_OTHER);
  CHECK_CLASS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0, -2, &c),
              lr == 0 ? MPI_ERR_TAG : MPI_ERR_OTHER);
  CHECK(c == MPI_COMM_NULL);
  CHECK_OK(MPI_Comm_free(&local));
}

/* Under MPI_ERRORS_ARE_FATAL: the message names function, class and argument. */
void inter_fatal(MPI_Comm inter, const char* what, int color_) {
  int x = 0, rs;
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  CHECK_OK(MPI_Comm_remote_size(inter, &rs));
  if (!strcmp(what, "root")) {
    MPI_Bcast(&x, 1, MPI_INT, rs + 2, inter);
  } else if (!strcmp(what, "leader")) {
    MPI_Comm local, c;
    CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, color_, 0, &local));
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, wsize + 5, 1, &c);
  } else if (!strcmp(what, "scan")) {
    MPI_Scan(&x, &rs, 1, MPI_INT, MPI_SUM, inter);
  }
}
