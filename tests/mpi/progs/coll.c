/* Collectives checked against serial references computed locally: every
 * blocking collective, in place or not, predefined / vector / struct / pair
 * types, counts from 0 through both sides of each algorithm switch to 1 MiB,
 * non-commutative user ops, a split communicator. Results use integer
 * values, so every algorithm (LAPIS_COLL_*) must give exactly them; a
 * floating-point allreduce must be bit-identical on every rank. Gather,
 * scatter, allgather and all-to-all are in coll_exchange.c. */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll_common.h"

int rank, size;
MPI_Datatype vec_t;  /* 2 ints at 0 and 2 of 3: gaps between */
MPI_Datatype mix_t;  /* struct { int a; double d; } */
static MPI_Datatype fn_t;   /* a linear map x -> a x + b: 2 unsigned */
static MPI_Datatype gapfn_t; /* the same with a gap: unsigned a, (gap), b */
static MPI_Op compose_op;   /* non-commutative: composition of maps */

/* Counts across the switch points (mpi/README.md): allreduce and the node
 * segment's Allreduce at 16 KiB, the segment's slot at 64 KiB, bcast at
 * 512 KiB, and 1 MiB of ints. */
static const int kBigCounts[] = {0, 1, 7, 4095, 4097, 16383, 16385, 262144};

/* ---- the non-commutative op: maps composed in rank order -------------- */
typedef struct { unsigned a, b; } Map;

static Map compose(Map p, Map q) { /* p after q: x -> p(q(x)) */
  Map m = {p.a * q.a, p.a * q.b + p.b};
  return m;
}

static void compose_fn(void* in, void* inout, int* len, MPI_Datatype* type) {
  unsigned* x = in;
  unsigned* y = inout;
  int stride = *type == gapfn_t ? 3 : 2; /* gapfn_t: a at 0, b at 2 */
  for (int i = 0; i < *len; ++i) {
    Map p = {x[i * stride], x[i * stride + stride - 1]};
    Map q = {y[i * stride], y[i * stride + stride - 1]};
    Map m = compose(p, q);
    y[i * stride] = m.a;
    y[i * stride + stride - 1] = m.b;
  }
}

static Map map_of(int r, int i) {
  Map m = {2u * r + 3u + (unsigned)i, (unsigned)r + 7u * i};
  return m;
}

/* x_lo op ... op x_hi in rank order. */
static Map fold_maps(int lo, int hi, int i) {
  Map m = map_of(hi, i);
  for (int r = hi - 1; r >= lo; --r) m = compose(map_of(r, i), m);
  return m;
}

static void setup_types(void) {
  CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec_t));
  CHECK_OK(MPI_Type_commit(&vec_t));
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_OK(MPI_Type_create_struct(2, lens, displs, types, &mix_t));
  CHECK_OK(MPI_Type_commit(&mix_t));
  CHECK_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &fn_t));
  CHECK_OK(MPI_Type_commit(&fn_t));
  CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_UNSIGNED, &gapfn_t));
  CHECK_OK(MPI_Type_commit(&gapfn_t));
  CHECK_OK(MPI_Op_create(compose_fn, 0, &compose_op));
  int commute = -1;
  CHECK_OK(MPI_Op_commutative(compose_op, &commute));
  CHECK(commute == 0);
  CHECK_OK(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1);
}

