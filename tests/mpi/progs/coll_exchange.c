/* Gather, scatter, allgather and all-to-all (regular and v/w forms) for
 * coll.c: checked against values every rank computes (coll_common.h). */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "coll_common.h"

/* ---- gather and scatter ------------------------------------------------ */
void test_gather_scatter(MPI_Comm comm, int me, int n) {
  for (int k = 0; k < NELEMS(kBlockCounts); ++k) {
    int c = kBlockCounts[k];
    int* mine = xmalloc(sizeof(int) * c);
    int* all = xmalloc(sizeof(int) * c * n);
    for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
      for (int in_place = 0; in_place < 2; ++in_place) {
        /* Gather */
        for (int i = 0; i < c; ++i) mine[i] = ival(me, i);
        for (int i = 0; i < c * n; ++i) all[i] = -1;
        if (in_place && me == root) {
          for (int i = 0; i < c; ++i) all[me * c + i] = ival(me, i);
          CHECK_OK(MPI_Gather(MPI_IN_PLACE, c, MPI_INT, all, c, MPI_INT, root, comm));
        } else {
          CHECK_OK(MPI_Gather(mine, c, MPI_INT, all, c, MPI_INT, root, comm));
        }
        if (me == root) {
          for (int r = 0; r < n; ++r)
            for (int i = 0; i < c; ++i) CHECK(all[r * c + i] == ival(r, i));
        }
        /* Scatter */
        for (int r = 0; r < n; ++r)
          for (int i = 0; i < c; ++i) all[r * c + i] = me == root ? ival(r, i) + 5 : -1;
        for (int i = 0; i < c; ++i) mine[i] = -1;
        if (in_place && me == root) {
          CHECK_OK(MPI_Scatter(all, c, MPI_INT, MPI_IN_PLACE, c, MPI_INT, root, comm));
          for (int i = 0; i < c; ++i) CHECK(all[me * c + i] == ival(me, i) + 5);
        } else {
          CHECK_OK(MPI_Scatter(all, c, MPI_INT, mine, c, MPI_INT, root, comm));
          for (int i = 0; i < c; ++i) CHECK(mine[i] == ival(me, i) + 5);
        }
      }
    }
    free(mine);
    free(all);
  }
  /* Different types on the two sides: c ints sent, c/2 vec_t received. */
  int c = 2000;
  int* mine = xmalloc(sizeof(int) * c);
  int* all = xmalloc(sizeof(int) * 3 * (c / 2) * n);
  for (int i = 0; i < c; ++i) mine[i] = ival(me, i);
  for (int i = 0; i < 3 * (c / 2) * n; ++i) all[i] = -7;
  CHECK_OK(MPI_Gather(mine, c, MPI_INT, all, c / 2, vec_t, n - 1, comm));
  if (me == n - 1) {
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < c; ++i) CHECK(*vec_elem(all, r * c + i) == ival(r, i));
    for (int i = 1; i < 3 * (c / 2) * n; i += 3) CHECK(all[i] == -7);
  }
  for (int i = 0; i < c; ++i) mine[i] = -1;
  CHECK_OK(MPI_Scatter(all, c / 2, vec_t, mine, c, MPI_INT, n - 1, comm));
  for (int i = 0; i < c; ++i) CHECK(mine[i] == ival(me, i));
  free(mine);
  free(all);
  /* v-forms: rank r has r % 3 * 40 + 1 ints, placed in reverse rank order
   * with a gap of 2 after each. */
  int* counts = xmalloc(sizeof(int) * n);
  int* displs = xmalloc(sizeof(int) * n);
  int total = 0;
  for (int r = n - 1; r >= 0; --r) {
    counts[r] = r % 3 * 40 + 1;
    displs[r] = total;
    total += counts[r] + 2;
  }
  int* v = xmalloc(sizeof(int) * total);
  int* part = xmalloc(sizeof(int) * counts[me]);
  for (int root = 0; root < n; root += (n > 1 ? n - 1 : 1)) {
    for (int i = 0; i < counts[me]; ++i) part[i] = ival(me, i);
    for (int i = 0; i < total; ++i) v[i] = -3;
    CHECK_OK(MPI_Gatherv(part, counts[me], MPI_INT, v, counts, displs, MPI_INT, root, comm));
    if (me == root) {
      for (int r = 0; r < n; ++r) {
        for (int i = 0; i < counts[r]; ++i) CHECK(v[displs[r] + i] == ival(r, i));
        CHECK(v[displs[r] + counts[r]] == -3);
      }
      /* Again in place: the root's block is already there. */
      for (int i = 0; i < total; ++i) v[i] = -3;
      for (int i = 0; i < counts[me]; ++i) v[displs[me] + i] = ival(me, i);
      CHECK_OK(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, counts, displs, MPI_INT, root,
                           comm));
      for (int r = 0; r < n; ++r)
        for (int i = 0; i < counts[r]; ++i) CHECK(v[displs[r] + i] == ival(r, i));
    } else {
      CHECK_OK(MPI_Gatherv(part, counts[me], MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root,
                           comm));
    }
    for (int i = 0; i < counts[me]; ++i) part[i] = -1;
    CHECK_OK(MPI_Scatterv(v, counts, displs, MPI_INT, part, counts[me], MPI_INT, root, comm));
    for (int i = 0; i < counts[me]; ++i) CHECK(part[i] == ival(me, i));
  }
  free(v);
  free(part);
  free(counts);
  free(displs);
}

