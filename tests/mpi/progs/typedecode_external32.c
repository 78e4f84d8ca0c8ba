/* external32 (part of the typedecode program, see typedecode.c):
 * MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size against
 * byte images written by hand; at 2 ranks the data also travels as
 * MPI_PACKED from rank 0 to rank 1. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "check.h"
#include "typedecode_common.h"

/* ---- external32 ------------------------------------------------------------ */

/* Packs `count` of `type` at `data`; the bytes must equal `image`; unpacks
 * them again and compares with `data` over `native` bytes. */
static void image(const void* data, int count, MPI_Datatype type, const unsigned char* image, int n,
                  int native) {
  unsigned char buf[128];
  char back[128];
  MPI_Aint size, pos = 0;
  CHECK_OK(MPI_Pack_external_size("external32", count, type, &size));
  CHECK(size == n);
  CHECK_OK(MPI_Pack_external("external32", data, count, type, buf, sizeof buf, &pos));
  CHECK(pos == n);
  for (int i = 0; i < n; ++i) CHECK(buf[i] == image[i]);
  memset(back, 0, sizeof back);
  pos = 0;
  CHECK_OK(MPI_Unpack_external("external32", buf, n, &pos, back, count, type));
  CHECK(pos == n);
  CHECK(memcmp(back, data, native) == 0);
}

/* The standard's external32 size of one element of each predefined type. */
static void sizes(void) {
  struct {
    MPI_Datatype t;
    int size;
  } table[] = {
      {MPI_PACKED, 1},
      {MPI_BYTE, 1},
      {MPI_CHAR, 1},
      {MPI_UNSIGNED_CHAR, 1},
      {MPI_SIGNED_CHAR, 1},
      {MPI_WCHAR, 2},
      {MPI_SHORT, 2},
      {MPI_UNSIGNED_SHORT, 2},
      {MPI_INT, 4},
      {MPI_UNSIGNED, 4},
      {MPI_LONG, 4},
      {MPI_UNSIGNED_LONG, 4},
      {MPI_LONG_LONG_INT, 8},
      {MPI_UNSIGNED_LONG_LONG, 8},
      {MPI_FLOAT, 4},
      {MPI_DOUBLE, 8},
      {MPI_LONG_DOUBLE, 16},
      {MPI_C_BOOL, 1},
      {MPI_INT8_T, 1},
      {MPI_INT16_T, 2},
      {MPI_INT32_T, 4},
      {MPI_INT64_T, 8},
      {MPI_UINT8_T, 1},
      {MPI_UINT16_T, 2},
      {MPI_UINT32_T, 4},
      {MPI_UINT64_T, 8},
      {MPI_AINT, 8},
      {MPI_COUNT, 8},
      {MPI_OFFSET, 8},
      {MPI_C_FLOAT_COMPLEX, 8},
      {MPI_C_DOUBLE_COMPLEX, 16},
      {MPI_C_LONG_DOUBLE_COMPLEX, 32},
      {MPI_CHARACTER, 1},
      {MPI_LOGICAL, 4},
      {MPI_INTEGER, 4},
      {MPI_REAL, 4},
      {MPI_DOUBLE_PRECISION, 8},
      {MPI_COMPLEX, 8},
      {MPI_DOUBLE_COMPLEX, 16},
      {MPI_INTEGER1, 1},
      {MPI_INTEGER2, 2},
      {MPI_INTEGER4, 4},
      {MPI_INTEGER8, 8},
      {MPI_REAL4, 4},
      {MPI_REAL8, 8},
      {MPI_REAL16, 16},
      {MPI_COMPLEX8, 8},
      {MPI_COMPLEX16, 16},
      {MPI_COMPLEX32, 32},
      {MPI_CXX_BOOL, 1},
      {MPI_CXX_FLOAT_COMPLEX, 8},
      {MPI_CXX_DOUBLE_COMPLEX, 16},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, 32},
      {MPI_FLOAT_INT, 8},
      {MPI_DOUBLE_INT, 12},
      {MPI_LONG_INT, 8},
      {MPI_2INT, 8},
      {MPI_SHORT_INT, 6},
      {MPI_LONG_DOUBLE_INT, 20},
      {MPI_2REAL, 8},
      {MPI_2DOUBLE_PRECISION, 16},
      {MPI_2INTEGER, 8},
  };
  for (unsigned i = 0; i < sizeof table / sizeof table[0]; ++i) {
    MPI_Aint s;
    CHECK_OK(MPI_Pack_external_size("external32", 3, table[i].t, &s));
    CHECK(s == 3 * table[i].size);
  }
}