/* ---- broadcast --------------------------------------------------------- */
static void test_bcast(MPI_Comm comm, int me, int n) {
  for (int k = 0; k < NELEMS(kBigCounts); ++k) {
    int count = kBigCounts[k];
    int* buf = xmalloc(sizeof(int) * count);
    for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
      for (int i = 0; i < count; ++i) buf[i] = me == root ? ival(root, i) : -1;
      CHECK_OK(MPI_Bcast(buf, count, MPI_INT, root, comm));
      for (int i = 0; i < count; ++i) CHECK(buf[i] == ival(root, i));
    }
    free(buf);
  }
  /* A vector type: the gaps of non-roots stay as they were. */
  int count = 9000, root = n - 1;
  int* v = xmalloc(sizeof(int) * 3 * count);
  for (int i = 0; i < 3 * count; ++i) v[i] = -7;
  for (int e = 0; e < 2 * count; ++e) *vec_elem(v, e) = me == root ? ival(root, e) : -1;
  CHECK_OK(MPI_Bcast(v, count, vec_t, root, comm));
  for (int e = 0; e < 2 * count; ++e) CHECK(*vec_elem(v, e) == ival(root, e));
  for (int i = 1; i < 3 * count; i += 3) CHECK(v[i] == -7);
  free(v);
  struct { int a; double d; } s[3];
  for (int i = 0; i < 3; ++i) {
    s[i].a = me == 0 ? i : -1;
    s[i].d = me == 0 ? i + 0.5 : -1;
  }
  CHECK_OK(MPI_Bcast(s, 3, mix_t, 0, comm));
  for (int i = 0; i < 3; ++i) CHECK(s[i].a == i && s[i].d == i + 0.5);
}

/* Hundreds of small and large collectives back to back with one rank
 * lagging now and then: on the node segment the others run ahead (64 small
 * or 8 large collectives) and must never overwrite data the laggard has
 * not read yet. Every value names its round, so a stale or early read
 * shows. Bcasts from rank 0 with the last rank lagging (a Bcast root waits
 * for no one), then Reduces to rank 0 with rank 0 lagging (senders wait
 * for no one). */
static void lag(int me, int laggard, int i) {
  if (me == laggard && i % 40 == 0) { /* computes a while, calling no MPI */
    volatile double x = 0;
    for (int k = 0; k < 300000; ++k) x += k * 0.5;
  }
}

static void test_run_ahead(MPI_Comm comm, int me, int n) {
  enum { kRounds = 400, kLarge = 300 }; /* kLarge ints: beyond a flag line's inline data */
  int big[kLarge];
  for (int i = 0; i < kRounds; ++i) {
    lag(me, n - 1, i);
    int v = me == 0 ? ival(i, 0) : -1;
    CHECK_OK(MPI_Bcast(&v, 1, MPI_INT, 0, comm));
    CHECK(v == ival(i, 0));
    if (i % 2 == 0) {
      for (int k = 0; k < kLarge; ++k) big[k] = me == 0 ? ival(i, k) : -1;
      CHECK_OK(MPI_Bcast(big, kLarge, MPI_INT, 0, comm));
      for (int k = 0; k < kLarge; ++k) CHECK(big[k] == ival(i, k));
    }
  }
  for (int i = 0; i < kRounds; ++i) {
    lag(me, 0, i);
    int mine = me + i, sum = -1;
    CHECK_OK(MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, 0, comm));
    if (me == 0) CHECK(sum == n * (n - 1) / 2 + n * i);
    if (i % 2 == 0) {
      for (int k = 0; k < kLarge; ++k) big[k] = (i * 131 + me * 17 + k) % 10007; /* sums fit an int */
      CHECK_OK(MPI_Reduce(me == 0 ? MPI_IN_PLACE : big, big, kLarge, MPI_INT, MPI_SUM, 0, comm));
      if (me == 0) {
        for (int k = 0; k < kLarge; ++k) {
          int want = 0;
          for (int r = 0; r < n; ++r) want += (i * 131 + r * 17 + k) % 10007;
          CHECK(big[k] == want);
        }
      }
    }
  }
}

/* ---- reduce and allreduce ---------------------------------------------- */
static int sum_over_ranks(int n, int i) {
  long long s = 0;
  for (int r = 0; r < n; ++r) s += ival(r, i);
  return (int)s;
}

