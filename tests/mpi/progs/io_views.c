/* MPI-IO views and pointers: interleaved vector and subarray filetypes with
 * non-contiguous memory types, collective and independent, explicit
 * offsets and the individual and shared pointers, seeks, byte offsets,
 * get_view, type extents, reads past the end of the file, data
 * representations ("external32" and one registered by the program,
 * converted both ways) and bad views.
 * Prints "OK" per rank. */
#include <stddef.h>

#include "io_common.h"

enum { B = 3, K = 5, R = 4, W = 4 };

static int conv(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset pos,
                void* extra) {
  (void)userbuf, (void)t, (void)count, (void)filebuf, (void)pos, (void)extra;
  return MPI_SUCCESS;
}
static int extent_fn(MPI_Datatype t, MPI_Aint* extent, void* extra) {
  (void)extra;
  MPI_Aint lb;
  return MPI_Type_get_extent(t, &lb, extent);
}

/* Rank r's blocks of B ints, every nranks * B ints of the file. */
static void test_vector_view(MPI_Comm comm, int rank, int nranks) {
  char name[512], rep[MPI_MAX_DATAREP_STRING];
  MPI_File fh;
  MPI_Datatype block, filetype, got_etype, got_filetype;
  MPI_Offset disp, pos, byte;
  MPI_Status st;
  int data[K * B], all[K * B * 16], count, i;
  MPI_Aint lb, extent;
  io_name(comm, "vector", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  MPI_Type_contiguous(B, MPI_INT, &block);
  MPI_Type_create_resized(block, 0, (MPI_Aint)sizeof(int) * B * nranks, &filetype);
  CHECK_CLASS(MPI_File_set_view(fh, rank * B * sizeof(int), MPI_INT, filetype, "native",
                                MPI_INFO_NULL),
              MPI_ERR_TYPE); /* not committed */
  MPI_Type_commit(&filetype);
  CHECK_OK(MPI_File_set_view(fh, rank * B * sizeof(int), MPI_INT, filetype, "native",
                             MPI_INFO_NULL));
  MPI_Type_free(&block);
  for (i = 0; i < K * B; ++i) data[i] = rank * 1000 + i;
  CHECK_OK(MPI_File_write_all(fh, data, K * B, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == K * B);
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == K * B);
  CHECK_OK(MPI_File_get_byte_offset(fh, B + 1, &byte));
  CHECK(byte == (MPI_Offset)(rank * B + B * nranks + 1) * (MPI_Offset)sizeof(int));
  /* The view, as set. */
  CHECK_OK(MPI_File_get_view(fh, &disp, &got_etype, &got_filetype, rep));
  CHECK(disp == (MPI_Offset)(rank * B * sizeof(int)));
  CHECK(got_etype == MPI_INT);
  CHECK(strcmp(rep, "native") == 0);
  MPI_Type_get_extent(got_filetype, &lb, &extent);
  CHECK(lb == 0 && extent == (MPI_Aint)sizeof(int) * B * nranks);
  MPI_Type_free(&got_filetype);
  /* Only the name and its NUL are written, as ROMIO does: programs pass
   * buffers shorter than MPI_MAX_DATAREP_STRING (MPICH's cxx/io/filemiscx
   * passes 25 bytes; padding to 128 overwrote what followed). */
  memset(rep, 0x5a, sizeof rep);
  CHECK_OK(MPI_File_get_view(fh, &disp, &got_etype, &got_filetype, rep));
  CHECK(strcmp(rep, "native") == 0 && rep[7] == 0x5a && rep[sizeof rep - 1] == 0x5a);
  MPI_Type_free(&got_filetype);
  CHECK_OK(MPI_File_get_type_extent(fh, filetype, &extent));
  CHECK(extent == (MPI_Aint)sizeof(int) * B * nranks);
  /* Back through the view, one int at a time with the individual pointer. */
  CHECK_OK(MPI_File_seek(fh, -2, MPI_SEEK_CUR));
  CHECK_OK(MPI_File_read(fh, &i, 1, MPI_INT, &st));
  CHECK(i == rank * 1000 + K * B - 2);
  CHECK_OK(MPI_File_seek(fh, 1, MPI_SEEK_SET));
  CHECK_OK(MPI_File_read(fh, &i, 1, MPI_INT, &st));
  CHECK(i == rank * 1000 + 1);
  CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == K * B);
  /* Past the end: nothing. */
  CHECK_OK(MPI_File_read(fh, &i, 1, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0);
  MPI_Barrier(comm);
  /* The whole file through the default view. */
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_at_all(fh, 0, all, K * B * nranks, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == K * B * nranks);
  for (i = 0; i < K * B * nranks; ++i) {
    int r = (i / B) % nranks, j = (i / (B * nranks)) * B + i % B;
    CHECK(all[i] == r * 1000 + j);
  }
  /* Reading past the end: fewer elements; a partial instance. */
  {
    MPI_Datatype pair;
    int elements;
    MPI_Offset size;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    CHECK_OK(MPI_File_get_size(fh, &size));
    CHECK(size == (MPI_Offset)sizeof(int) * K * B * nranks);
    CHECK_OK(MPI_File_read_at(fh, size - 3 * sizeof(int), all, 4, pair, &st));
    CHECK_OK(MPI_Get_count(&st, pair, &count));
    CHECK(count == MPI_UNDEFINED);
    CHECK_OK(MPI_Get_elements(&st, pair, &elements));
    CHECK(elements == 3);
    CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 3 * (int)sizeof(int));
    CHECK(all[2] == (nranks - 1) * 1000 + K * B - 1);
    MPI_Type_free(&pair);
  }
  MPI_Type_free(&filetype);
  CHECK_OK(MPI_File_close(&fh));
}

