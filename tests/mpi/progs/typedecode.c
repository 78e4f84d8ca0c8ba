/* Datatype decoding and portable packing: MPI_Type_get_envelope/contents
 * for every combiner (round trip: the type rebuilt from its contents packs
 * the same bytes), MPI_Type_create_darray against hand-computed layouts,
 * MPI_Type_match_size, the MPI-1 names, and MPI_Pack_external /
 * MPI_Unpack_external / MPI_Pack_external_size against byte images written
 * by hand (typedecode_external32.c); bad arguments (error classes). At 2 ranks, external32 data also
 * travels as MPI_PACKED from rank 0 to rank 1. */
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "typedecode_common.h"

int rank, size;

/* ---- envelope / contents ------------------------------------------------ */

/* Rebuilds a type from its contents (the standard's argument order). */
static MPI_Datatype rebuild(MPI_Datatype t) {
  int ni, na, nd, combiner;
  CHECK_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
  int ints[64];
  MPI_Aint aints[32];
  MPI_Datatype types[8], out = MPI_DATATYPE_NULL;
  CHECK(ni <= 64 && na <= 32 && nd <= 8);
  CHECK_OK(MPI_Type_get_contents(t, ni, na, nd, ints, aints, types));
  switch (combiner) {
    case MPI_COMBINER_DUP:
      CHECK_OK(MPI_Type_dup(types[0], &out));
      break;
    case MPI_COMBINER_CONTIGUOUS:
      CHECK_OK(MPI_Type_contiguous(ints[0], types[0], &out));
      break;
    case MPI_COMBINER_VECTOR:
      CHECK_OK(MPI_Type_vector(ints[0], ints[1], ints[2], types[0], &out));
      break;
    case MPI_COMBINER_HVECTOR:
      CHECK_OK(MPI_Type_create_hvector(ints[0], ints[1], aints[0], types[0], &out));
      break;
    case MPI_COMBINER_INDEXED:
      CHECK_OK(MPI_Type_indexed(ints[0], ints + 1, ints + 1 + ints[0], types[0], &out));
      break;
    case MPI_COMBINER_HINDEXED:
      CHECK_OK(MPI_Type_create_hindexed(ints[0], ints + 1, aints, types[0], &out));
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      CHECK_OK(MPI_Type_create_indexed_block(ints[0], ints[1], ints + 2, types[0], &out));
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      CHECK_OK(MPI_Type_create_hindexed_block(ints[0], ints[1], aints, types[0], &out));
      break;
    case MPI_COMBINER_STRUCT:
      CHECK_OK(MPI_Type_create_struct(ints[0], ints + 1, aints, types, &out));
      break;
    case MPI_COMBINER_SUBARRAY: {
      int n = ints[0];
      CHECK_OK(MPI_Type_create_subarray(n, ints + 1, ints + 1 + n, ints + 1 + 2 * n,
                                        ints[1 + 3 * n], types[0], &out));
      break;
    }
    case MPI_COMBINER_DARRAY: {
      int n = ints[2];
      CHECK_OK(MPI_Type_create_darray(ints[0], ints[1], n, ints + 3, ints + 3 + n, ints + 3 + 2 * n,
                                      ints + 3 + 3 * n, ints[3 + 4 * n], types[0], &out));
      break;
    }
    case MPI_COMBINER_RESIZED:
      CHECK_OK(MPI_Type_create_resized(types[0], aints[0], aints[1], &out));
      break;
    default:
      CHECK(0);
  }
  /* Derived types handed out by get_contents are the caller's to free. */
  for (int i = 0; i < nd; ++i) {
    int a, b, c, comb;
    CHECK_OK(MPI_Type_get_envelope(types[i], &a, &b, &c, &comb));
    if (comb != MPI_COMBINER_NAMED) CHECK_OK(MPI_Type_free(&types[i]));
  }
  return out;
}

/* Two types pack 2 instances of the same buffer into the same bytes and
 * agree on size and bounds. */