/* One reduction of ints with MPI_SUM: all = allreduce, else reduce to root. */
static void sum_ints(MPI_Comm comm, int me, int n, int count, int root, int in_place, int all) {
  int* send = xmalloc(sizeof(int) * count);
  int* recv = xmalloc(sizeof(int) * count);
  for (int i = 0; i < count; ++i) {
    send[i] = ival(me, i);
    recv[i] = in_place ? ival(me, i) : -1;
  }
  int receives = all || me == root;
  const void* sb = in_place && receives ? MPI_IN_PLACE : send;
  if (all) {
    CHECK_OK(MPI_Allreduce(sb, recv, count, MPI_INT, MPI_SUM, comm));
  } else {
    CHECK_OK(MPI_Reduce(sb, recv, count, MPI_INT, MPI_SUM, root, comm));
  }
  if (receives) {
    for (int i = 0; i < count; ++i) CHECK(recv[i] == sum_over_ranks(n, i));
  }
  /* The input is read where it lies, never written. */
  for (int i = 0; i < count; ++i) CHECK(send[i] == ival(me, i));
  free(send);
  free(recv);
}

/* The non-commutative op on fn_t (contiguous) or gapfn_t (with gaps). */
static void compose_maps(MPI_Comm comm, int me, int n, int count, int root, int all, int gaps) {
  int stride = gaps ? 3 : 2;
  unsigned* send = xmalloc(sizeof(unsigned) * stride * count);
  unsigned* recv = xmalloc(sizeof(unsigned) * stride * count);
  for (int i = 0; i < count; ++i) {
    Map m = map_of(me, i);
    send[i * stride] = m.a;
    send[i * stride + stride - 1] = m.b;
    if (gaps) recv[i * stride + 1] = 0xdead;
  }
  MPI_Datatype t = gaps ? gapfn_t : fn_t;
  if (all) {
    CHECK_OK(MPI_Allreduce(send, recv, count, t, compose_op, comm));
  } else {
    CHECK_OK(MPI_Reduce(send, recv, count, t, compose_op, root, comm));
  }
  if (all || me == root) {
    for (int i = 0; i < count; ++i) {
      Map m = fold_maps(0, n - 1, i);
      CHECK(recv[i * stride] == m.a && recv[i * stride + stride - 1] == m.b);
      if (gaps) CHECK(recv[i * stride + 1] == 0xdead);
    }
  }
  free(send);
  free(recv);
}

/* MAXLOC / MINLOC on MPI_DOUBLE_INT, with ties (values repeat every 3). */
static void locate(MPI_Comm comm, int me, int n, int all, MPI_Op op) {
  enum { kCount = 100 };
  struct { double v; int i; } in[kCount], out[kCount];
  for (int i = 0; i < kCount; ++i) {
    in[i].v = (double)((i + me) % 3);
    in[i].i = me;
  }
  if (all) {
    CHECK_OK(MPI_Allreduce(in, out, kCount, MPI_DOUBLE_INT, op, comm));
  } else {
    CHECK_OK(MPI_Reduce(in, out, kCount, MPI_DOUBLE_INT, op, n - 1, comm));
  }
  if (!all && me != n - 1) return;
  for (int i = 0; i < kCount; ++i) {
    double best = (double)(i % 3);
    int at = 0;
    for (int r = 1; r < n; ++r) {
      double v = (double)((i + r) % 3);
      if (op == MPI_MAXLOC ? v > best : v < best) best = v, at = r;
    }
    CHECK(out[i].v == best && out[i].i == at);
  }
}

static void test_reduce(MPI_Comm comm, int me, int n) {
  for (int k = 0; k < NELEMS(kBigCounts); ++k) {
    for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
      for (int in_place = 0; in_place < 2; ++in_place) {
        sum_ints(comm, me, n, kBigCounts[k], root, in_place, 0);
      }
    }
  }
  for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
    compose_maps(comm, me, n, 7, root, 0, 0);
    compose_maps(comm, me, n, 5000, root, 0, 1);
    compose_maps(comm, me, n, 20000, root, 0, 0); /* 160 KB: in slot-sized chunks on a node */
  }
  locate(comm, me, n, 0, MPI_MAXLOC);
  locate(comm, me, n, 0, MPI_MINLOC);
  /* A vector of ints: the root's gaps stay. */
  int count = 5000;
  int* send = xmalloc(sizeof(int) * 3 * count);
  int* recv = xmalloc(sizeof(int) * 3 * count);
  for (int i = 0; i < 3 * count; ++i) recv[i] = -7;
  for (int e = 0; e < 2 * count; ++e) *vec_elem(send, e) = ival(me, e);
  CHECK_OK(MPI_Reduce(send, recv, count, vec_t, MPI_SUM, 0, comm));
  if (me == 0) {
    for (int e = 0; e < 2 * count; ++e) CHECK(*vec_elem(recv, e) == sum_over_ranks(n, e));
    for (int i = 1; i < 3 * count; i += 3) CHECK(recv[i] == -7);
  }
  free(send);
  free(recv);
}