/* A global R x (W * nranks) int array, columns split among the ranks;
 * memory holds each rank's part inside a halo of one. */
static void test_subarray_view(MPI_Comm comm, int rank, int nranks) {
  char name[512];
  MPI_File fh;
  MPI_Datatype filetype, memtype;
  MPI_Status st;
  int local[R + 2][W + 2], back[R + 2][W + 2], i, j, count;
  const int C = W * nranks;
  int sizes[2] = {R, C}, subsizes[2] = {R, W}, starts[2] = {0, rank * W};
  int msizes[2] = {R + 2, W + 2}, mstarts[2] = {1, 1};
  io_name(comm, "subarray", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &filetype);
  MPI_Type_commit(&filetype);
  MPI_Type_create_subarray(2, msizes, subsizes, mstarts, MPI_ORDER_C, MPI_INT, &memtype);
  MPI_Type_commit(&memtype);
  for (i = 0; i < R + 2; ++i)
    for (j = 0; j < W + 2; ++j) {
      local[i][j] = (i >= 1 && i <= R && j >= 1 && j <= W) ? (i - 1) * C + rank * W + j - 1 : -7;
      back[i][j] = -9;
    }
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, filetype, "internal", MPI_INFO_NULL));
  CHECK_OK(MPI_File_write_at_all(fh, 0, local, 1, memtype, &st));
  CHECK_OK(MPI_Get_count(&st, memtype, &count));
  CHECK(count == 1);
  /* The standard's sync-barrier-sync before other ranks read what was written. */
  CHECK_OK(MPI_File_sync(fh));
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_sync(fh));
  /* Every rank reads the whole array with explicit offsets, a plain view. */
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  {
    int* whole = malloc(sizeof(int) * R * C);
    CHECK_OK(MPI_File_read_at(fh, 0, whole, R * C, MPI_INT, &st));
    for (i = 0; i < R * C; ++i) CHECK(whole[i] == i);
    free(whole);
  }
  /* Read this rank's columns back through the subarray view into the halo. */
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, filetype, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_all(fh, back, 1, memtype, &st));
  for (i = 0; i < R + 2; ++i)
    for (j = 0; j < W + 2; ++j) {
      CHECK(back[i][j] == (local[i][j] == -7 ? -9 : local[i][j]));
    }
  MPI_Type_free(&filetype);
  MPI_Type_free(&memtype);
  CHECK_OK(MPI_File_close(&fh));
}

