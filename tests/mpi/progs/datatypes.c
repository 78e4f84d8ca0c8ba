/* Derived datatypes through the MPI layer: non-contiguous sends into
 * contiguous receives and back, struct and subarray exchanges, pack/unpack
 * across ranks, MPI_BOTTOM with absolute addresses, extents and element
 * counts, truncation of a non-contiguous receive. */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size, right, left;

/* Column of a 6x5 int matrix (vector) -> 6 contiguous ints -> column again. */
static void vector_roundtrip(void) {
  enum { R = 6, C = 5 };
  int m[R][C], col[R], back[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) m[i][j] = rank * 1000 + i * 10 + j;
  MPI_Datatype column;
  CHECK_OK(MPI_Type_vector(R, 1, C, MPI_INT, &column));
  CHECK_OK(MPI_Type_commit(&column));
  int sz;
  MPI_Aint lb, ext;
  CHECK_OK(MPI_Type_size(column, &sz));
  CHECK_OK(MPI_Type_get_extent(column, &lb, &ext));
  CHECK(sz == R * (int)sizeof(int) && lb == 0 && ext == (MPI_Aint)(((R - 1) * C + 1) * sizeof(int)));

  /* Send column 2 as a vector, receive contiguous. */
  MPI_Status st;
  CHECK_OK(MPI_Sendrecv(&m[0][2], 1, column, right, 1, col, R, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
  for (int i = 0; i < R; ++i) CHECK(col[i] == left * 1000 + i * 10 + 2);
  int n;
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == R);
  CHECK_OK(MPI_Get_count(&st, column, &n));
  CHECK(n == 1);

  /* Send contiguous, receive into column 4 of a fresh matrix. */
  for (int i = 0; i < R; ++i) col[i] = rank * 7 + i;
  memset(back, 0xff, sizeof back);
  CHECK_OK(MPI_Sendrecv(col, R, MPI_INT, right, 2, &back[0][4], 1, column, left, 2, MPI_COMM_WORLD, &st));
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < C; ++j) {
      if (j == 4) CHECK(back[i][j] == left * 7 + i);
      else CHECK(back[i][j] == -1); /* untouched */
    }
  }
  /* Non-blocking and several instances: 3 columns at once via resized. */
  MPI_Datatype col_one;
  CHECK_OK(MPI_Type_create_resized(column, 0, sizeof(int), &col_one));
  CHECK_OK(MPI_Type_commit(&col_one));
  MPI_Request reqs[2];
  int three[3 * R];
  CHECK_OK(MPI_Irecv(three, 3 * R, MPI_INT, left, 3, MPI_COMM_WORLD, &reqs[0]));
  CHECK_OK(MPI_Isend(&m[0][1], 3, col_one, right, 3, MPI_COMM_WORLD, &reqs[1]));
  CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < R; ++i) CHECK(three[c * R + i] == left * 1000 + i * 10 + 1 + c);
  CHECK_OK(MPI_Type_free(&col_one));
  CHECK_OK(MPI_Type_free(&column));
  CHECK(column == MPI_DATATYPE_NULL);
}

struct particle {
  double pos[3];
  int id;
  char tag;
};

static void struct_exchange(void) {
  int lens[3] = {3, 1, 1};
  MPI_Aint displs[3] = {offsetof(struct particle, pos), offsetof(struct particle, id),
                        offsetof(struct particle, tag)};
  MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
  MPI_Datatype ptype;
  CHECK_OK(MPI_Type_create_struct(3, lens, displs, types, &ptype));
  CHECK_OK(MPI_Type_commit(&ptype));
  MPI_Aint lb, ext, tlb, text;
  CHECK_OK(MPI_Type_get_extent(ptype, &lb, &ext));
  CHECK(lb == 0 && ext == sizeof(struct particle));
  CHECK_OK(MPI_Type_get_true_extent(ptype, &tlb, &text));
  CHECK(tlb == 0 && text == offsetof(struct particle, tag) + 1);
  enum { N = 50 };
  struct particle out[N], in[N];
  for (int i = 0; i < N; ++i) {
    out[i].pos[0] = rank + i * 0.5;
    out[i].pos[1] = -i;
    out[i].pos[2] = i * i;
    out[i].id = rank * 100 + i;
    out[i].tag = (char)('a' + i % 26);
  }
  memset(in, 0, sizeof in);
  MPI_Status st;
  CHECK_OK(MPI_Sendrecv(out, N, ptype, right, 4, in, N, ptype, left, 4, MPI_COMM_WORLD, &st));
  for (int i = 0; i < N; ++i) {
    CHECK(in[i].pos[0] == left + i * 0.5 && in[i].pos[2] == i * i);
    CHECK(in[i].id == left * 100 + i && in[i].tag == 'a' + i % 26);
  }
  int n;
  CHECK_OK(MPI_Get_elements(&st, ptype, &n));
  CHECK(n == N * 5);
  MPI_Count nx;
  CHECK_OK(MPI_Get_elements_x(&st, ptype, &nx));
  CHECK(nx == N * 5);
  CHECK_OK(MPI_Type_free(&ptype));
}