static void int_op(MPI_Comm comm, int me, int n, MPI_Op op) {
  enum { kCount = 10 };
  int in[kCount], out[kCount];
  for (int i = 0; i < kCount; ++i) in[i] = (me * 5 + i * 3) % 7 + (i == 0 ? 0 : 1) * (me == 1);
  CHECK_OK(MPI_Allreduce(in, out, kCount, MPI_INT, op, comm));
  for (int i = 0; i < kCount; ++i) {
    int r0 = (i * 3) % 7;
    int e = r0;
    for (int r = 1; r < n; ++r) {
      int v = (r * 5 + i * 3) % 7 + (i == 0 ? 0 : 1) * (r == 1);
      if (op == MPI_MAX) e = v > e ? v : e;
      else if (op == MPI_MIN) e = v < e ? v : e;
      else if (op == MPI_PROD) e *= v;
      else if (op == MPI_LAND) e = e && v;
      else if (op == MPI_LOR) e = e || v;
      else if (op == MPI_LXOR) e = !e != !v;
      else if (op == MPI_BAND) e &= v;
      else if (op == MPI_BOR) e |= v;
      else if (op == MPI_BXOR) e ^= v;
    }
    /* One rank's result is its input: no op is applied. */
    if (n > 1 && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)) e = e != 0;
    CHECK(out[i] == e);
  }
}