static void test_shared_and_bad_views(MPI_Comm comm, int rank, int nranks) {
  char name[512];
  MPI_File fh;
  MPI_Status st;
  MPI_Offset pos, size;
  MPI_Datatype three;
  int i, counts[64] = {0};
  io_name(comm, "shared", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  for (i = 0; i < 4; ++i) CHECK_OK(MPI_File_write_shared(fh, &rank, 1, MPI_INT, &st));
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 4 * nranks);
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == (MPI_Offset)sizeof(int) * 4 * nranks);
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  if (rank == 0) {
    int* v = malloc(sizeof(int) * 4 * nranks);
    CHECK_OK(MPI_File_read_shared(fh, v, 4 * nranks, MPI_INT, &st));
    for (i = 0; i < 4 * nranks; ++i) {
      CHECK(v[i] >= 0 && v[i] < nranks);
      ++counts[v[i]];
    }
    for (i = 0; i < nranks; ++i) CHECK(counts[i] == 4);
    free(v);
  }
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 4 * nranks);
  CHECK_OK(MPI_File_seek_shared(fh, -1, MPI_SEEK_END));
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 4 * nranks - 1);
  if (nranks > 1) CHECK_CLASS(MPI_File_seek_shared(fh, rank, MPI_SEEK_SET), MPI_ERR_NOT_SAME);

  /* Bad views and accesses that do not fit the view. */
  MPI_Type_contiguous(3, MPI_CHAR, &three);
  MPI_Type_commit(&three);
  CHECK_CLASS(MPI_File_read(fh, &i, 1, three, &st), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP); /* external32's long has 4 bytes */
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no_such_rep", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, NULL, MPI_INFO_NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_set_view(fh, -4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                MPI_INFO_NULL),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_DATATYPE_NULL, MPI_INT, "native", MPI_INFO_NULL),
              MPI_ERR_TYPE);
  MPI_Type_free(&three);
  {
    /* Decreasing or (in a writable file) overlapping displacements: MPI_ERR_IO, as ROMIO. */
    int blens[2] = {1, 1}, down[2] = {3, 0}, overlap[2] = {0, 0};
    MPI_Datatype bad, empty;
    MPI_Type_indexed(2, blens, down, MPI_INT, &bad);
    MPI_Type_commit(&bad);
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL), MPI_ERR_IO);
    MPI_Type_free(&bad);
    MPI_Type_indexed(2, blens, overlap, MPI_INT, &bad);
    MPI_Type_commit(&bad);
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, bad, "native", MPI_INFO_NULL), MPI_ERR_IO);
    MPI_Type_free(&bad);
    /* One rank's bad view fails every rank's call (nobody waits for it). */
    CHECK_CLASS(MPI_File_set_view(fh, rank == nranks - 1 ? -8 : 0, MPI_INT, MPI_INT, "native",
                                  MPI_INFO_NULL),
                MPI_ERR_ARG);
    /* A view without data on the last rank: it moves nothing, the others their data. */
    MPI_Type_contiguous(rank == nranks - 1 ? 0 : 1, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, empty, "native", MPI_INFO_NULL));
    CHECK_OK(MPI_File_read_all(fh, &i, rank == nranks - 1 ? 0 : 1, MPI_INT, &st));
    if (rank == nranks - 1) CHECK_CLASS(MPI_File_read(fh, &i, 1, MPI_INT, &st), MPI_ERR_IO);
    MPI_Type_free(&empty);
  }
  /* Registering: names are unique, predefined ones taken. */
  CHECK_OK(MPI_Register_datarep("lapis_test_rep", conv, conv, extent_fn, NULL));
  CHECK_CLASS(MPI_Register_datarep("lapis_test_rep", conv, conv, extent_fn, NULL),
              MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep("native", conv, conv, extent_fn, NULL), MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep("lapis_no_extent", conv, conv, NULL, NULL), MPI_ERR_ARG);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lapis_test_rep", MPI_INFO_NULL));
  CHECK_OK(MPI_File_close(&fh));
}

/* A representation of its own: ints stored negated. */
static int negate(int* to, const int* from, MPI_Datatype t, int count) {
  if (t != MPI_INT) return MPI_ERR_TYPE;
  for (int k = 0; k < count; ++k) to[k] = -from[k];
  return MPI_SUCCESS;
}
static int negate_write(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset pos,
                        void* extra) {
  ++*(int*)extra;
  return negate(filebuf, (const int*)userbuf + pos, t, count);
}
static int negate_read(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset pos,
                       void* extra) {
  ++*(int*)extra;
  return negate((int*)userbuf + pos, filebuf, t, count);
}
static int failing(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset pos,
                   void* extra) {
  (void)userbuf, (void)t, (void)count, (void)filebuf, (void)pos, (void)extra;
  return MPI_ERR_OTHER;
}
static int double_extent(MPI_Datatype t, MPI_Aint* extent, void* extra) {
  (void)extra;
  int size = 0;
  MPI_Type_size(t, &size);
  *extent = 2 * (MPI_Aint)size;
  return MPI_SUCCESS;
}

/* Rank r writes 4 ints at int 4 r through the negating representation; the
 * file holds them negated, and reads through it give them back. */
