/* The MPI-4.0 large-count collectives beyond the blocking one-buffer ones
 * (large_count.c): nonblocking and persistent forms, Scan/Exscan,
 * Reduce_scatter(_block), the v and w forms and the neighbourhood ones.
 *   large_count_coll small   every form with small counts, results checked
 *                            (any number of ranks)
 *   large_count_coll large   MPI_Ibcast_c of INT_MAX + 100 bytes, the run
 *                            type freed while the broadcast is pending
 *                            (2 ranks; 2.1 GiB per rank)
 *   large_count_coll errors  counts and displacements beyond INT_MAX in the
 *                            v and w forms (no buffer: refused first),
 *                            negative counts, NULL arrays, user ops */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "big_buffer.h"
#include "check.h"

static int rank, size;

/* mode 0: blocking (nothing to do); 1: nonblocking; 2: persistent,
 * started twice */
static void finish(MPI_Request* r, int mode, void (*reset)(void)) {
  if (mode == 0) return;
  if (mode == 1) {
    CHECK_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
    return;
  }
  for (int k = 0; k < 2; ++k) {
    if (k == 1 && reset != NULL) reset();
    CHECK_OK(MPI_Start(r));
    CHECK_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
  }
  CHECK_OK(MPI_Request_free(r));
}

static void one_count(int mode) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Comm w = MPI_COMM_WORLD;
  /* broadcast */
  int b[4] = {rank, rank + 1, rank + 2, rank + 3};
  const int root = size - 1;
  if (mode == 0) CHECK_OK(MPI_Bcast_c(b, 4, MPI_INT, root, w));
  if (mode == 1) CHECK_OK(MPI_Ibcast_c(b, 4, MPI_INT, root, w, &r));
  if (mode == 2) CHECK_OK(MPI_Bcast_init_c(b, 4, MPI_INT, root, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(b[0] == root && b[3] == root + 3);
  /* gather, scatter, allgather, alltoall */
  int two[2] = {rank, -rank};
  int* all = malloc(sizeof(int) * 2 * (size_t)size);
  int* back = malloc(sizeof(int) * 2 * (size_t)size);
  memset(all, 0, sizeof(int) * 2 * (size_t)size);
  if (mode == 1) CHECK_OK(MPI_Igather_c(two, 2, MPI_INT, all, 2, MPI_INT, 0, w, &r));
  if (mode == 2) CHECK_OK(MPI_Gather_init_c(two, 2, MPI_INT, all, 2, MPI_INT, 0, w, MPI_INFO_NULL, &r));
  if (mode == 0) CHECK_OK(MPI_Gather_c(two, 2, MPI_INT, all, 2, MPI_INT, 0, w));
  finish(&r, mode, NULL);
  for (int i = 0; i < size && rank == 0; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
  for (int i = 0; i < 2 * size; ++i) all[i] = 100 + i;
  int got[2] = {-1, -1};
  if (mode == 0) CHECK_OK(MPI_Scatter_c(all, 2, MPI_INT, got, 2, MPI_INT, root, w));
  if (mode == 1) CHECK_OK(MPI_Iscatter_c(all, 2, MPI_INT, got, 2, MPI_INT, root, w, &r));
  if (mode == 2) CHECK_OK(MPI_Scatter_init_c(all, 2, MPI_INT, got, 2, MPI_INT, root, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(got[0] == 100 + 2 * rank && got[1] == 101 + 2 * rank);
  memset(all, 0, sizeof(int) * 2 * (size_t)size);
  if (mode == 0) CHECK_OK(MPI_Allgather_c(two, 2, MPI_INT, all, 2, MPI_INT, w));
  if (mode == 1) CHECK_OK(MPI_Iallgather_c(two, 2, MPI_INT, all, 2, MPI_INT, w, &r));
  if (mode == 2) CHECK_OK(MPI_Allgather_init_c(two, 2, MPI_INT, all, 2, MPI_INT, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  for (int i = 0; i < size; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
  for (int i = 0; i < 2 * size; ++i) all[i] = rank * 100 + i;
  if (mode == 0) CHECK_OK(MPI_Alltoall_c(all, 2, MPI_INT, back, 2, MPI_INT, w));
  if (mode == 1) CHECK_OK(MPI_Ialltoall_c(all, 2, MPI_INT, back, 2, MPI_INT, w, &r));
  if (mode == 2) CHECK_OK(MPI_Alltoall_init_c(all, 2, MPI_INT, back, 2, MPI_INT, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  for (int i = 0; i < size; ++i) CHECK(back[2 * i] == i * 100 + 2 * rank && back[2 * i + 1] == i * 100 + 2 * rank + 1);
  /* reductions */
  const long mine[2] = {rank + 1, 2 * rank};
  long out[2] = {-1, -1};
  const long tri = (long)size * (size + 1) / 2, sum2 = (long)size * (size - 1);
  if (mode == 0) CHECK_OK(MPI_Reduce_c(mine, out, 2, MPI_LONG, MPI_SUM, root, w));
  if (mode == 1) CHECK_OK(MPI_Ireduce_c(mine, out, 2, MPI_LONG, MPI_SUM, root, w, &r));
  if (mode == 2) CHECK_OK(MPI_Reduce_init_c(mine, out, 2, MPI_LONG, MPI_SUM, root, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(rank != root || (out[0] == tri && out[1] == sum2));
  if (mode == 0) CHECK_OK(MPI_Allreduce_c(mine, out, 2, MPI_LONG, MPI_SUM, w));
  if (mode == 1) CHECK_OK(MPI_Iallreduce_c(mine, out, 2, MPI_LONG, MPI_SUM, w, &r));
  if (mode == 2) CHECK_OK(MPI_Allreduce_init_c(mine, out, 2, MPI_LONG, MPI_SUM, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(out[0] == tri && out[1] == sum2);
  if (mode == 0) CHECK_OK(MPI_Scan_c(mine, out, 2, MPI_LONG, MPI_SUM, w));
  if (mode == 1) CHECK_OK(MPI_Iscan_c(mine, out, 2, MPI_LONG, MPI_SUM, w, &r));
  if (mode == 2) CHECK_OK(MPI_Scan_init_c(mine, out, 2, MPI_LONG, MPI_SUM, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(out[0] == (long)(rank + 1) * (rank + 2) / 2 && out[1] == (long)rank * (rank + 1));
  out[0] = out[1] = -7;
  if (mode == 0) CHECK_OK(MPI_Exscan_c(mine, out, 2, MPI_LONG, MPI_SUM, w));
  if (mode == 1) CHECK_OK(MPI_Iexscan_c(mine, out, 2, MPI_LONG, MPI_SUM, w, &r));
  if (mode == 2) CHECK_OK(MPI_Exscan_init_c(mine, out, 2, MPI_LONG, MPI_SUM, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(rank == 0 || (out[0] == (long)rank * (rank + 1) / 2 && out[1] == (long)rank * (rank - 1)));
  /* reduce_scatter_block: block i of rank q holds q + 10 i + j */
  long* blocks = malloc(sizeof(long) * 2 * (size_t)size);
  for (int i = 0; i < size; ++i) {
    blocks[2 * i] = rank + 10 * i;
    blocks[2 * i + 1] = rank + 10 * i + 1;
  }
  if (mode == 0) CHECK_OK(MPI_Reduce_scatter_block_c(blocks, out, 2, MPI_LONG, MPI_SUM, w));
  if (mode == 1) CHECK_OK(MPI_Ireduce_scatter_block_c(blocks, out, 2, MPI_LONG, MPI_SUM, w, &r));
  if (mode == 2) {
    CHECK_OK(MPI_Reduce_scatter_block_init_c(blocks, out, 2, MPI_LONG, MPI_SUM, w, MPI_INFO_NULL, &r));
  }
  finish(&r, mode, NULL);
  const long s = (long)size * (size - 1) / 2;
  CHECK(out[0] == s + (long)size * 10 * rank && out[1] == s + (long)size * (10 * rank + 1));
  free(blocks);
  free(all);
  free(back);
}

/* v forms: rank i's block has i + 1 ints, one int of gap after each */
static MPI_Count* vcounts;
static MPI_Aint* vdispls;
static int vtotal;

static void v_forms(int mode) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Comm w = MPI_COMM_WORLD;
  int* big = malloc(sizeof(int) * (size_t)vtotal);
  int mine[64];
  for (int k = 0; k <= rank; ++k) mine[k] = rank * 100 + k;
  /* gatherv to 0, allgatherv */
  for (int all = 0; all < 2; ++all) {
    for (int i = 0; i < vtotal; ++i) big[i] = -1;
    if (!all) {
      if (mode == 0) CHECK_OK(MPI_Gatherv_c(mine, rank + 1, MPI_INT, big, vcounts, vdispls, MPI_INT, 0, w));
      if (mode == 1) CHECK_OK(MPI_Igatherv_c(mine, rank + 1, MPI_INT, big, vcounts, vdispls, MPI_INT, 0, w, &r));
      if (mode == 2) {
        CHECK_OK(MPI_Gatherv_init_c(mine, rank + 1, MPI_INT, big, vcounts, vdispls, MPI_INT, 0, w, MPI_INFO_NULL, &r));
      }
    } else {
      if (mode == 0) CHECK_OK(MPI_Allgatherv_c(mine, rank + 1, MPI_INT, big, vcounts, vdispls, MPI_INT, w));
      if (mode == 1) CHECK_OK(MPI_Iallgatherv_c(mine, rank + 1, MPI_INT, big, vcounts, vdispls, MPI_INT, w, &r));
      if (mode == 2) {
        CHECK_OK(MPI_Allgatherv_init_c(mine, rank + 1, MPI_INT, big, vcounts, vdispls, MPI_INT, w, MPI_INFO_NULL, &r));
      }
    }
    finish(&r, mode, NULL);
    if (all || rank == 0) {
      for (int i = 0; i < size; ++i) {
        for (int k = 0; k <= i; ++k) CHECK(big[vdispls[i] + k] == i * 100 + k);
        CHECK(big[vdispls[i] + i + 1] == -1); /* the gap */
      }
    }
  }
  /* scatterv from the last rank */
  for (int i = 0; i < vtotal; ++i) big[i] = 7000 + i;
  int got[64];
  for (int k = 0; k < 64; ++k) got[k] = -1;
  const int root = size - 1;
  if (mode == 0) CHECK_OK(MPI_Scatterv_c(big, vcounts, vdispls, MPI_INT, got, rank + 1, MPI_INT, root, w));
  if (mode == 1) CHECK_OK(MPI_Iscatterv_c(big, vcounts, vdispls, MPI_INT, got, rank + 1, MPI_INT, root, w, &r));
  if (mode == 2) {
    CHECK_OK(MPI_Scatterv_init_c(big, vcounts, vdispls, MPI_INT, got, rank + 1, MPI_INT, root, w, MPI_INFO_NULL, &r));
  }
  finish(&r, mode, NULL);
  for (int k = 0; k <= rank; ++k) CHECK(got[k] == 7000 + vdispls[rank] + k);
  CHECK(got[rank + 1] == -1);
  /* alltoallv: rank q sends (q + j) % 3 + 1 ints to j, packed; receives with a gap */
  MPI_Count sc[64], rc[64];
  MPI_Aint sd[64], rd[64];
  int sbuf[256], rbuf[256];
  int so = 0, ro = 0;
  for (int j = 0; j < size; ++j) {
    sc[j] = (rank + j) % 3 + 1;
    sd[j] = so;
    for (int k = 0; k < sc[j]; ++k) sbuf[so + k] = rank * 1000 + j * 10 + k;
    so += (int)sc[j];
    rc[j] = (j + rank) % 3 + 1;
    rd[j] = ro;
    ro += (int)rc[j] + 1;
  }
  for (int i = 0; i < ro; ++i) rbuf[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Alltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, w));
  if (mode == 1) CHECK_OK(MPI_Ialltoallv_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, w, &r));
  if (mode == 2) CHECK_OK(MPI_Alltoallv_init_c(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  for (int j = 0; j < size; ++j) {
    for (int k = 0; k < rc[j]; ++k) CHECK(rbuf[rd[j] + k] == j * 1000 + rank * 10 + k);
    CHECK(rbuf[rd[j] + rc[j]] == -1);
  }
  /* alltoallw: one int per peer, byte displacements, a gap after each */
  MPI_Datatype types[64];
  for (int j = 0; j < size; ++j) {
    sc[j] = rc[j] = 1;
    sd[j] = (MPI_Aint)(j * sizeof(int));
    rd[j] = (MPI_Aint)(2 * j * sizeof(int));
    types[j] = MPI_INT;
    sbuf[j] = rank * 1000 + j;
  }
  for (int i = 0; i < 2 * size; ++i) rbuf[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Alltoallw_c(sbuf, sc, sd, types, rbuf, rc, rd, types, w));
  if (mode == 1) CHECK_OK(MPI_Ialltoallw_c(sbuf, sc, sd, types, rbuf, rc, rd, types, w, &r));
  if (mode == 2) CHECK_OK(MPI_Alltoallw_init_c(sbuf, sc, sd, types, rbuf, rc, rd, types, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  for (int j = 0; j < size; ++j) CHECK(rbuf[2 * j] == j * 1000 + rank && rbuf[2 * j + 1] == -1);
  /* reduce_scatter: rank i gets i + 1 elements; element e of every rank q is q + e */
  long lsend[2048], lrecv[64];
  int n = 0;
  for (int i = 0; i < size; ++i) n += i + 1;
  for (int e = 0; e < n; ++e) lsend[e] = rank + e;
  for (int k = 0; k < 64; ++k) lrecv[k] = -1;
  if (mode == 0) CHECK_OK(MPI_Reduce_scatter_c(lsend, lrecv, vcounts, MPI_LONG, MPI_SUM, w));
  if (mode == 1) CHECK_OK(MPI_Ireduce_scatter_c(lsend, lrecv, vcounts, MPI_LONG, MPI_SUM, w, &r));
  if (mode == 2) CHECK_OK(MPI_Reduce_scatter_init_c(lsend, lrecv, vcounts, MPI_LONG, MPI_SUM, w, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  const int first = rank * (rank + 1) / 2;
  const long s = (long)size * (size - 1) / 2;
  for (int k = 0; k <= rank; ++k) CHECK(lrecv[k] == s + (long)size * (first + k));
  CHECK(lrecv[rank + 1] == -1);
  free(big);
}

/* A periodic ring: neighbours -1 (left) then +1 (right) */
static void neighbor(MPI_Comm ring, int mode) {
  MPI_Request r = MPI_REQUEST_NULL;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int send[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2}, recv[6];
  /* allgather: two ints from each */
  for (int i = 0; i < 6; ++i) recv[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Neighbor_allgather_c(send, 2, MPI_INT, recv, 2, MPI_INT, ring));
  if (mode == 1) CHECK_OK(MPI_Ineighbor_allgather_c(send, 2, MPI_INT, recv, 2, MPI_INT, ring, &r));
  if (mode == 2) CHECK_OK(MPI_Neighbor_allgather_init_c(send, 2, MPI_INT, recv, 2, MPI_INT, ring, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(recv[0] == left * 10 && recv[1] == left * 10 + 1 && recv[2] == right * 10 && recv[3] == right * 10 + 1);
  /* alltoall: block 0 to the left, block 1 to the right */
  for (int i = 0; i < 6; ++i) recv[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Neighbor_alltoall_c(send, 1, MPI_INT, recv, 1, MPI_INT, ring));
  if (mode == 1) CHECK_OK(MPI_Ineighbor_alltoall_c(send, 1, MPI_INT, recv, 1, MPI_INT, ring, &r));
  if (mode == 2) CHECK_OK(MPI_Neighbor_alltoall_init_c(send, 1, MPI_INT, recv, 1, MPI_INT, ring, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(recv[0] == left * 10 + 1 && recv[1] == right * 10);
  /* allgatherv: two from each, the right one's after a gap */
  MPI_Count counts[2] = {2, 2};
  MPI_Aint displs[2] = {0, 3};
  for (int i = 0; i < 6; ++i) recv[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Neighbor_allgatherv_c(send, 2, MPI_INT, recv, counts, displs, MPI_INT, ring));
  if (mode == 1) CHECK_OK(MPI_Ineighbor_allgatherv_c(send, 2, MPI_INT, recv, counts, displs, MPI_INT, ring, &r));
  if (mode == 2) {
    CHECK_OK(MPI_Neighbor_allgatherv_init_c(send, 2, MPI_INT, recv, counts, displs, MPI_INT, ring, MPI_INFO_NULL, &r));
  }
  finish(&r, mode, NULL);
  CHECK(recv[0] == left * 10 && recv[1] == left * 10 + 1 && recv[2] == -1 && recv[3] == right * 10 && recv[4] == right * 10 + 1);
  /* alltoallv: one int to the left, two to the right */
  MPI_Count sc[2] = {1, 2}, rc[2] = {2, 1};
  MPI_Aint sd[2] = {0, 1}, rd[2] = {0, 3};
  for (int i = 0; i < 6; ++i) recv[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Neighbor_alltoallv_c(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, ring));
  if (mode == 1) CHECK_OK(MPI_Ineighbor_alltoallv_c(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, ring, &r));
  if (mode == 2) {
    CHECK_OK(MPI_Neighbor_alltoallv_init_c(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, ring, MPI_INFO_NULL, &r));
  }
  finish(&r, mode, NULL);
  CHECK(recv[0] == left * 10 + 1 && recv[1] == left * 10 + 2 && recv[2] == -1 && recv[3] == right * 10);
  /* alltoallw: one int each way, byte displacements */
  MPI_Count wc[2] = {1, 1};
  MPI_Aint wsd[2] = {0, sizeof(int)}, wrd[2] = {0, 2 * sizeof(int)};
  MPI_Datatype t[2] = {MPI_INT, MPI_INT};
  for (int i = 0; i < 6; ++i) recv[i] = -1;
  if (mode == 0) CHECK_OK(MPI_Neighbor_alltoallw_c(send, wc, wsd, t, recv, wc, wrd, t, ring));
  if (mode == 1) CHECK_OK(MPI_Ineighbor_alltoallw_c(send, wc, wsd, t, recv, wc, wrd, t, ring, &r));
  if (mode == 2) CHECK_OK(MPI_Neighbor_alltoallw_init_c(send, wc, wsd, t, recv, wc, wrd, t, ring, MPI_INFO_NULL, &r));
  finish(&r, mode, NULL);
  CHECK(recv[0] == left * 10 + 1 && recv[1] == -1 && recv[2] == right * 10);
}

static void small(void) {
  CHECK(size <= 64);
  vcounts = malloc(sizeof(MPI_Count) * (size_t)size);
  vdispls = malloc(sizeof(MPI_Aint) * (size_t)size);
  vtotal = 0;
  for (int i = 0; i < size; ++i) {
    vcounts[i] = i + 1;
    vdispls[i] = vtotal;
    vtotal += i + 2;
  }
  const int dims[1] = {size}, periods[1] = {1};
  MPI_Comm ring;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  for (int mode = 0; mode < 3; ++mode) {
    one_count(mode);
    v_forms(mode);
    neighbor(ring, mode);
  }
  CHECK_OK(MPI_Comm_free(&ring));
  free(vcounts);
  free(vdispls);
}

static unsigned char f(MPI_Count i) { return (unsigned char)(i * 5 + (i >> 22)); }

static void large(void) {
  const MPI_Count n = (MPI_Count)INT_MAX + 100;
  if (size != 2) {
    CHECK(size == 1);
    return;
  }
  unsigned char* buf = big_buffer((size_t)n);
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; ++i) buf[i] = f(i);
  } else {
    memset(buf, 0, (size_t)n);
  }
  MPI_Request r;
  CHECK_OK(MPI_Ibcast_c(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  MPI_Count bad = 0;
  for (MPI_Count i = 0; i < n; ++i) bad += buf[i] != f(i);
  CHECK(bad == 0);
  free(buf);
}

static void never_called(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)in, (void)inout, (void)len, (void)type;
  CHECK(!"the user op was called");
}

static void errors(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  const MPI_Count huge = 3000000000L;
  MPI_Count* counts = malloc(sizeof(MPI_Count) * (size_t)size);
  MPI_Aint* displs = malloc(sizeof(MPI_Aint) * (size_t)size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int i = 0; i < size; ++i) {
    counts[i] = 1;
    displs[i] = i;
    types[i] = MPI_INT;
  }
  int x[64] = {0};
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Comm w = MPI_COMM_WORLD;
  /* a count or displacement beyond INT_MAX in any array: every rank refuses
   * before anything moves (the last element, so the others were read) */
  counts[size - 1] = huge;
  CHECK_CLASS(MPI_Allgatherv_c(x, 1, MPI_INT, x, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Iallgatherv_c(x, 1, MPI_INT, x, counts, displs, MPI_INT, w, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoallv_c(x, counts, displs, MPI_INT, x, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoallw_init_c(x, counts, displs, types, x, counts, displs, types, w, MPI_INFO_NULL, &req),
              MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_scatter_c(x, x, counts, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Ireduce_scatter_c(x, x, counts, MPI_INT, MPI_SUM, w, &req), MPI_ERR_COUNT);
  counts[size - 1] = 1;
  displs[size - 1] = huge;
  CHECK_CLASS(MPI_Ialltoallv_c(x, counts, displs, MPI_INT, x, counts, counts, MPI_INT, w, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoallw_c(x, counts, counts, types, x, counts, displs, types, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allgatherv_init_c(x, 1, MPI_INT, x, counts, displs, MPI_INT, w, MPI_INFO_NULL, &req),
              MPI_ERR_COUNT);
  displs[size - 1] = size - 1;
  /* rooted: only the root reads the arrays (on MPI_COMM_SELF every rank is it) */
  MPI_Count one_huge[1] = {huge};
  MPI_Aint zero[1] = {0}, disp_huge[1] = {huge};
  CHECK_CLASS(MPI_Gatherv_c(x, 1, MPI_INT, x, one_huge, zero, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Igatherv_c(x, 1, MPI_INT, x, counts, disp_huge, MPI_INT, 0, MPI_COMM_SELF, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Scatterv_c(x, one_huge, zero, MPI_INT, x, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Scatterv_init_c(x, counts, disp_huge, MPI_INT, x, 1, MPI_INT, 0, MPI_COMM_SELF, MPI_INFO_NULL, &req),
              MPI_ERR_COUNT);
  /* neighbourhood arrays: the ring's two neighbours */
  const int dims[1] = {size}, periods[1] = {1};
  MPI_Comm ring;
  CHECK_OK(MPI_Cart_create(w, 1, dims, periods, 0, &ring));
  CHECK_OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
  MPI_Count two[2] = {1, huge}, ones[2] = {1, 1};
  MPI_Aint d2[2] = {0, 1}, d2_huge[2] = {0, huge};
  MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
  CHECK_CLASS(MPI_Neighbor_allgatherv_c(x, 1, MPI_INT, x, two, d2, MPI_INT, ring), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Ineighbor_alltoallv_c(x, ones, d2_huge, MPI_INT, x, ones, d2, MPI_INT, ring, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Neighbor_alltoallw_init_c(x, ones, d2, t2, x, two, d2, t2, ring, MPI_INFO_NULL, &req),
              MPI_ERR_COUNT);
  /* a graph-less communicator has no neighbourhood: the int form's class */
  CHECK_CLASS(MPI_Neighbor_alltoallv_c(x, ones, d2, MPI_INT, x, ones, d2, MPI_INT, w), MPI_ERR_TOPOLOGY);
  CHECK_OK(MPI_Comm_free(&ring));
  /* negative counts, NULL arrays */
  CHECK_CLASS(MPI_Ibcast_c(x, -1, MPI_INT, 0, w, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allgather_init_c(x, -1, MPI_INT, x, 1, MPI_INT, w, MPI_INFO_NULL, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Iscan_c(x, x + 1, -2, MPI_INT, MPI_SUM, w, &req), MPI_ERR_COUNT);
  counts[0] = -1;
  CHECK_CLASS(MPI_Alltoallv_c(x, counts, displs, MPI_INT, x, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
  counts[0] = 1;
  CHECK_CLASS(MPI_Allgatherv_c(x, 1, MPI_INT, x, NULL, displs, MPI_INT, w), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Reduce_scatter_init_c(x, x, NULL, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &req), MPI_ERR_ARG);
  /* one request must carry a reduction beyond INT_MAX whole: predefined ops only */
  MPI_Op user;
  CHECK_OK(MPI_Op_create(never_called, 1, &user));
  CHECK_CLASS(MPI_Iallreduce_c(x, x + 1, huge, MPI_INT, user, w, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_init_c(x, x + 1, huge, MPI_INT, user, 0, w, MPI_INFO_NULL, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_scatter_block_c(x, x + 1, huge, MPI_INT, user, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Iexscan_c(x, x + 1, huge, MPI_INT, MPI_OP_NULL, w, &req), MPI_ERR_OP);
  CHECK_OK(MPI_Op_free(&user));
  CHECK(req == MPI_REQUEST_NULL);
  free(counts);
  free(displs);
  free(types);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "small";
  if (strcmp(what, "small") == 0) {
    small();
  } else if (strcmp(what, "large") == 0) {
    large();
  } else if (strcmp(what, "errors") == 0) {
    errors();
  } else {
    CHECK(!"unknown mode");
  }
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