static void test_allreduce(MPI_Comm comm, int me, int n) {
  for (int k = 0; k < NELEMS(kBigCounts); ++k) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      sum_ints(comm, me, n, kBigCounts[k], 0, in_place, 1);
    }
  }
  compose_maps(comm, me, n, 7, 0, 1, 0);
  compose_maps(comm, me, n, 5000, 0, 1, 1);
  compose_maps(comm, me, n, 20000, 0, 1, 0);
  compose_maps(comm, me, n, 20000, 0, 1, 1);
  locate(comm, me, n, 1, MPI_MAXLOC);
  locate(comm, me, n, 1, MPI_MINLOC);
  MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_PROD, MPI_LAND, MPI_LOR,
                  MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  for (int i = 0; i < NELEMS(ops); ++i) int_op(comm, me, n, ops[i]);
  /* Doubles that do not add exactly: the same bits on every rank, below
   * and above the recursive-doubling / Rabenseifner switch. */
  int counts[] = {100, 5000};
  for (int k = 0; k < 2; ++k) {
    int count = counts[k];
    double* in = xmalloc(sizeof(double) * count);
    double* out = xmalloc(sizeof(double) * count);
    double* first = xmalloc(sizeof(double) * count);
    for (int i = 0; i < count; ++i) in[i] = 1.0 / (me + i + 3);
    CHECK_OK(MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm));
    memcpy(first, out, sizeof(double) * count);
    CHECK_OK(MPI_Bcast(first, count * (int)sizeof(double), MPI_BYTE, 0, comm));
    CHECK(memcmp(first, out, sizeof(double) * count) == 0);
    for (int i = 0; i < count; ++i) {
      double e = 0;
      for (int r = 0; r < n; ++r) e += 1.0 / (r + i + 3);
      CHECK(out[i] > e * (1 - 1e-12) && out[i] < e * (1 + 1e-12));
    }
    free(in);
    free(out);
    free(first);
  }
  /* A vector type, large enough for Rabenseifner. */
  int count = 5000;
  int* send = xmalloc(sizeof(int) * 3 * count);
  int* recv = xmalloc(sizeof(int) * 3 * count);
  for (int i = 0; i < 3 * count; ++i) recv[i] = -7;
  for (int e = 0; e < 2 * count; ++e) *vec_elem(send, e) = ival(me, e);
  CHECK_OK(MPI_Allreduce(send, recv, count, vec_t, MPI_SUM, comm));
  for (int e = 0; e < 2 * count; ++e) CHECK(*vec_elem(recv, e) == sum_over_ranks(n, e));
  for (int i = 1; i < 3 * count; i += 3) CHECK(recv[i] == -7);
  /* MPI_Reduce_local in the user's layout. */
  CHECK_OK(MPI_Reduce_local(send, recv, count, vec_t, MPI_SUM));
  for (int e = 0; e < 2 * count; ++e)
    CHECK(*vec_elem(recv, e) == sum_over_ranks(n, e) + ival(me, e));
  free(send);
  free(recv);
  /* Fewer instances than ranks, each of 8 KiB: parts of the vector split
   * by instance are empty at some ranks. Instances of 80 KB, larger than
   * a node slot, cannot be chunked: point-to-point. */
  const int ints_per_block[] = {2048, 20000};
  for (int b = 0; b < 2; ++b) {
    const int ints = ints_per_block[b];
    MPI_Datatype block_t;
    CHECK_OK(MPI_Type_contiguous(ints, MPI_INT, &block_t));
    CHECK_OK(MPI_Type_commit(&block_t));
    for (int blocks = 1; blocks <= 3; ++blocks) {
      int* in = xmalloc(sizeof(int) * ints * blocks);
      int* out = xmalloc(sizeof(int) * ints * blocks);
      for (int e = 0; e < ints * blocks; ++e) in[e] = ival(me, e);
      CHECK_OK(MPI_Allreduce(in, out, blocks, block_t, MPI_SUM, comm));
      for (int e = 0; e < ints * blocks; ++e) CHECK(out[e] == sum_over_ranks(n, e));
      CHECK_OK(MPI_Reduce(in, out, blocks, block_t, MPI_SUM, n - 1, comm));
      if (me == n - 1)
        for (int e = 0; e < ints * blocks; ++e) CHECK(out[e] == sum_over_ranks(n, e));
      free(in);
      free(out);
    }
    CHECK_OK(MPI_Type_free(&block_t));
  }
}

/* ---- reduce_scatter and scans ------------------------------------------ */
static void test_reduce_scatter(MPI_Comm comm, int me, int n) {
  int blocks[] = {0, 1, 7, 2000};
  for (int k = 0; k < NELEMS(blocks); ++k) {
    int c = blocks[k];
    int* in = xmalloc(sizeof(int) * c * n);
    int* out = xmalloc(sizeof(int) * c * n);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int i = 0; i < c * n; ++i) in[i] = out[i] = ival(me, i);
      CHECK_OK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, c, MPI_INT, MPI_SUM,
                                        comm));
      for (int i = 0; i < c; ++i) CHECK(out[i] == sum_over_ranks(n, me * c + i));
    }
    free(in);
    free(out);
  }
  /* Variable blocks with the non-commutative op. */
  int* counts = xmalloc(sizeof(int) * n);
  int total = 0;
  for (int r = 0; r < n; ++r) total += counts[r] = r % 3 * 5 + 1;
  unsigned* in = xmalloc(sizeof(unsigned) * 2 * total);
  unsigned* out = xmalloc(sizeof(unsigned) * 2 * counts[me]);
  for (int i = 0; i < total; ++i) {
    Map m = map_of(me, i);
    in[2 * i] = m.a;
    in[2 * i + 1] = m.b;
  }
  CHECK_OK(MPI_Reduce_scatter(in, out, counts, fn_t, compose_op, comm));
  int first = 0;
  for (int r = 0; r < me; ++r) first += counts[r];
  for (int i = 0; i < counts[me]; ++i) {
    Map m = fold_maps(0, n - 1, first + i);
    CHECK(out[2 * i] == m.a && out[2 * i + 1] == m.b);
  }
  free(in);
  free(out);
  free(counts);
}