static void test_user_datarep(MPI_Comm comm, int rank, int nranks) {
  static int calls = 0; /* conversion calls (extra_state) */
  char name[512];
  MPI_File fh;
  MPI_Status st;
  int mine[4], raw[4], back[4], count;
  CHECK_OK(MPI_Register_datarep("lapis_negate", negate_read, negate_write, extent_fn, &calls));
  CHECK_OK(MPI_Register_datarep("lapis_failing", failing, failing, extent_fn, NULL));
  CHECK_OK(MPI_Register_datarep("lapis_wide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                double_extent, NULL));
  CHECK_OK(MPI_Register_datarep("lapis_as_is", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                extent_fn, NULL));
  io_name(comm, "userrep", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lapis_negate", MPI_INFO_NULL));
  for (int k = 0; k < 4; ++k) mine[k] = rank * 100 + k + 1;
  CHECK_OK(MPI_File_write_at_all(fh, 4 * rank, mine, 4, MPI_INT, &st));
  CHECK(calls == 1);
  /* The conversion's error fails the access, nothing is written. */
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lapis_failing", MPI_INFO_NULL));
  CHECK_CLASS(MPI_File_write_at(fh, 4 * rank, mine, 4, MPI_INT, &st), MPI_ERR_CONVERSION);
  /* File extents other than the sizes are refused. */
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lapis_wide", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);
  MPI_Barrier(comm);
  const int next = (rank + 1) % nranks;
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lapis_as_is", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_at(fh, 4 * next, raw, 4, MPI_INT, &st));
  for (int k = 0; k < 4; ++k) CHECK(raw[k] == -(next * 100 + k + 1));
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lapis_negate", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_at(fh, 4 * next, back, 4, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 4 && calls == 2);
  for (int k = 0; k < 4; ++k) CHECK(back[k] == next * 100 + k + 1);
  /* A memory type the function refuses: its error, MPI_ERR_CONVERSION. */
  CHECK_CLASS(MPI_File_read_at(fh, 0, back, 4, MPI_UNSIGNED, &st), MPI_ERR_CONVERSION);
  CHECK_OK(MPI_File_close(&fh));
}

/* Big-endian bytes of the n-byte value at p. */
static void big_endian(const void* p, int n, unsigned char* out) {
  const unsigned char* in = p;
  for (int i = 0; i < n; ++i) out[i] = in[n - 1 - i];
}

/* "external32": rank r writes one {int, double} (a struct with padding in
 * memory, 12 bytes in the file) at byte 12 r; the file holds them
 * big-endian and reads convert them back. */
static void test_external32_view(MPI_Comm comm, int rank, int nranks) {
  struct pair {
    int i;
    double d;
  } mine = {rank * 0x01020304 + 5, -1.5 - rank}, back = {0, 0};
  int blens[2] = {1, 1};
  MPI_Aint disps[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, pair;
  MPI_Type_create_struct(2, blens, disps, types, &pair);
  MPI_Type_commit(&pair);
  char name[512], rep[MPI_MAX_DATAREP_STRING];
  MPI_File fh;
  MPI_Status st;
  MPI_Datatype etype, filetype;
  MPI_Offset disp;
  MPI_Aint extent;
  int count;
  io_name(comm, "ext32", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  CHECK_OK(MPI_File_get_view(fh, &disp, &etype, &filetype, rep));
  CHECK(strcmp(rep, "external32") == 0);
  CHECK_OK(MPI_File_get_type_extent(fh, MPI_INT, &extent));
  CHECK(extent == 4);
  CHECK_OK(MPI_File_write_at_all(fh, 12 * rank, &mine, 1, pair, &st));
  CHECK_OK(MPI_Get_count(&st, pair, &count));
  CHECK(count == 1);
  /* A type whose elements change size is refused, not written wrongly. */
  long l = 1;
  CHECK_CLASS(MPI_File_write_at(fh, 0, &l, 1, MPI_LONG, &st), MPI_ERR_UNSUPPORTED_DATAREP);
  MPI_Barrier(comm);
  /* The next rank's pair, as raw bytes and converted. */
  const int next = (rank + 1) % nranks;
  const struct pair theirs = {next * 0x01020304 + 5, -1.5 - next};
  unsigned char raw[12], want[12];
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_at(fh, 12 * next, raw, 12, MPI_BYTE, &st));
  big_endian(&theirs.i, 4, want);
  big_endian(&theirs.d, 8, want + 4);
  CHECK(memcmp(raw, want, 12) == 0);
  CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  CHECK_OK(MPI_File_read_at(fh, 12 * next, &back, 1, pair, &st));
  CHECK(back.i == theirs.i && back.d == theirs.d);
  /* A count whose converted bytes cannot be allocated: an error, not a crash. */
  CHECK_CLASS(MPI_File_read_at_c(fh, 0, &back, (MPI_Count)1 << 50, pair, &st), MPI_ERR_NO_MEM);
  /* Past the end of the file: nothing read, nothing converted. */
  back.i = 7;
  CHECK_OK(MPI_File_read_at(fh, 12 * nranks, &back, 1, pair, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 0 && back.i == 7);
  CHECK_OK(MPI_File_close(&fh));
  MPI_Type_free(&pair);
}

int main(int argc, char** argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks <= 16);
  test_vector_view(MPI_COMM_WORLD, rank, nranks);
  test_subarray_view(MPI_COMM_WORLD, rank, nranks);
  test_shared_and_bad_views(MPI_COMM_WORLD, rank, nranks);
  test_external32_view(MPI_COMM_WORLD, rank, nranks);
  test_user_datarep(MPI_COMM_WORLD, rank, nranks);
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
