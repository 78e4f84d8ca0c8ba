/* The MPI-4.0 large-count forms of one-sided communication, datatype
 * constructors and decoding, packing, MPI_Op_create_c, MPI_Isendrecv_c and
 * the attached buffer.
 *   large_count_rma small   every form with small values, results checked
 *                           against the int forms (any number of ranks)
 *   large_count_rma large   MPI_Put_c and MPI_Get_c of INT_MAX + 100 bytes
 *                           into / out of a window (2 ranks; 2.1 GiB each)
 *   large_count_rma errors  values beyond INT_MAX where they must fit,
 *                           negative counts, NULL arrays, decoding a _c
 *                           type with the int forms (the constructors' values
 *                           beyond INT_MAX: large_count_types) */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "big_buffer.h"
#include "check.h"

static int rank, size;

static void rma(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* MPI_Win_create_c: rank r's window of 8 longs, disp_unit 8 */
  long mem[8];
  for (int i = 0; i < 8; ++i) mem[i] = -1;
  MPI_Win win;
  CHECK_OK(MPI_Win_create_c(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  long v[2] = {rank * 10, rank * 10 + 1}, g[2] = {0, 0};
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_OK(MPI_Put_c(v, 2, MPI_LONG, right, 0, 2, MPI_LONG, win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK(mem[0] == left * 10 && mem[1] == left * 10 + 1 && mem[2] == -1);
  CHECK_OK(MPI_Get_c(g, 2, MPI_LONG, right, 0, 2, MPI_LONG, win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK(g[0] == rank * 10 && g[1] == rank * 10 + 1);
  /* accumulate: every rank adds rank + 1 to element 2 of rank 0 */
  long one = rank + 1, old = -5;
  if (rank == 0) mem[2] = 0;
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_OK(MPI_Accumulate_c(&one, 1, MPI_LONG, 0, 2, 1, MPI_LONG, MPI_SUM, win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK(rank != 0 || mem[2] == (long)size * (size + 1) / 2);
  /* get_accumulate: replace element 3 at the right with my rank, fetch the old value */
  CHECK_OK(MPI_Get_accumulate_c(&v[0], 1, MPI_LONG, &old, 1, MPI_LONG, right, 3, 1, MPI_LONG,
                                MPI_REPLACE, win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK(old == -1 && mem[3] == left * 10);
  /* request-based forms, passive target */
  MPI_Request r[4];
  long pv = rank + 100, gv = 0, av = 1, rv = 0, fv = 0;
  CHECK_OK(MPI_Win_lock_all(0, win));
  CHECK_OK(MPI_Rput_c(&pv, 1, MPI_LONG, right, 4, 1, MPI_LONG, win, &r[0]));
  CHECK_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Win_flush(right, win));
  CHECK_OK(MPI_Rget_c(&gv, 1, MPI_LONG, right, 4, 1, MPI_LONG, win, &r[1]));
  CHECK_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
  CHECK(gv == rank + 100);
  CHECK_OK(MPI_Raccumulate_c(&av, 1, MPI_LONG, right, 5, 1, MPI_LONG, MPI_SUM, win, &r[2]));
  CHECK_OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Win_flush(right, win));
  CHECK_OK(MPI_Rget_accumulate_c(&rv, 1, MPI_LONG, &fv, 1, MPI_LONG, right, 5, 1, MPI_LONG,
                                 MPI_NO_OP, win, &r[3]));
  CHECK_OK(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
  CHECK(fv == 0); /* -1 + 1 */
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Win_free(&win));
  /* MPI_Win_allocate_c and the shared flavour's query */
  long* base = NULL;
  CHECK_OK(MPI_Win_allocate_c(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  CHECK(base != NULL);
  CHECK_OK(MPI_Win_free(&win));
  MPI_Comm node;
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nrank = 0;
  CHECK_OK(MPI_Comm_rank(node, &nrank));
  CHECK_OK(MPI_Win_allocate_shared_c(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win));
  MPI_Aint sz = -1, du = -1;
  int* peer = NULL;
  CHECK_OK(MPI_Win_shared_query_c(win, 0, &sz, &du, &peer));
  CHECK(sz == 2 * sizeof(int) && du == sizeof(int) && peer != NULL);
  CHECK_OK(MPI_Win_free(&win));
  CHECK_OK(MPI_Comm_free(&node));
}

/* the envelope MPI_Type_get_envelope_c gives, and its contents */
static void expect_envelope(MPI_Datatype t, int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc,
                            MPI_Count nd, const int* ints, const MPI_Count* counts) {
  MPI_Count gi = -1, ga = -1, gc = -1, gd = -1;
  int comb = -1;
  CHECK_OK(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &comb));
  CHECK(comb == combiner && gi == ni && ga == na && gc == nc && gd == nd);
  if (combiner == MPI_COMBINER_NAMED) return;
  int i[32];
  MPI_Aint a[32];
  MPI_Count c[32];
  MPI_Datatype d[8];
  CHECK_OK(MPI_Type_get_contents_c(t, 32, 32, 32, 8, i, a, c, d));
  for (MPI_Count k = 0; k < ni && ints != NULL; ++k) CHECK(i[k] == ints[k]);
  for (MPI_Count k = 0; k < nc && counts != NULL; ++k) CHECK(c[k] == counts[k]);
  for (MPI_Count k = 0; k < nd; ++k) {
    int dc = -1, x, y, z;
    CHECK_OK(MPI_Type_get_envelope(d[k], &x, &y, &z, &dc));
    if (dc != MPI_COMBINER_NAMED) CHECK_OK(MPI_Type_free(&d[k]));
  }
}

/* same size and extent */
static void same_layout(MPI_Datatype a, MPI_Datatype b) {
  MPI_Count sa, sb, la, lb, ea, eb;
  CHECK_OK(MPI_Type_size_c(a, &sa));
  CHECK_OK(MPI_Type_size_c(b, &sb));
  CHECK_OK(MPI_Type_get_extent_c(a, &la, &ea));
  CHECK_OK(MPI_Type_get_extent_c(b, &lb, &eb));
  CHECK(sa == sb && la == lb && ea == eb);
}

static void types(void) {
  MPI_Datatype c, i;
  /* each _c constructor: the int constructor's layout, the _c envelope */
  CHECK_OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &c));
  CHECK_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &i));
  same_layout(c, i);
  const MPI_Count vc[3] = {3, 2, 5};
  expect_envelope(c, MPI_COMBINER_VECTOR, 0, 0, 3, 1, NULL, vc);
  const int vi[3] = {3, 2, 5};
  expect_envelope(i, MPI_COMBINER_VECTOR, 3, 0, 0, 1, vi, NULL); /* int types: the _c forms too */
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  CHECK_OK(MPI_Type_create_hvector_c(2, 3, 40, MPI_DOUBLE, &c));
  CHECK_OK(MPI_Type_create_hvector(2, 3, 40, MPI_DOUBLE, &i));
  same_layout(c, i);
  const MPI_Count hc[3] = {2, 3, 40};
  expect_envelope(c, MPI_COMBINER_HVECTOR, 0, 0, 3, 1, NULL, hc);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  const MPI_Count lens[3] = {1, 2, 3}, disps[3] = {0, 4, 10};
  const int ilens[3] = {1, 2, 3}, idisps[3] = {0, 4, 10};
  const MPI_Aint adisps[3] = {0, 4, 10};
  CHECK_OK(MPI_Type_indexed_c(3, lens, disps, MPI_SHORT, &c));
  CHECK_OK(MPI_Type_indexed(3, ilens, idisps, MPI_SHORT, &i));
  same_layout(c, i);
  const MPI_Count ic[7] = {3, 1, 2, 3, 0, 4, 10};
  expect_envelope(c, MPI_COMBINER_INDEXED, 0, 0, 7, 1, NULL, ic);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  CHECK_OK(MPI_Type_create_hindexed_c(3, lens, disps, MPI_SHORT, &c));
  CHECK_OK(MPI_Type_create_hindexed(3, ilens, adisps, MPI_SHORT, &i));
  same_layout(c, i);
  expect_envelope(c, MPI_COMBINER_HINDEXED, 0, 0, 7, 1, NULL, ic);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  CHECK_OK(MPI_Type_create_indexed_block_c(3, 2, disps, MPI_INT, &c));
  CHECK_OK(MPI_Type_create_indexed_block(3, 2, idisps, MPI_INT, &i));
  same_layout(c, i);
  const MPI_Count bc[5] = {3, 2, 0, 4, 10};
  expect_envelope(c, MPI_COMBINER_INDEXED_BLOCK, 0, 0, 5, 1, NULL, bc);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  CHECK_OK(MPI_Type_create_hindexed_block_c(3, 2, disps, MPI_INT, &c));
  CHECK_OK(MPI_Type_create_hindexed_block(3, 2, adisps, MPI_INT, &i));
  same_layout(c, i);
  expect_envelope(c, MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, 1, NULL, bc);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  const MPI_Datatype st[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
  const MPI_Count sdisp[3] = {0, 4, 16};
  const MPI_Aint sadisp[3] = {0, 4, 16};
  CHECK_OK(MPI_Type_create_struct_c(3, lens, sdisp, st, &c));
  CHECK_OK(MPI_Type_create_struct(3, ilens, sadisp, st, &i));
  same_layout(c, i);
  const MPI_Count sc[7] = {3, 1, 2, 3, 0, 4, 16};
  expect_envelope(c, MPI_COMBINER_STRUCT, 0, 0, 7, 3, NULL, sc);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  CHECK_OK(MPI_Type_create_resized_c(MPI_INT, -4, 12, &c));
  CHECK_OK(MPI_Type_create_resized(MPI_INT, -4, 12, &i));
  same_layout(c, i);
  const MPI_Count rc[2] = {-4, 12};
  expect_envelope(c, MPI_COMBINER_RESIZED, 0, 0, 2, 1, NULL, rc);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  const MPI_Count sizes[2] = {6, 5}, subs[2] = {2, 3}, starts[2] = {1, 2};
  const int isizes[2] = {6, 5}, isubs[2] = {2, 3}, istarts[2] = {1, 2};
  CHECK_OK(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &c));
  CHECK_OK(MPI_Type_create_subarray(2, isizes, isubs, istarts, MPI_ORDER_C, MPI_FLOAT, &i));
  same_layout(c, i);
  const int subi[2] = {2, MPI_ORDER_C};
  const MPI_Count subc[6] = {6, 5, 2, 3, 1, 2};
  expect_envelope(c, MPI_COMBINER_SUBARRAY, 2, 0, 6, 1, subi, subc);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  const MPI_Count gs[2] = {8, 6};
  const int igs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 1};
  CHECK_OK(MPI_Type_create_darray_c(2, 1, 2, gs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &c));
  CHECK_OK(MPI_Type_create_darray(2, 1, 2, igs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &i));
  same_layout(c, i);
  const int di[10] = {2, 1, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 1,
                      MPI_ORDER_FORTRAN};
  expect_envelope(c, MPI_COMBINER_DARRAY, 10, 0, 2, 1, di, gs);
  CHECK_OK(MPI_Type_free(&c));
  CHECK_OK(MPI_Type_free(&i));
  /* contiguous: small and beyond INT_MAX (a run type, no memory) */
  const MPI_Count many = (MPI_Count)1 << 40;
  CHECK_OK(MPI_Type_contiguous_c(many, MPI_BYTE, &c));
  MPI_Count csz = 0;
  CHECK_OK(MPI_Type_size_c(c, &csz));
  CHECK(csz == many);
  expect_envelope(c, MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, NULL, &many);
  CHECK_OK(MPI_Type_free(&c));
  const MPI_Count five = 5;
  CHECK_OK(MPI_Type_contiguous_c(5, MPI_INT, &c));
  expect_envelope(c, MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, NULL, &five);
  CHECK_OK(MPI_Type_free(&c));
  expect_envelope(MPI_INT, MPI_COMBINER_NAMED, 0, 0, 0, 0, NULL, NULL);
}

static void pack(void) {
  int in[5] = {1, 2, 3, 4, 5}, out[5] = {0};
  char buf[64];
  MPI_Count pos = 4, need = 0;
  CHECK_OK(MPI_Pack_size_c(5, MPI_INT, MPI_COMM_WORLD, &need));
  CHECK(need == 20);
  CHECK_OK(MPI_Pack_size_c((MPI_Count)1 << 40, MPI_DOUBLE, MPI_COMM_WORLD, &need));
  CHECK(need == (MPI_Count)8 << 40); /* beyond int: computed, not refused */
  CHECK_OK(MPI_Pack_c(in, 5, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
  CHECK(pos == 24);
  pos = 4;
  CHECK_OK(MPI_Unpack_c(buf, sizeof buf, &pos, out, 5, MPI_INT, MPI_COMM_WORLD));
  CHECK(pos == 24 && out[0] == 1 && out[4] == 5);
  MPI_Count ext = 0;
  CHECK_OK(MPI_Pack_external_size_c("external32", 5, MPI_INT, &ext));
  CHECK(ext == 20);
  pos = 0;
  CHECK_OK(MPI_Pack_external_c("external32", in, 5, MPI_INT, buf, sizeof buf, &pos));
  CHECK(pos == 20 && buf[3] == 1); /* big-endian */
  memset(out, 0, sizeof out);
  pos = 0;
  CHECK_OK(MPI_Unpack_external_c("external32", buf, sizeof buf, &pos, out, 5, MPI_INT));
  CHECK(pos == 20 && out[1] == 2 && out[4] == 5);
}

/* MPI_Op_create_c: the library passes an MPI_Count length */
static MPI_Count seen_len;
static void max_abs(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  CHECK(*type == MPI_LONG);
  seen_len = *len;
  const long* a = in;
  long* b = inout;
  for (MPI_Count k = 0; k < *len; ++k) {
    const long x = a[k] < 0 ? -a[k] : a[k], y = b[k] < 0 ? -b[k] : b[k];
    b[k] = x > y ? x : y;
  }
}

static void ops(void) {
  MPI_Op op;
  CHECK_OK(MPI_Op_create_c(max_abs, 1, &op));
  int commute = 0;
  CHECK_OK(MPI_Op_commutative(op, &commute));
  CHECK(commute == 1);
  long mine[3] = {-rank, rank % 2 ? -rank : rank, 7}, all[3] = {0, 0, 0};
  seen_len = -1;
  CHECK_OK(MPI_Allreduce_c(mine, all, 3, MPI_LONG, op, MPI_COMM_WORLD));
  CHECK(all[0] == size - 1 && all[1] == size - 1 && all[2] == 7);
  CHECK(size == 1 || seen_len > 0);
  long acc[3] = {1, -9, 2};
  CHECK_OK(MPI_Reduce_local_c(mine, acc, 3, MPI_LONG, op));
  CHECK(seen_len == 3 && acc[1] == 9 && acc[2] == 7);
  /* and through a nonblocking collective */
  MPI_Request r;
  CHECK_OK(MPI_Iallreduce_c(mine, all, 3, MPI_LONG, op, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(all[0] == size - 1 && all[2] == 7);
  CHECK_OK(MPI_Op_free(&op));
}

static void p2p(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[3] = {rank, rank + 1, rank + 2}, in[3] = {-1, -1, -1};
  MPI_Request r;
  MPI_Status st;
  CHECK_OK(MPI_Isendrecv_c(out, 3, MPI_INT, right, 5, in, 3, MPI_INT, left, 5, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, &st));
  MPI_Count n = 0;
  CHECK_OK(MPI_Get_count_c(&st, MPI_INT, &n));
  CHECK(n == 3 && in[0] == left && in[2] == left + 2);
  CHECK_OK(MPI_Isendrecv_replace_c(out, 3, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(out[0] == left && out[2] == left + 2);
  /* an attached buffer for a buffered send */
  MPI_Count bsize = 0;
  CHECK_OK(MPI_Pack_size_c(3, MPI_INT, MPI_COMM_WORLD, &bsize));
  bsize += MPI_BSEND_OVERHEAD;
  char* attached = malloc((size_t)bsize);
  CHECK_OK(MPI_Buffer_attach_c(attached, bsize));
  CHECK_OK(MPI_Bsend_c(out, 3, MPI_INT, rank, 7, MPI_COMM_WORLD));
  CHECK_OK(MPI_Recv_c(in, 3, MPI_INT, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  void* back = NULL;
  MPI_Count back_size = 0;
  CHECK_OK(MPI_Buffer_detach_c(&back, &back_size));
  CHECK(back == attached && back_size == bsize);
  free(attached);
}

static unsigned char f(MPI_Count i) { return (unsigned char)(i * 3 + (i >> 21)); }

static void large(void) {
  const MPI_Count n = (MPI_Count)INT_MAX + 100;
  if (size != 2) {
    CHECK(size == 1);
    return;
  }
  /* rank 1 exposes n bytes; rank 0 puts them, rank 1 checks, rank 0 gets them back */
  unsigned char* mem = big_buffer((size_t)n);
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; ++i) mem[i] = f(i);
  } else {
    memset(mem, 0, (size_t)n);
  }
  MPI_Win win;
  CHECK_OK(MPI_Win_create_c(rank == 1 ? mem : NULL, rank == 1 ? n : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_OK(MPI_Win_fence(0, win));
  if (rank == 0) CHECK_OK(MPI_Put_c(mem, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
  CHECK_OK(MPI_Win_fence(0, win));
  MPI_Count bad = 0;
  if (rank == 1) {
    for (MPI_Count i = 0; i < n; ++i) bad += mem[i] != f(i);
    CHECK(bad == 0);
  } else {
    memset(mem, 0, (size_t)n);
    CHECK_OK(MPI_Get_c(mem, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win));
  }
  CHECK_OK(MPI_Win_fence(0, win));
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; ++i) bad += mem[i] != f(i);
    CHECK(bad == 0);
  }
  CHECK_OK(MPI_Win_free(&win));
  free(mem);
}

static void errors(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  const MPI_Count huge = 3000000000L;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  /* (values beyond INT_MAX in the _c constructors: large_count_types) */
  const MPI_Count disps[2] = {0, huge};
  /* negative counts, NULL arrays: the int constructor's classes */
  CHECK_CLASS(MPI_Type_vector_c(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_create_struct_c(2, NULL, disps, NULL, &t), MPI_ERR_ARG);
  const MPI_Count ones[2] = {1, 1};
  CHECK_CLASS(MPI_Type_create_hindexed_c(2, ones, NULL, MPI_INT, &t), MPI_ERR_ARG);
  CHECK(t == MPI_DATATYPE_NULL);
  /* the int decoders refuse a type made by a _c constructor */
  CHECK_OK(MPI_Type_vector_c(2, 1, 3, MPI_INT, &t));
  int ni, na, nd, comb, ints[4];
  MPI_Aint addrs[4];
  MPI_Datatype dts[2];
  CHECK_CLASS(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_contents(t, 4, 4, 2, ints, addrs, dts), MPI_ERR_TYPE);
  MPI_Count counts[4];
  CHECK_CLASS(MPI_Type_get_contents_c(t, 4, 4, 2, 1, ints, addrs, counts, dts), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_get_contents_c(t, 0, 0, 3, 1, NULL, NULL, NULL, dts), MPI_ERR_ARG);
  MPI_Count c1, c2, c3, c4;
  CHECK_CLASS(MPI_Type_get_envelope_c(t, &c1, &c2, NULL, &c4, &comb), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_get_contents_c(MPI_INT, 4, 4, 4, 2, ints, addrs, counts, dts), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_envelope_c((MPI_Datatype)0x12345, &c1, &c2, &c3, &c4, &comb), MPI_ERR_TYPE);
  CHECK_OK(MPI_Type_free(&t));
  /* packing */
  char buf[16];
  int x[4] = {0};
  MPI_Count pos = 20;
  CHECK_CLASS(MPI_Pack_c(x, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  pos = 0;
  CHECK_CLASS(MPI_Pack_c(x, 5, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_CLASS(MPI_Pack_c(x, huge, MPI_INT, buf, huge * 8, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_c(x, -1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_c(x, 1, MPI_INT, buf, sizeof buf, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Unpack_c(buf, -1, &pos, x, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_size_c(-1, MPI_INT, MPI_COMM_WORLD, &c1), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_size_c((MPI_Count)1 << 62, MPI_DOUBLE, MPI_COMM_WORLD, &c1), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_size_c(1, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pack_external_size_c("native", 1, MPI_INT, &c1), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_Pack_external_c("external32", x, -3, MPI_INT, buf, sizeof buf, &pos), MPI_ERR_COUNT);
  /* the attached buffer's size must fit an int */
  CHECK_CLASS(MPI_Buffer_attach_c(buf, huge), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Buffer_attach_c(buf, -1), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Buffer_detach_c(&pos, NULL), MPI_ERR_ARG);
  /* ops */
  MPI_Op op;
  CHECK_CLASS(MPI_Op_create_c(NULL, 1, &op), MPI_ERR_ARG);
  /* windows: disp_unit beyond int (every rank refuses before the collective) */
  MPI_Win win;
  long mem[4];
  CHECK_CLASS(MPI_Win_create_c(mem, sizeof mem, huge, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
  void* base;
  CHECK_CLASS(MPI_Win_allocate_c(64, huge, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_ERR_DISP);
  CHECK_CLASS(MPI_Win_allocate_shared_c(64, -huge, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win), MPI_ERR_DISP);
  CHECK_OK(MPI_Win_create_c(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_CLASS(MPI_Put_c(mem, -1, MPI_LONG, 0, 0, 1, MPI_LONG, win), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Get_c(mem, 1, MPI_LONG, 0, 0, -1, MPI_LONG, win), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Put_c(mem, huge, (MPI_Datatype)0x12345, 0, 0, huge, MPI_BYTE, win), MPI_ERR_TYPE);
  /* a target range beyond the window: refused before anything moves */
  CHECK_CLASS(MPI_Put_c(mem, huge, MPI_BYTE, 0, 0, huge, MPI_BYTE, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Accumulate_c(mem, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_OP_NULL, win), MPI_ERR_OP);
  CHECK_CLASS(MPI_Get_accumulate_c(mem, 1, MPI_LONG, mem, -1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win),
              MPI_ERR_COUNT);
  MPI_Aint sz, du;
  CHECK_OK(MPI_Win_shared_query_c(win, rank, &sz, &du, &base)); /* its own memory (MPI 4.1) */
  CHECK(sz == sizeof mem && du == sizeof(long) && base == mem);
  CHECK_CLASS(MPI_Win_shared_query_c(win, 0, &sz, NULL, &base), MPI_ERR_ARG);
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "small";
  if (strcmp(what, "small") == 0) {
    rma();
    types();
    pack();
    ops();
    p2p();
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