static void test_scan(MPI_Comm comm, int me, int n) {
  (void)n;
  int counts[] = {0, 1, 7, 5000};
  for (int k = 0; k < NELEMS(counts); ++k) {
    int c = counts[k];
    int* in = xmalloc(sizeof(int) * c);
    int* out = xmalloc(sizeof(int) * c);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int exclusive = 0; exclusive < 2; ++exclusive) {
        for (int i = 0; i < c; ++i) in[i] = out[i] = ival(me, i);
        const void* sb = in_place ? MPI_IN_PLACE : in;
        if (exclusive) {
          CHECK_OK(MPI_Exscan(sb, out, c, MPI_INT, MPI_SUM, comm));
        } else {
          CHECK_OK(MPI_Scan(sb, out, c, MPI_INT, MPI_SUM, comm));
        }
        for (int i = 0; i < c; ++i) {
          int e = 0;
          for (int r = 0; r < me + !exclusive; ++r) e += ival(r, i);
          if (exclusive && me == 0) e = ival(0, i); /* untouched */
          CHECK(out[i] == e);
        }
      }
    }
    free(in);
    free(out);
  }
  /* Non-commutative, with gaps. */
  for (int exclusive = 0; exclusive < 2; ++exclusive) {
    enum { kCount = 300 };
    unsigned in[3 * kCount], out[3 * kCount];
    for (int i = 0; i < kCount; ++i) {
      Map m = map_of(me, i);
      in[3 * i] = m.a;
      in[3 * i + 2] = m.b;
      out[3 * i] = out[3 * i + 2] = 77;
      out[3 * i + 1] = 0xdead;
    }
    if (exclusive) {
      CHECK_OK(MPI_Exscan(in, out, kCount, gapfn_t, compose_op, comm));
    } else {
      CHECK_OK(MPI_Scan(in, out, kCount, gapfn_t, compose_op, comm));
    }
    for (int i = 0; i < kCount; ++i) {
      CHECK(out[3 * i + 1] == 0xdead);
      if (exclusive && me == 0) {
        CHECK(out[3 * i] == 77);
        continue;
      }
      Map m = fold_maps(0, exclusive ? me - 1 : me, i);
      CHECK(out[3 * i] == m.a && out[3 * i + 2] == m.b);
    }
  }
}

/* MPI_Barrier synchronises: each rank stores its round number in its part
 * of a shared window, then after the barrier every part must show that
 * round. A barrier that let a rank through early would show an older one
 * (500 rounds, so with ranks descheduled on an oversubscribed host too).
 * The window holds the ranks of this host (all of them on one host); the
 * barrier is on the whole communicator. */
static void test_barrier(MPI_Comm comm, int me, int n) {
  enum { ROUNDS = 500 };
  MPI_Comm host;
  CHECK_OK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &host));
  int here;
  CHECK_OK(MPI_Comm_size(host, &here));
  MPI_Win win;
  volatile int* mine = NULL;
  CHECK_OK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, host, (void*)&mine, &win));
  *mine = -1;
  volatile int** part = malloc((size_t)here * sizeof *part);
  for (int r = 0; r < here; ++r) {
    MPI_Aint bytes;
    int unit;
    CHECK_OK(MPI_Win_shared_query(win, r, &bytes, &unit, (void*)&part[r]));
  }
  CHECK_OK(MPI_Barrier(comm));
  int stale = 0;
  for (int k = 0; k < ROUNDS; ++k) {
    *mine = k;
    CHECK_OK(MPI_Barrier(comm));
    for (int r = 0; r < here; ++r) stale += *part[r] < k;
  }
  CHECK(stale == 0);
  CHECK_OK(MPI_Barrier(comm));
  free((void*)part);
  (void)n;
  CHECK_OK(MPI_Win_free(&win));
  CHECK_OK(MPI_Comm_free(&host));
}

/* The voluntary context switches of this process's lapis-progress thread
 * (interrupt mode), or -1 without one. */