static void same_layout(MPI_Datatype a, MPI_Datatype b) {
  int sa, sb;
  MPI_Aint la, ea, lb, eb;
  CHECK_OK(MPI_Type_size(a, &sa));
  CHECK_OK(MPI_Type_size(b, &sb));
  CHECK_OK(MPI_Type_get_extent(a, &la, &ea));
  CHECK_OK(MPI_Type_get_extent(b, &lb, &eb));
  CHECK(sa == sb && la == lb && ea == eb);
  static int src[4096];
  static char pa[8192], pb[8192];
  for (int i = 0; i < 4096; ++i) src[i] = i * 7 + 1;
  CHECK(2 * sa <= (int)sizeof pa);
  MPI_Datatype ca = a, cb = b;
  CHECK_OK(MPI_Type_commit(&ca));
  CHECK_OK(MPI_Type_commit(&cb));
  int pos_a = 0, pos_b = 0;
  char* base = (char*)(src + 1024) - la; /* room for negative bounds */
  CHECK_OK(MPI_Pack(base, 2, ca, pa, sizeof pa, &pos_a, MPI_COMM_SELF));
  CHECK_OK(MPI_Pack(base, 2, cb, pb, sizeof pb, &pos_b, MPI_COMM_SELF));
  CHECK(pos_a == pos_b && memcmp(pa, pb, pos_a) == 0);
}