/* Interior 2x3 block of a 4x5 array (subarray) exchanged with a contiguous buffer. */
static void subarray_exchange(void) {
  int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 1};
  MPI_Datatype sub;
  CHECK_OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_FLOAT, &sub));
  CHECK_OK(MPI_Type_commit(&sub));
  float a[4][5], block[6];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) a[i][j] = (float)(rank * 100 + i * 5 + j);
  CHECK_OK(MPI_Sendrecv(a, 1, sub, right, 5, block, 6, MPI_FLOAT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  int k = 0;
  for (int i = 1; i < 3; ++i)
    for (int j = 1; j < 4; ++j) CHECK(block[k++] == (float)(left * 100 + i * 5 + j));
  CHECK_OK(MPI_Type_free(&sub));
}

static void indexed_and_pack(void) {
  int lens[3] = {2, 1, 3}, displs[3] = {0, 4, 7};
  MPI_Datatype idx;
  CHECK_OK(MPI_Type_indexed(3, lens, displs, MPI_SHORT, &idx));
  CHECK_OK(MPI_Type_commit(&idx));
  short src[10];
  for (int i = 0; i < 10; ++i) src[i] = (short)(rank * 10 + i);
  /* Pack two things into one buffer, send it as MPI_PACKED, unpack. */
  char packed[256];
  int pos = 0, psize = 0;
  CHECK_OK(MPI_Pack_size(1, idx, MPI_COMM_WORLD, &psize));
  CHECK(psize == 6 * (int)sizeof(short));
  CHECK_OK(MPI_Pack(src, 1, idx, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  double d = rank + 0.25;
  CHECK_OK(MPI_Pack(&d, 1, MPI_DOUBLE, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == psize + (int)sizeof(double));
  char in[256];
  MPI_Status st;
  CHECK_OK(MPI_Sendrecv(packed, pos, MPI_PACKED, right, 6, in, sizeof in, MPI_PACKED, left, 6, MPI_COMM_WORLD, &st));
  int got;
  CHECK_OK(MPI_Get_count(&st, MPI_PACKED, &got));
  CHECK(got == pos);
  short dst[10];
  memset(dst, 0, sizeof dst);
  int upos = 0;
  double dd = 0;
  CHECK_OK(MPI_Unpack(in, got, &upos, dst, 1, idx, MPI_COMM_WORLD));
  CHECK_OK(MPI_Unpack(in, got, &upos, &dd, 1, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK(dd == left + 0.25);
  short expect[10] = {0};
  int pick[6] = {0, 1, 4, 7, 8, 9};
  for (int i = 0; i < 6; ++i) expect[pick[i]] = (short)(left * 10 + pick[i]);
  CHECK(memcmp(dst, expect, sizeof dst) == 0);

  /* indexed_block / hindexed / hvector agree with each other. */
  int bd[2] = {1, 5};
  MPI_Datatype ib, hi, hv;
  CHECK_OK(MPI_Type_create_indexed_block(2, 2, bd, MPI_INT, &ib));
  MPI_Aint hd[2] = {1 * sizeof(int), 5 * sizeof(int)};
  int hl[2] = {2, 2};
  CHECK_OK(MPI_Type_create_hindexed(2, hl, hd, MPI_INT, &hi));
  CHECK_OK(MPI_Type_create_hvector(2, 2, 4 * sizeof(int), MPI_INT, &hv));
  MPI_Datatype all[3] = {ib, hi, hv};
  for (int t = 0; t < 3; ++t) {
    CHECK_OK(MPI_Type_commit(&all[t]));
    int v[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[4] = {0};
    int p = 0;
    /* hvector has no displacement: start it one int in. */
    CHECK_OK(MPI_Pack(t == 2 ? &v[1] : v, 1, all[t], out, sizeof out, &p, MPI_COMM_WORLD));
    CHECK(p == 16 && out[0] == 1 && out[1] == 2 && out[2] == 5 && out[3] == 6);
    CHECK_OK(MPI_Type_free(&all[t]));
  }
  CHECK_OK(MPI_Type_free(&idx));
}

/* MPI_BOTTOM with a struct of absolute addresses. */
static void bottom(void) {
  int a = rank;
  double b = rank * 2.5;
  MPI_Aint addr[2];
  CHECK_OK(MPI_Get_address(&a, &addr[0]));
  CHECK_OK(MPI_Get_address(&b, &addr[1]));
  int lens[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype abs_type;
  CHECK_OK(MPI_Type_create_struct(2, lens, addr, types, &abs_type));
  CHECK_OK(MPI_Type_commit(&abs_type));
  int ra = -1;
  double rb = -1;
  MPI_Aint raddr[2];
  MPI_Get_address(&ra, &raddr[0]);
  MPI_Get_address(&rb, &raddr[1]);
  MPI_Datatype rtype;
  CHECK_OK(MPI_Type_create_struct(2, lens, raddr, types, &rtype));
  CHECK_OK(MPI_Type_commit(&rtype));
  CHECK_OK(MPI_Sendrecv(MPI_BOTTOM, 1, abs_type, right, 8, MPI_BOTTOM, 1, rtype, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(ra == left && rb == left * 2.5);
  CHECK(MPI_Aint_diff(addr[1], addr[0]) == (MPI_Aint)((char*)&b - (char*)&a));
  CHECK(MPI_Aint_add(addr[0], 4) == addr[0] + 4);
  MPI_Type_free(&abs_type);
  MPI_Type_free(&rtype);
}

/* A long message into a short non-contiguous receive: MPI_ERR_TRUNCATE and
 * nothing written beyond the receive buffer. */
static void truncation(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype every_other;
  CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other));
  CHECK_OK(MPI_Type_commit(&every_other));
  int out[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int in[8];
  for (int i = 0; i < 8; ++i) in[i] = -1;
  MPI_Request r;
  CHECK_OK(MPI_Isend(out, 8, MPI_INT, right, 9, MPI_COMM_WORLD, &r));
  MPI_Status st;
  CHECK_CLASS(MPI_Recv(in, 1, every_other, left, 9, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
  CHECK(in[0] == 1 && in[2] == 2 && in[4] == 3);
  CHECK(in[1] == -1 && in[3] == -1 && in[5] == -1 && in[6] == -1 && in[7] == -1);
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  /* Contiguous too. */
  CHECK_OK(MPI_Isend(out, 8, MPI_INT, right, 10, MPI_COMM_WORLD, &r));
  for (int i = 0; i < 8; ++i) in[i] = -1;
  MPI_Request rr;
  CHECK_OK(MPI_Irecv(in, 5, MPI_INT, left, 10, MPI_COMM_WORLD, &rr));
  CHECK_CLASS(MPI_Wait(&rr, &st), MPI_ERR_TRUNCATE);
  CHECK(in[4] == 5 && in[5] == -1);
  int got = -1;
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &got));
  CHECK(got == 5 && st.MPI_SOURCE == left && st.MPI_TAG == 10);
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  MPI_Type_free(&every_other);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void dup_and_names(void) {
  MPI_Datatype d;
  CHECK_OK(MPI_Type_dup(MPI_DOUBLE_INT, &d));
  MPI_Aint lb, ext;
  CHECK_OK(MPI_Type_get_extent(d, &lb, &ext));
  int sz;
  CHECK_OK(MPI_Type_size(d, &sz));
  CHECK(sz == (int)(sizeof(double) + sizeof(int)) && ext == 16);
  struct { double v; int i; } pair = {rank + 0.5, rank}, got;
  CHECK_OK(MPI_Sendrecv(&pair, 1, d, right, 12, &got, 1, MPI_DOUBLE_INT, left, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got.v == left + 0.5 && got.i == left);
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  CHECK_OK(MPI_Type_get_name(MPI_LONG_LONG, name, &len));
  CHECK(strcmp(name, "MPI_LONG_LONG_INT") == 0);
  /* one handle, two names: MPICH's (whose ABI mpi.h follows) is the MPI-2 one */
  CHECK(MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX);
  CHECK_OK(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &len));
  CHECK(strcmp(name, "MPI_C_COMPLEX") == 0);
  CHECK_OK(MPI_Type_set_name(d, "pair"));
  CHECK_OK(MPI_Type_get_name(d, name, &len));
  CHECK(strcmp(name, "pair") == 0 && len == 4);
  MPI_Type_free(&d);
  int s;
  MPI_Type_size(MPI_C_BOOL, &s);
  CHECK(s == 1);
  MPI_Type_size(MPI_INT64_T, &s);
  CHECK(s == 8);
  MPI_Type_size(MPI_UINT16_T, &s);
  CHECK(s == 2);
  MPI_Type_size(MPI_2INT, &s);
  CHECK(s == 8);
  MPI_Type_size(MPI_C_DOUBLE_COMPLEX, &s);
  CHECK(s == 16);
}

/* MPI_Status_set_elements_x / MPI_Get_elements_x round-trip counts up to
 * 2^63 - 1 bytes (MPICH's status keeps 63 bits: count_lo and bits 1..31 of
 * count_hi_and_cancelled), with the cancel flag left alone. */
static void big_status_counts(void) {
  static const MPI_Count counts[] = {0, 60, 0x7fffffff, 0x80000000LL, 0x3654321f71234567LL,
                                     0x4000000000000000LL, 0x7654321ff1234567LL, 0x7fffffffffffffffLL};
  for (int c = 0; c < 2; ++c) {
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
      MPI_Status st;
      MPI_Count got = -1;
      int flag = -1;
      CHECK_OK(MPI_Status_set_cancelled(&st, c));
      CHECK_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, counts[i]));
      CHECK_OK(MPI_Get_elements_x(&st, MPI_BYTE, &got));
      CHECK(got == counts[i]);
      CHECK_OK(MPI_Test_cancelled(&st, &flag));
      CHECK(flag == c);
    }
  }
  /* 2^62 + 3 elements of a 2-int type: the whole-instance part is in bytes. */
  MPI_Datatype two;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_OK(MPI_Type_commit(&two));
  MPI_Status st;
  MPI_Count got = 0;
  CHECK_OK(MPI_Status_set_elements_x(&st, two, 0x0800000000000003LL));
  CHECK_OK(MPI_Get_elements_x(&st, two, &got));
  CHECK(got == 0x0800000000000003LL);
  CHECK_OK(MPI_Type_free(&two));
}

/* t is the type MPI_Type_create_f90_* gave for (p, r): combiner `combiner`, contents (p, r) or
 * (r), no datatypes, the size of `named` and the same handle when asked again. */
static void check_f90(MPI_Datatype t, int combiner, int p, int r, MPI_Datatype named) {
  int ni = -1, na = -1, nd = -1, comb = -1, ints[2] = {-1, -1}, size = 0, named_size = 0;
  CHECK(t != MPI_DATATYPE_NULL && t != named);
  CHECK_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK(comb == combiner);
  CHECK(na == 0 && nd == 0);
  CHECK(ni == (combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2));
  CHECK_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
  if (combiner == MPI_COMBINER_F90_INTEGER) {
    CHECK(ints[0] == r);
  } else {
    CHECK(ints[0] == p && ints[1] == r);
  }
  CHECK_OK(MPI_Type_size(t, &size));
  CHECK_OK(MPI_Type_size(named, &named_size));
  CHECK(size == named_size);
}

/* MPI_Type_create_f90_real/complex/integer: a type of its own per (p, r), over the named type
 * of gfortran's SELECTED_REAL_KIND(p, r) / SELECTED_INT_KIND(r), with the standard's F90
 * combiner and contents, the same handle every time; either p or r may be MPI_UNDEFINED, not
 * both; a precision or range no kind has is MPI_ERR_ARG. The types are predefined:
 * MPI_Type_free refuses them; they move data and reduce as the named type. */
static void f90_types(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  static const struct {
    int p, r;
    MPI_Datatype real, complex;
  } reals[] = {
      {6, 37, MPI_REAL4, MPI_COMPLEX8},
      {1, MPI_UNDEFINED, MPI_REAL4, MPI_COMPLEX8},
      {MPI_UNDEFINED, 37, MPI_REAL4, MPI_COMPLEX8},
      {7, MPI_UNDEFINED, MPI_REAL8, MPI_COMPLEX16},
      {MPI_UNDEFINED, 38, MPI_REAL8, MPI_COMPLEX16},
      {15, 307, MPI_REAL8, MPI_COMPLEX16},
      {16, MPI_UNDEFINED, MPI_REAL16, MPI_COMPLEX32},
      {MPI_UNDEFINED, 308, MPI_REAL16, MPI_COMPLEX32},
      {33, 4931, MPI_REAL16, MPI_COMPLEX32},
  };
  for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
    MPI_Datatype t = MPI_DATATYPE_NULL, again = MPI_DATATYPE_NULL;
    CHECK_OK(MPI_Type_create_f90_real(reals[i].p, reals[i].r, &t));
    check_f90(t, MPI_COMBINER_F90_REAL, reals[i].p, reals[i].r, reals[i].real);
    CHECK_OK(MPI_Type_create_f90_real(reals[i].p, reals[i].r, &again));
    CHECK(again == t);
    CHECK_OK(MPI_Type_create_f90_complex(reals[i].p, reals[i].r, &t));
    check_f90(t, MPI_COMBINER_F90_COMPLEX, reals[i].p, reals[i].r, reals[i].complex);
  }
  static const struct {
    int r;
    MPI_Datatype type;
  } ints[] = {{0, MPI_INTEGER1}, {2, MPI_INTEGER1}, {3, MPI_INTEGER2}, {4, MPI_INTEGER2},
              {5, MPI_INTEGER4}, {9, MPI_INTEGER4}, {10, MPI_INTEGER8}, {18, MPI_INTEGER8}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; ++i) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK_OK(MPI_Type_create_f90_integer(ints[i].r, &t));
    check_f90(t, MPI_COMBINER_F90_INTEGER, 0, ints[i].r, ints[i].type);
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  CHECK_CLASS(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, 4932, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_complex(40, 40, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_real(6, 37, NULL), MPI_ERR_ARG);
  /* INTEGER(16) has no MPI type here (MPI_INTEGER16 is MPI_DATATYPE_NULL). */
  CHECK_CLASS(MPI_Type_create_f90_integer(19, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_integer(MPI_UNDEFINED, &t), MPI_ERR_ARG);
  CHECK(t == MPI_DATATYPE_NULL);
  CHECK_OK(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t));
  const MPI_Datatype kept = t;
  CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  CHECK(t == kept);
  /* Moved like any type, uncommitted (it is predefined): a REAL*8 pair round the ring; and
   * summed as MPI_REAL8 is. */
  double out[2] = {rank + 0.5, -rank - 0.25}, in[2] = {0, 0};
  CHECK_OK(MPI_Sendrecv(out, 2, t, right, 8, in, 2, t, left, 8, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
  CHECK(in[0] == left + 0.5 && in[1] == -left - 0.25);
  double sum[2] = {0, 0};
  CHECK_OK(MPI_Allreduce(out, sum, 2, t, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum[0] == size * (size - 1) / 2.0 + 0.5 * size);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  vector_roundtrip();
  struct_exchange();
  subarray_exchange();
  indexed_and_pack();
  bottom();
  truncation();
  dup_and_names();
  big_status_counts();
  f90_types();
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