static long progress_thread_switches(void) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == NULL) return -1;
  long found = -1;
  for (struct dirent* t; found < 0 && (t = readdir(tasks)) != NULL;) {
    char path[300], line[128];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", t->d_name);
    FILE* f = fopen(path, "r");
    if (f == NULL) continue;
    const int named = fgets(line, sizeof line, f) != NULL && strcmp(line, "lapis-progress\n") == 0;
    fclose(f);
    if (!named) continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/status", t->d_name);
    f = fopen(path, "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
      if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0) found = atol(line + 24);
    }
    if (f != NULL) fclose(f);
  }
  closedir(tasks);
  return found;
}

/* Interrupt mode: a collective's own sends and receives leave the progress
 * thread parked. Each used to hand progress over to it on return, waking it
 * several times per 8-byte allreduce (37.7 us each at 2 ranks instead of
 * 0.56-0.80). A parked thread looks at the waiting application at most about
 * once per millisecond (lapi's back-off); the bound allows one per 400 us. */
static void test_progress_stays_parked(MPI_Comm comm) {
  /* The thread names itself once it runs (run with LAPIS_MODE=interrupt). */
  long before = progress_thread_switches();
  for (const double deadline = MPI_Wtime() + 30; before < 0 && MPI_Wtime() < deadline;) {
    before = progress_thread_switches();
  }
  CHECK(before >= 0);
  const double start = MPI_Wtime();
  enum { kAllreduces = 5000 };
  long sum = 0;
  for (int i = 0; i < kAllreduces; ++i) {
    long one = 1, total = 0;
    CHECK_OK(MPI_Allreduce(&one, &total, 1, MPI_LONG, MPI_SUM, comm));
    sum += total;
  }
  const double us = (MPI_Wtime() - start) * 1e6;
  const long looks = progress_thread_switches() - before;
  CHECK(sum == (long)kAllreduces * size);
  if (!(looks < us / 400 + 20)) {
    fprintf(stderr, "rank %d: the progress thread woke %ld times in %d allreduces (%.0f us)\n",
            rank, looks, kAllreduces, us);
  }
  CHECK(looks < us / 400 + 20);
}

/* Runs every test, or with `only` set just those of one family (the
 * forced-algorithm runs: bcast, reduce, allreduce, allgather, alltoall). */
static const char* only;

static int wanted(const char* family) { return only == NULL || strcmp(only, family) == 0; }

static void run_all(MPI_Comm comm) {
  int me, n;
  CHECK_OK(MPI_Comm_rank(comm, &me));
  CHECK_OK(MPI_Comm_size(comm, &n));
  if (wanted("barrier")) test_barrier(comm, me, n);
  if (wanted("bcast")) test_bcast(comm, me, n);
  if (wanted("bcast")) test_run_ahead(comm, me, n);
  if (wanted("reduce")) test_reduce(comm, me, n);
  if (wanted("allreduce")) test_allreduce(comm, me, n);
  if (wanted("gather")) test_gather_scatter(comm, me, n);
  if (wanted("allgather")) test_allgather(comm, me, n);
  if (wanted("alltoall")) test_alltoall(comm, me, n);
  if (wanted("reduce")) test_reduce_scatter(comm, me, n);
  if (wanted("scan")) test_scan(comm, me, n);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (argc > 1) only = argv[1];
  if (only != NULL && strcmp(only, "parked") == 0) {
    test_progress_stays_parked(MPI_COMM_WORLD);
    CHECK_OK(MPI_Finalize());
    printf("OK\n");
    return 0;
  }
  setup_types();
  run_all(MPI_COMM_WORLD);
  /* A split communicator (ranks in reverse order) and MPI_COMM_SELF. */
  MPI_Comm half;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  run_all(half);
  CHECK_OK(MPI_Comm_free(&half));
  run_all(MPI_COMM_SELF);
  CHECK_OK(MPI_Op_free(&compose_op));
  CHECK(compose_op == MPI_OP_NULL);
  CHECK_OK(MPI_Type_free(&vec_t));
  CHECK_OK(MPI_Type_free(&mix_t));
  CHECK_OK(MPI_Type_free(&fn_t));
  CHECK_OK(MPI_Type_free(&gapfn_t));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