/* ---- allgather --------------------------------------------------------- */
void test_allgather(MPI_Comm comm, int me, int n) {
  for (int k = 0; k < NELEMS(kBlockCounts); ++k) {
    int c = kBlockCounts[k];
    int* mine = xmalloc(sizeof(int) * c);
    int* all = xmalloc(sizeof(int) * c * n);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int i = 0; i < c; ++i) mine[i] = ival(me, i);
      for (int i = 0; i < c * n; ++i) all[i] = -1;
      if (in_place) {
        for (int i = 0; i < c; ++i) all[me * c + i] = ival(me, i);
        CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, c, MPI_INT, comm));
      } else {
        CHECK_OK(MPI_Allgather(mine, c, MPI_INT, all, c, MPI_INT, comm));
      }
      for (int r = 0; r < n; ++r)
        for (int i = 0; i < c; ++i) CHECK(all[r * c + i] == ival(r, i));
    }
    free(mine);
    free(all);
  }
  /* Received as vec_t: both sides of the 64 KiB switch. */
  int cs[] = {2000, 9000};
  for (int k = 0; k < 2; ++k) {
    int c = cs[k];
    int* mine = xmalloc(sizeof(int) * c);
    int* all = xmalloc(sizeof(int) * 3 * (c / 2) * n);
    for (int i = 0; i < c; ++i) mine[i] = ival(me, i);
    for (int i = 0; i < 3 * (c / 2) * n; ++i) all[i] = -7;
    CHECK_OK(MPI_Allgather(mine, c, MPI_INT, all, c / 2, vec_t, comm));
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < c; ++i) CHECK(*vec_elem(all, r * c + i) == ival(r, i));
    for (int i = 1; i < 3 * (c / 2) * n; i += 3) CHECK(all[i] == -7);
    free(mine);
    free(all);
  }
  /* A struct type on both sides. */
  struct { int a; double d; } mine3[3], all3[3 * 8];
  for (int i = 0; i < 3; ++i) mine3[i].a = me * 10 + i, mine3[i].d = me + i * 0.25;
  CHECK_OK(MPI_Allgather(mine3, 3, mix_t, all3, 3, mix_t, comm));
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < 3; ++i) CHECK(all3[r * 3 + i].a == r * 10 + i && all3[r * 3 + i].d == r + i * 0.25);
  /* Allgatherv in reverse order with gaps, and in place. */
  int* counts = xmalloc(sizeof(int) * n);
  int* displs = xmalloc(sizeof(int) * n);
  int total = 0;
  for (int r = n - 1; r >= 0; --r) {
    counts[r] = r % 4 * 900;
    displs[r] = total;
    total += counts[r] + 1;
  }
  int* v = xmalloc(sizeof(int) * total);
  int* part = xmalloc(sizeof(int) * (counts[me] + 1));
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int i = 0; i < total; ++i) v[i] = -3;
    for (int i = 0; i < counts[me]; ++i) part[i] = ival(me, i);
    if (in_place) {
      memcpy(v + displs[me], part, sizeof(int) * counts[me]);
      CHECK_OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, v, counts, displs, MPI_INT, comm));
    } else {
      CHECK_OK(MPI_Allgatherv(part, counts[me], MPI_INT, v, counts, displs, MPI_INT, comm));
    }
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < counts[r]; ++i) CHECK(v[displs[r] + i] == ival(r, i));
      CHECK(v[displs[r] + counts[r]] == -3);
    }
  }
  free(v);
  free(part);
  free(counts);
  free(displs);
}