/* Checks the envelope, then the round trip; frees t. */
static void round_trip(MPI_Datatype t, int combiner, int ni, int na, int nd) {
  int gi, ga, gd, gc;
  CHECK_OK(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
  CHECK(gc == combiner && gi == ni && ga == na && gd == nd);
  MPI_Datatype copy = rebuild(t);
  same_layout(t, copy);
  CHECK_OK(MPI_Type_free(&copy));
  CHECK_OK(MPI_Type_free(&t));
}

static void envelopes(void) {
  MPI_Datatype t, vec;
  int ni, na, nd, comb;
  CHECK_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0);
  int ints[4];
  CHECK_CLASS(MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, NULL, NULL), MPI_ERR_TYPE);

  CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
  CHECK_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
  /* The returned ints are exactly the constructor's arguments. */
  int vi[3];
  MPI_Datatype vt;
  CHECK_OK(MPI_Type_get_contents(vec, 3, 0, 1, vi, NULL, &vt));
  CHECK(vi[0] == 3 && vi[1] == 2 && vi[2] == 4 && vt == MPI_INT);
  CHECK_CLASS(MPI_Type_get_contents(vec, 2, 0, 1, vi, NULL, &vt), MPI_ERR_ARG);
  CHECK_OK(MPI_Type_dup(vec, &t));
  round_trip(t, MPI_COMBINER_DUP, 0, 0, 1);
  CHECK_OK(MPI_Type_create_hvector(2, 1, 40, vec, &t)); /* a derived child */
  round_trip(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
  int lens[3] = {2, 1, 3}, displs[3] = {5, 0, 9};
  MPI_Aint adispls[3] = {20, 0, 36};
  CHECK_OK(MPI_Type_indexed(3, lens, displs, MPI_SHORT, &t));
  round_trip(t, MPI_COMBINER_INDEXED, 7, 0, 1);
  CHECK_OK(MPI_Type_create_hindexed(3, lens, adispls, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_HINDEXED, 4, 3, 1);
  CHECK_OK(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
  CHECK_OK(MPI_Type_create_hindexed_block(3, 2, adispls, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
  MPI_Datatype members[3] = {MPI_DOUBLE, vec, MPI_CHAR};
  MPI_Aint sdispls[3] = {0, 8, 64};
  CHECK_OK(MPI_Type_create_struct(3, lens, sdispls, members, &t));
  round_trip(t, MPI_COMBINER_STRUCT, 4, 3, 3);
  int sizes[2] = {6, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  CHECK_OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_SUBARRAY, 8, 0, 1);
  int gs[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
  CHECK_OK(MPI_Type_create_darray(4, 3, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_DARRAY, 12, 0, 1);
  CHECK_OK(MPI_Type_create_resized(vec, -8, 100, &t));
  round_trip(t, MPI_COMBINER_RESIZED, 0, 2, 1);
  /* The MPI-1 constructors, from C, report the MPI-2 combiners. */
  CHECK_OK(MPI_Type_hvector(2, 3, 24, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
  CHECK_OK(MPI_Type_hindexed(3, lens, adispls, MPI_INT, &t));
  round_trip(t, MPI_COMBINER_HINDEXED, 4, 3, 1);
  CHECK_OK(MPI_Type_struct(3, lens, sdispls, members, &t));
  round_trip(t, MPI_COMBINER_STRUCT, 4, 3, 3);
  /* A derived child outlives the program's handle to it. */
  CHECK_OK(MPI_Type_contiguous(2, vec, &t));
  CHECK_OK(MPI_Type_free(&vec));
  round_trip(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
}

/* ---- darray --------------------------------------------------------------- */

/* Packs one darray instance over a global array whose element i holds i. */
static int darray_indices(int r, int ndims, const int* gs, const int* dist, const int* dargs,
                          const int* ps, int order, int* out) {
  MPI_Datatype t;
  CHECK_OK(MPI_Type_create_darray(4, r, ndims, gs, dist, dargs, ps, order, MPI_INT, &t));
  CHECK_OK(MPI_Type_commit(&t));
  int global[24], n;
  for (int i = 0; i < 24; ++i) global[i] = i;
  MPI_Aint lb, extent;
  CHECK_OK(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(lb == 0 && extent == 24 * (MPI_Aint)sizeof(int)); /* the whole global array */
  CHECK_OK(MPI_Type_size(t, &n));
  int pos = 0;
  CHECK_OK(MPI_Pack(global, 1, t, out, 24 * sizeof(int), &pos, MPI_COMM_SELF));
  CHECK_OK(MPI_Type_free(&t));
  return n / (int)sizeof(int);
}

static void darrays(void) {
  /* 4 x 6 array in C order, 2 x 2 processes: rows in blocks of 2, columns
   * cyclic in blocks of 2. Process (pr, pc) owns rows 2pr..2pr+1 and
   * columns {0, 1, 4, 5} (pc = 0) or {2, 3} (pc = 1). */
  int gs[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
  for (int r = 0; r < 4; ++r) {
    int got[24], pr = r / 2, pc = r % 2, k = 0;
    const int cols[2][4] = {{0, 1, 4, 5}, {2, 3}}, ncols = pc == 0 ? 4 : 2;
    CHECK(darray_indices(r, 2, gs, dist, dargs, ps, MPI_ORDER_C, got) == 2 * ncols);
    for (int row = 2 * pr; row < 2 * pr + 2; ++row) {
      for (int c = 0; c < ncols; ++c) CHECK(got[k++] == row * 6 + cols[pc][c]);
    }
  }
  /* Fortran order, 6 x 4 (column-major: element (i, j) at i + 6j), rows
   * cyclic(1) over 4 processes, columns not distributed: process r owns
   * rows r and r + 4 (when < 6) of every column. */
  int fgs[2] = {6, 4}, fdist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};
  int fdargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, fps[2] = {4, 1};
  for (int r = 0; r < 4; ++r) {
    int got[24], k = 0;
    int n = darray_indices(r, 2, fgs, fdist, fdargs, fps, MPI_ORDER_FORTRAN, got);
    CHECK(n == (r < 2 ? 8 : 4));
    for (int j = 0; j < 4; ++j) {
      for (int i = r; i < 6; i += 4) CHECK(got[k++] == i + 6 * j);
    }
  }
  MPI_Datatype t;
  int bad_ps[2] = {3, 2};
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, gs, dist, dargs, bad_ps, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_darray(4, 4, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
  int small_darg[2] = {1, 2}; /* 1 x 2 processes cannot cover 4 rows in blocks of 1 */
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, gs, dist, small_darg, ps, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
  int bad_dist[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC};
  CHECK_CLASS(MPI_Type_create_darray(4, 0, 2, gs, bad_dist, dargs, ps, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
}

/* ---- match_size and the MPI-1 names ------------------------------------- */

static int deleted;
static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  ++deleted;
  return MPI_SUCCESS;
}
static int handled;
static void count_errors(MPI_Comm* comm, int* code, ...) {
  (void)comm, (void)code;
  ++handled;
}

static void legacy(void) {
  MPI_Datatype t;
  CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t));
  CHECK(t == MPI_FLOAT);
  CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
  CHECK(t == MPI_DOUBLE);
  CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
  CHECK(t == MPI_INT);
  CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
  CHECK(t == MPI_LONG);
  CHECK_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
  CHECK(t == MPI_C_DOUBLE_COMPLEX);
  CHECK_CLASS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG);

  MPI_Datatype r;
  CHECK_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &r));
  MPI_Aint v;
  CHECK_OK(MPI_Type_extent(r, &v));
  CHECK(v == 16);
  CHECK_OK(MPI_Type_lb(r, &v));
  CHECK(v == -4);
  CHECK_OK(MPI_Type_ub(r, &v));
  CHECK(v == 12);
  CHECK_OK(MPI_Type_free(&r));
  CHECK_CLASS(MPI_Type_extent(MPI_DATATYPE_NULL, &v), MPI_ERR_TYPE);

  /* The MPI-1 bound markers: {MPI_LB at -8, int at 0, MPI_UB at 16} spans
   * [-8, 16); sent 2 at a time it takes the ints 24 bytes apart. */
  int mlens[3] = {1, 1, 1};
  MPI_Aint mdispls[3] = {-8, 0, 16};
  MPI_Datatype mtypes[3] = {MPI_LB, MPI_INT, MPI_UB}, marked;
  CHECK_OK(MPI_Type_struct(3, mlens, mdispls, mtypes, &marked));
  CHECK_OK(MPI_Type_commit(&marked));
  CHECK_OK(MPI_Type_lb(marked, &v));
  CHECK(v == -8);
  CHECK_OK(MPI_Type_ub(marked, &v));
  CHECK(v == 16);
  CHECK_OK(MPI_Type_extent(marked, &v));
  CHECK(v == 24);
  int msize;
  CHECK_OK(MPI_Type_size(marked, &msize));
  CHECK(msize == 4);
  CHECK_OK(MPI_Type_size(MPI_UB, &msize));
  CHECK(msize == 0);
  int msrc[12], mdst[12];
  for (int k = 0; k < 12; ++k) msrc[k] = k + 1, mdst[k] = 0;
  /* MPI_Sendrecv to itself: element 0 at msrc[2], element 1 at msrc[8]. */
  CHECK_OK(MPI_Sendrecv(msrc + 2, 2, marked, 0, 7, mdst + 2, 2, marked, 0, 7, MPI_COMM_SELF,
                        MPI_STATUS_IGNORE));
  CHECK(mdst[2] == 3 && mdst[8] == 9 && mdst[3] == 0 && mdst[7] == 0);
  char mname[MPI_MAX_OBJECT_NAME];
  int mlen;
  CHECK_OK(MPI_Type_get_name(MPI_UB, mname, &mlen));
  CHECK(strcmp(mname, "MPI_UB") == 0);
  CHECK_OK(MPI_Type_free(&marked));
  /* The markers are predefined (not freed) and carry nothing to reduce. */
  MPI_Datatype ub_handle = MPI_UB;
  CHECK_CLASS(MPI_Type_free(&ub_handle), MPI_ERR_TYPE);
  CHECK(ub_handle == MPI_UB);
  int one_in = 1, one_out = 0;
  CHECK_CLASS(MPI_Reduce_local(&one_in, &one_out, 1, MPI_LB, MPI_SUM), MPI_ERR_OP);
  int x;
  MPI_Aint a1, a2;
  CHECK_OK(MPI_Address(&x, &a1));
  CHECK_OK(MPI_Get_address(&x, &a2));
  CHECK(a1 == a2);

  int key, flag, value = 42, *got;
  deleted = 0;
  CHECK_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, count_delete, &key, NULL));
  CHECK_OK(MPI_Attr_put(MPI_COMM_SELF, key, &value));
  CHECK_OK(MPI_Attr_get(MPI_COMM_SELF, key, &got, &flag));
  CHECK(flag && got == &value);
  CHECK_OK(MPI_Attr_delete(MPI_COMM_SELF, key));
  CHECK(deleted == 1);
  CHECK_OK(MPI_Attr_get(MPI_COMM_SELF, key, &got, &flag));
  CHECK(!flag);
  CHECK_OK(MPI_Keyval_free(&key));
  CHECK(key == MPI_KEYVAL_INVALID);

  MPI_Errhandler eh, old;
  handled = 0;
  CHECK_OK(MPI_Errhandler_create(count_errors, &eh));
  CHECK_OK(MPI_Errhandler_get(MPI_COMM_SELF, &old));
  CHECK_OK(MPI_Errhandler_set(MPI_COMM_SELF, eh));
  MPI_Send(NULL, -1, MPI_INT, 0, 0, MPI_COMM_SELF);
  CHECK(handled == 1);
  CHECK_OK(MPI_Errhandler_set(MPI_COMM_SELF, old));
  CHECK_OK(MPI_Errhandler_free(&eh));
}

/* ---- commit cost ---------------------------------------------------------- */

/* Types of 2^28 and INT_MAX blocks commit at once (the description keeps
 * the outer repetition as a loop; this took 4 GB and 25 s before); a
 * strided type still packs and unpacks (partially too) what the loop says. */
static void commit_cost(void) {
  MPI_Datatype big, huge;
  CHECK_OK(MPI_Type_vector(1 << 28, 1, 2, MPI_INT, &big));
  CHECK_OK(MPI_Type_commit(&big));
  int bytes;
  CHECK_OK(MPI_Type_size(big, &bytes));
  CHECK(bytes == 1 << 30);
  CHECK_OK(MPI_Type_vector(2147483647, 1, 2, MPI_CHAR, &huge));
  CHECK_OK(MPI_Type_commit(&huge));
  MPI_Count huge_size;
  CHECK_OK(MPI_Type_size_x(huge, &huge_size));
  CHECK(huge_size == 2147483647);
  CHECK_OK(MPI_Type_free(&big));
  CHECK_OK(MPI_Type_free(&huge));

  MPI_Datatype v;
  CHECK_OK(MPI_Type_vector(100, 3, 5, MPI_INT, &v));
  CHECK_OK(MPI_Type_commit(&v));
  static int src[1000], packed[600], back[1000];
  for (int i = 0; i < 1000; ++i) src[i] = i, back[i] = -1;
  int pos = 0;
  CHECK_OK(MPI_Pack(src, 2, v, packed, sizeof packed, &pos, MPI_COMM_SELF));
  CHECK(pos == 600 * (int)sizeof(int));
  /* Instance 2 starts one extent (99 * 5 + 3 ints) after instance 1. */
  for (int k = 0; k < 600; ++k) {
    int inst = k / 300, row = (k % 300) / 3, col = k % 3;
    CHECK(packed[k] == inst * 498 + row * 5 + col);
  }
  /* A short message fills exactly the leading 7 elements. */
  int seven[7] = {0, 1, 2, 3, 4, 5, 6};
  CHECK_OK(
      MPI_Sendrecv(seven, 7, MPI_INT, 0, 1, back, 1, v, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  const int want[12] = {0, 1, 2, -1, -1, 3, 4, 5, -1, -1, 6, -1};
  for (int k = 0; k < 12; ++k) CHECK(back[k] == want[k]);
  CHECK(back[999] == -1);
  CHECK_OK(MPI_Type_free(&v));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  envelopes();
  darrays();
  legacy();
  external32();
  commit_cost();
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  printf("OK\n");
  MPI_Finalize();
  return 0;
}