void external32(void) {
  sizes();
  int i = 0x01020304;
  const unsigned char i_img[] = {1, 2, 3, 4};
  image(&i, 1, MPI_INT, i_img, 4, 4);
  short sh[2] = {-2, 0x1234};
  const unsigned char sh_img[] = {0xff, 0xfe, 0x12, 0x34};
  image(sh, 2, MPI_SHORT, sh_img, 4, 4);
  long l[2] = {-2, 0x7fffffff};
  const unsigned char l_img[] = {0xff, 0xff, 0xff, 0xfe, 0x7f, 0xff, 0xff, 0xff};
  image(l, 2, MPI_LONG, l_img, 8, 16);
  unsigned long ul = 0xdeadbeefUL;
  const unsigned char ul_img[] = {0xde, 0xad, 0xbe, 0xef};
  image(&ul, 1, MPI_UNSIGNED_LONG, ul_img, 4, 8);
  long long ll = 0x0102030405060708LL;
  const unsigned char ll_img[] = {1, 2, 3, 4, 5, 6, 7, 8};
  image(&ll, 1, MPI_LONG_LONG, ll_img, 8, 8);
  float f = 1.0f;
  const unsigned char f_img[] = {0x3f, 0x80, 0, 0};
  image(&f, 1, MPI_FLOAT, f_img, 4, 4);
  double d = -2.5;
  const unsigned char d_img[] = {0xc0, 0x04, 0, 0, 0, 0, 0, 0};
  image(&d, 1, MPI_DOUBLE, d_img, 8, 8);
  long double ld[1];
  memset(ld, 0, sizeof ld);
  ld[0] = 1.0L;
  const unsigned char ld_img[16] = {0x3f, 0xff};
  image(ld, 1, MPI_LONG_DOUBLE, ld_img, 16, 10);
  wchar_t wc = L'A';
  const unsigned char wc_img[] = {0, 0x41};
  image(&wc, 1, MPI_WCHAR, wc_img, 2, 4);
  char c[3] = {'a', 'b', 'c'};
  const unsigned char c_img[] = {'a', 'b', 'c'};
  image(c, 3, MPI_CHAR, c_img, 3, 3);
  double z[2] = {1.0, -2.0};
  const unsigned char z_img[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0};
  image(z, 1, MPI_C_DOUBLE_COMPLEX, z_img, 16, 16);
  struct {
    float v;
    int i;
  } fi = {1.5f, 7};
  const unsigned char fi_img[] = {0x3f, 0xc0, 0, 0, 0, 0, 0, 7};
  image(&fi, 1, MPI_FLOAT_INT, fi_img, 8, 8);
  uint16_t u16 = 0xabcd;
  const unsigned char u16_img[] = {0xab, 0xcd};
  image(&u16, 1, MPI_UINT16_T, u16_img, 2, 2);
  MPI_Aint ai = 0x1122334455667788;
  const unsigned char ai_img[] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
  image(&ai, 1, MPI_AINT, ai_img, 8, 8);
  /* A derived type: every other short of four, then a long. */
  struct {
    short s[4];
    long l;
  } rec = {{1, -1, 2, -1}, 3};
  MPI_Datatype two, st;
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {0, 8};
  CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_SHORT, &two));
  MPI_Datatype types[2] = {two, MPI_LONG};
  CHECK_OK(MPI_Type_create_struct(2, lens, displs, types, &st));
  CHECK_OK(MPI_Type_commit(&st));
  const unsigned char rec_img[] = {0, 1, 0, 2, 0, 0, 0, 3};
  unsigned char buf[16];
  MPI_Aint pos = 0;
  CHECK_OK(MPI_Pack_external("external32", &rec, 1, st, buf, sizeof buf, &pos));
  CHECK(pos == 8 && memcmp(buf, rec_img, 8) == 0);
  struct {
    short s[4];
    long l;
  } out = {{9, 9, 9, 9}, 9};
  pos = 0;
  CHECK_OK(MPI_Unpack_external("external32", buf, 8, &pos, &out, 1, st));
  CHECK(out.s[0] == 1 && out.s[1] == 9 && out.s[2] == 2 && out.s[3] == 9 && out.l == 3);

  /* Bad input. */
  long big = 1L << 40;
  pos = 0;
  CHECK_CLASS(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, sizeof buf, &pos),
              MPI_ERR_CONVERSION);
  CHECK_CLASS(MPI_Pack_external("native", &i, 1, MPI_INT, buf, sizeof buf, &pos),
              MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_Pack_external(NULL, &i, 1, MPI_INT, buf, sizeof buf, &pos), MPI_ERR_ARG);
  pos = 14;
  CHECK_CLASS(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 16, &pos), MPI_ERR_TRUNCATE);
  pos = 0;
  CHECK_CLASS(MPI_Unpack_external("external32", buf, 2, &pos, &i, 1, MPI_INT), MPI_ERR_TRUNCATE);
  CHECK_CLASS(MPI_Pack_external_size("external32", -1, MPI_INT, &pos), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_external("external32", &i, 1, MPI_DATATYPE_NULL, buf, 16, &pos),
              MPI_ERR_TYPE);

  /* Across ranks: rank 0 packs, rank 1 unpacks. */
  if (size >= 2 && rank < 2) {
    double vals[3] = {0.5, -1.0, 1e300};
    unsigned char wire[24];
    if (rank == 0) {
      pos = 0;
      CHECK_OK(MPI_Pack_external("external32", vals, 3, MPI_DOUBLE, wire, 24, &pos));
      CHECK_OK(MPI_Send(wire, 24, MPI_PACKED, 1, 5, MPI_COMM_WORLD));
    } else {
      double got[3] = {0};
      CHECK_OK(MPI_Recv(wire, 24, MPI_PACKED, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(wire[0] == 0x3f && wire[1] == 0xe0); /* 0.5, big-endian */
      pos = 0;
      CHECK_OK(MPI_Unpack_external("external32", wire, 24, &pos, got, 3, MPI_DOUBLE));
      CHECK(got[0] == 0.5 && got[1] == -1.0 && got[2] == 1e300);
    }
  }
  CHECK_OK(MPI_Type_free(&two));
  CHECK_OK(MPI_Type_free(&st));
}