/* ---- all-to-all -------------------------------------------------------- */
void test_alltoall(MPI_Comm comm, int me, int n) {
  for (int k = 0; k < NELEMS(kBlockCounts); ++k) {
    int c = kBlockCounts[k];
    int* s = xmalloc(sizeof(int) * c * n);
    int* r = xmalloc(sizeof(int) * c * n);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int i = 0; i < c * n; ++i) s[i] = ival(me, i);
      if (in_place) {
        memcpy(r, s, sizeof(int) * c * n);
        CHECK_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, c, MPI_INT, comm));
      } else {
        for (int i = 0; i < c * n; ++i) r[i] = -1;
        CHECK_OK(MPI_Alltoall(s, c, MPI_INT, r, c, MPI_INT, comm));
      }
      for (int q = 0; q < n; ++q)
        for (int i = 0; i < c; ++i) CHECK(r[q * c + i] == ival(q, me * c + i));
    }
    /* Received as vec_t. */
    if (c % 2 == 0) {
      int* rv = xmalloc(sizeof(int) * 3 * (c / 2) * n);
      CHECK_OK(MPI_Alltoall(s, c, MPI_INT, rv, c / 2, vec_t, comm));
      for (int q = 0; q < n; ++q)
        for (int i = 0; i < c; ++i) CHECK(*vec_elem(rv, q * c + i) == ival(q, me * c + i));
      free(rv);
    }
    free(s);
    free(r);
  }
  /* Alltoallv of blocks from none to 160 KB (me sends (me + q) % 3 * 20000
   * ints to q), then the same as Alltoallw received into a vector of stride
   * 2 from even ranks. */
  {
    int *bc = xmalloc(sizeof(int) * n), *bd = xmalloc(sizeof(int) * n);
    int *brc = xmalloc(sizeof(int) * n), *brd = xmalloc(sizeof(int) * n);
    int btotal = 0, brtotal = 0;
    for (int q = 0; q < n; ++q) {
      bc[q] = (me + q) % 3 * 20000;
      bd[q] = btotal;
      btotal += bc[q];
      brc[q] = (q + me) % 3 * 20000;
      brd[q] = brtotal;
      brtotal += 2 * brc[q]; /* room for the stride-2 layout */
    }
    int* bs = xmalloc(sizeof(int) * btotal);
    int* br = xmalloc(sizeof(int) * brtotal);
    for (int q = 0; q < n; ++q)
      for (int i = 0; i < bc[q]; ++i) bs[bd[q] + i] = ival(me, q * 100000 + i);
    for (int i = 0; i < brtotal; ++i) br[i] = -3;
    CHECK_OK(MPI_Alltoallv(bs, bc, bd, MPI_INT, br, brc, brd, MPI_INT, comm));
    for (int q = 0; q < n; ++q)
      for (int i = 0; i < brc[q]; ++i) CHECK(br[brd[q] + i] == ival(q, me * 100000 + i));
    /* Strided receive (packed through staging): element i of q's block at 2i. */
    MPI_Datatype stride2, stride2_r;
    CHECK_OK(MPI_Type_vector(1, 1, 2, MPI_INT, &stride2));
    CHECK_OK(MPI_Type_create_resized(stride2, 0, 2 * sizeof(int), &stride2_r));
    CHECK_OK(MPI_Type_commit(&stride2_r));
    MPI_Datatype* rtypes = xmalloc(sizeof(MPI_Datatype) * n);
    int* rbytes = xmalloc(sizeof(int) * n);
    int* sbytes = xmalloc(sizeof(int) * n);
    MPI_Datatype* stypes = xmalloc(sizeof(MPI_Datatype) * n);
    for (int q = 0; q < n; ++q) {
      rtypes[q] = q % 2 == 0 ? stride2_r : MPI_INT;
      rbytes[q] = brd[q] * (int)sizeof(int);
      sbytes[q] = bd[q] * (int)sizeof(int);
      stypes[q] = MPI_INT;
    }
    for (int i = 0; i < brtotal; ++i) br[i] = -3;
    CHECK_OK(MPI_Alltoallw(bs, bc, sbytes, stypes, br, brc, rbytes, rtypes, comm));
    for (int q = 0; q < n; ++q) {
      const int step = q % 2 == 0 ? 2 : 1;
      for (int i = 0; i < brc[q]; ++i) CHECK(br[brd[q] + step * i] == ival(q, me * 100000 + i));
      if (q % 2 == 0 && brc[q] > 0) CHECK(br[brd[q] + 1] == -3);
    }
    CHECK_OK(MPI_Type_free(&stride2));
    CHECK_OK(MPI_Type_free(&stride2_r));
    free(rtypes);
    free(rbytes);
    free(sbytes);
    free(stypes);
    free(bs);
    free(br);
    free(bc);
    free(bd);
    free(brc);
    free(brd);
  }
  /* Alltoallv: me sends (me + q) % 3 * 500 + 1 ints to q, blocks apart. */
  int *sc = xmalloc(sizeof(int) * n), *sd = xmalloc(sizeof(int) * n);
  int *rc = xmalloc(sizeof(int) * n), *rd = xmalloc(sizeof(int) * n);
  int stotal = 0, rtotal = 0;
  for (int q = 0; q < n; ++q) {
    sc[q] = (me + q) % 3 * 500 + 1;
    rc[q] = (q + me) % 3 * 500 + 1;
  }
  for (int q = n - 1; q >= 0; --q) { /* reverse order, gap of one */
    sd[q] = stotal;
    stotal += sc[q] + 1;
    rd[q] = rtotal;
    rtotal += rc[q] + 1;
  }
  int* s = xmalloc(sizeof(int) * stotal);
  int* r = xmalloc(sizeof(int) * rtotal);
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < sc[q]; ++i) s[sd[q] + i] = ival(me, q * 10000 + i);
  for (int i = 0; i < rtotal; ++i) r[i] = -3;
  CHECK_OK(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm));
  for (int q = 0; q < n; ++q) {
    for (int i = 0; i < rc[q]; ++i) CHECK(r[rd[q] + i] == ival(q, me * 10000 + i));
    CHECK(r[rd[q] + rc[q]] == -3);
  }
  /* In place: what is in r for peer q goes to q (counts are symmetric). */
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < rc[q]; ++i) r[rd[q] + i] = ival(me, q * 10000 + i);
  CHECK_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT, comm));
  for (int q = 0; q < n; ++q)
    for (int i = 0; i < rc[q]; ++i) CHECK(r[rd[q] + i] == ival(q, me * 10000 + i));
  /* Alltoallw: to even peers ints, to odd peers vec_t (byte displacements). */
  int* sw = xmalloc(sizeof(int) * 3 * 8 * n);
  int* rw = xmalloc(sizeof(int) * 3 * 8 * n);
  MPI_Datatype* st = xmalloc(sizeof(MPI_Datatype) * n);
  MPI_Datatype* rt = xmalloc(sizeof(MPI_Datatype) * n);
  for (int q = 0; q < n; ++q) {
    st[q] = q % 2 ? vec_t : MPI_INT;
    sc[q] = q % 2 ? 4 : 8;
    sd[q] = q * 24 * (int)sizeof(int);
    rt[q] = me % 2 ? vec_t : MPI_INT; /* what q sends me is typed by my parity */
    rc[q] = me % 2 ? 4 : 8;
    rd[q] = q * 24 * (int)sizeof(int);
    for (int e = 0; e < 8; ++e) {
      int* at = q % 2 ? vec_elem(sw + q * 24, e) : &sw[q * 24 + e];
      *at = ival(me, q * 100 + e);
    }
  }
  for (int i = 0; i < 24 * n; ++i) rw[i] = -5;
  CHECK_OK(MPI_Alltoallw(sw, sc, sd, st, rw, rc, rd, rt, comm));
  for (int q = 0; q < n; ++q) {
    for (int e = 0; e < 8; ++e) {
      int* at = me % 2 ? vec_elem(rw + q * 24, e) : &rw[q * 24 + e];
      CHECK(*at == ival(q, me * 100 + e));
    }
  }
  free(sw);
  free(rw);
  free(st);
  free(rt);
  free(s);
  free(r);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
}
