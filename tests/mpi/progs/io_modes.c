/* MPI-IO access forms: nonblocking (i-forms with Wait, Test, Waitall),
 * split collectives (and their misuse), ordered access, atomic mode under
 * overlapping writes, sequential files, the large-count (_c) forms.
 * Prints "OK" per rank. */
#include "io_common.h"

/* BIG: 1 MiB blocks; smaller writes (a page or so) do not interleave even
 * without locks, so the check could not fail. */
enum { N = 64, BIG = 1 << 18, ROUNDS = 20 };

static void open_new(MPI_Comm comm, const char* tag, int extra, MPI_File* fh) {
  char name[512];
  io_name(comm, tag, name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name,
                         MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | extra,
                         MPI_INFO_NULL, fh));
}

static void test_nonblocking(MPI_Comm comm, int rank, int nranks) {
  MPI_File fh;
  MPI_Request req[4];
  MPI_Status st[4];
  MPI_Datatype strided; /* every other int of 2 * N */
  int src[2 * N], dst[2 * N], i, flag = 0, count;
  open_new(comm, "nonblocking", 0, &fh);
  MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  for (i = 0; i < 2 * N; ++i) {
    src[i] = i % 2 == 0 ? rank * N + i / 2 : -1;
    dst[i] = -5;
  }
  CHECK_OK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * N * sizeof(int), src, 1, strided, &req[0]));
  CHECK_OK(MPI_Wait(&req[0], &st[0]));
  CHECK(req[0] == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Get_count(&st[0], strided, &count));
  CHECK(count == 1);
  MPI_Barrier(comm);
  /* Everyone's data, read by everyone, into strided memory. */
  CHECK_OK(MPI_File_iread_at(fh, (MPI_Offset)((rank + 1) % nranks) * N * sizeof(int), dst, N,
                             MPI_INT, &req[0]));
  while (!flag) CHECK_OK(MPI_Test(&req[0], &flag, &st[0]));
  CHECK_OK(MPI_Get_count(&st[0], MPI_INT, &count));
  CHECK(count == N);
  for (i = 0; i < N; ++i) CHECK(dst[i] == ((rank + 1) % nranks) * N + i);
  /* Individual and shared pointers, collective forms, several at once. */
  CHECK_OK(MPI_File_seek(fh, (MPI_Offset)rank * N * sizeof(int), MPI_SEEK_SET));
  for (i = 0; i < 2 * N; ++i) dst[i] = -5;
  CHECK_OK(MPI_File_iread(fh, dst, 1, strided, &req[0]));
  CHECK_OK(MPI_File_iread_all(fh, &i, 0, MPI_INT, &req[1]));
  CHECK_OK(MPI_File_iread_at_all(fh, 0, &count, 1, MPI_INT, &req[2]));
  CHECK_OK(MPI_File_iread_shared(fh, &flag, 0, MPI_INT, &req[3]));
  CHECK_OK(MPI_Waitall(4, req, st));
  for (i = 0; i < 2 * N; ++i) CHECK(dst[i] == src[i] || (i % 2 == 1 && dst[i] == -5));
  CHECK(count == 0);
  CHECK_OK(MPI_Get_count(&st[1], MPI_INT, &count));
  CHECK(count == 0);
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_iwrite_all(fh, src, 0, MPI_INT, &req[0]));
  CHECK_OK(MPI_File_iwrite_at_all(fh, 0, src, 0, MPI_INT, &req[1]));
  CHECK_OK(MPI_File_iwrite(fh, src, 0, MPI_INT, &req[2]));
  CHECK_OK(MPI_File_iwrite_shared(fh, src, 0, MPI_INT, &req[3]));
  CHECK_OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
  CHECK_CLASS(MPI_File_iread(fh, dst, 1, MPI_INT, NULL), MPI_ERR_ARG);
  MPI_Type_free(&strided);
  CHECK_OK(MPI_File_close(&fh));
}

/* The rank whose ordered write (r + 1 ints from rank r) holds int i. */
static int owner(int i) {
  int r = 0;
  while ((r + 1) * (r + 2) / 2 <= i) ++r;
  return r;
}

static void test_split_ordered(MPI_Comm comm, int rank, int nranks) {
  MPI_File fh;
  MPI_Status st;
  int v[N], i, count, total = nranks * (nranks + 1) / 2;
  int* all = malloc(sizeof(int) * total);
  open_new(comm, "split", 0, &fh);
  /* Ordered: rank r writes r + 1 copies of r, in rank order. */
  for (i = 0; i <= rank; ++i) v[i] = rank;
  CHECK_OK(MPI_File_write_ordered(fh, v, rank + 1, MPI_INT, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == rank + 1);
  CHECK_OK(MPI_File_read_at_all(fh, 0, all, total, MPI_INT, &st));
  for (i = 0; i < total; ++i) CHECK(all[i] == owner(i));
  CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  for (i = 0; i < N; ++i) v[i] = -1;
  CHECK_OK(MPI_File_read_ordered(fh, v, rank + 1, MPI_INT, &st));
  for (i = 0; i <= rank; ++i) CHECK(v[i] == rank);
  /* Split collectives. */
  CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  for (i = 0; i <= rank; ++i) v[i] = 100 + rank;
  CHECK_OK(MPI_File_write_ordered_begin(fh, v, rank + 1, MPI_INT));
  CHECK_CLASS(MPI_File_write_all_begin(fh, v, 1, MPI_INT), MPI_ERR_OTHER);
  CHECK_CLASS(MPI_File_write_all_end(fh, v, &st), MPI_ERR_OTHER);
  CHECK_OK(MPI_File_write_ordered_end(fh, v, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == rank + 1);
  CHECK_CLASS(MPI_File_write_ordered_end(fh, v, &st), MPI_ERR_OTHER);
  CHECK_OK(MPI_File_read_at_all_begin(fh, 0, all, total, MPI_INT));
  CHECK_OK(MPI_File_read_at_all_end(fh, all, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == total);
  for (i = 0; i < total; ++i) CHECK(all[i] == 100 + owner(i));
  CHECK_OK(MPI_File_seek(fh, (MPI_Offset)sizeof(int) * total + rank * sizeof(int), MPI_SEEK_SET));
  CHECK_OK(MPI_File_write_all_begin(fh, &rank, 1, MPI_INT));
  CHECK_OK(MPI_File_write_all_end(fh, &rank, &st));
  CHECK_OK(MPI_File_write_at_all_begin(fh, (MPI_Offset)sizeof(int) * (total + nranks + rank), v,
                                       1, MPI_INT));
  CHECK_OK(MPI_File_write_at_all_end(fh, v, MPI_STATUS_IGNORE));
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_seek(fh, (MPI_Offset)sizeof(int) * total, MPI_SEEK_SET));
  CHECK_OK(MPI_File_read_all_begin(fh, all, nranks, MPI_INT));
  CHECK_OK(MPI_File_read_all_end(fh, all, &st));
  for (i = 0; i < nranks; ++i) CHECK(all[i] == i);
  CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  CHECK_OK(MPI_File_read_ordered_begin(fh, v, 1, MPI_INT));
  CHECK_OK(MPI_File_read_ordered_end(fh, v, &st));
  CHECK(v[0] == 100 + owner(rank));
  CHECK_OK(MPI_File_read_at(fh, (MPI_Offset)sizeof(int) * (total + nranks + rank), v, 1, MPI_INT,
                            &st));
  CHECK(v[0] == 100 + rank);
  CHECK_OK(MPI_File_close(&fh));
  free(all);
}

/* Overlapping whole-block writes from every rank: in atomic mode each read
 * sees one rank's block, never a mix. */
static void test_atomic(MPI_Comm comm, int rank, int nranks) {
  MPI_File fh;
  int* block = malloc(sizeof(int) * BIG);
  int* seen = malloc(sizeof(int) * BIG);
  int i, round;
  open_new(comm, "atomic", 0, &fh);
  CHECK_OK(MPI_File_set_atomicity(fh, 1));
  for (i = 0; i < BIG; ++i) block[i] = rank;
  CHECK_OK(MPI_File_write_at_all(fh, 0, block, BIG, MPI_INT, MPI_STATUS_IGNORE));
  for (round = 0; round < ROUNDS; ++round) {
    for (i = 0; i < BIG; ++i) block[i] = rank * ROUNDS + round;
    CHECK_OK(MPI_File_write_at(fh, 0, block, BIG, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_File_read_at(fh, 0, seen, BIG, MPI_INT, MPI_STATUS_IGNORE));
    for (i = 1; i < BIG; ++i) CHECK(seen[i] == seen[0]);
    CHECK(seen[0] >= 0 && seen[0] < nranks * ROUNDS);
  }
  CHECK_OK(MPI_File_set_atomicity(fh, 0));
  CHECK_OK(MPI_File_close(&fh));
  free(block);
  free(seen);
}

static void test_sequential_large(MPI_Comm comm, int rank, int nranks) {
  MPI_File fh;
  MPI_Status st;
  MPI_Request req;
  MPI_Count c = 0;
  MPI_Offset size;
  long long v[4] = {rank, rank, rank, rank}, back[4];
  char name[512];
  io_name(comm, "sequential", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL,
                         MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_write_at(fh, 0, v, 1, MPI_LONG_LONG, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_write(fh, v, 1, MPI_LONG_LONG, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_read_shared(fh, back, 1, MPI_LONG_LONG, &st), MPI_ERR_ACCESS);
  CHECK_OK(MPI_File_write_ordered(fh, v, 1, MPI_LONG_LONG, &st));
  CHECK_OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_LONG_LONG, MPI_LONG_LONG, "native",
                             MPI_INFO_NULL));
  CHECK_OK(MPI_File_write_shared(fh, v, 1, MPI_LONG_LONG, &st));
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == (MPI_Offset)sizeof(long long) * 2 * nranks);
  CHECK_OK(MPI_File_close(&fh));

  /* The large-count forms. */
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                         &fh));
  CHECK_OK(MPI_File_write_at_c(fh, (MPI_Offset)sizeof(v) * rank, v, (MPI_Count)4, MPI_LONG_LONG,
                               &st));
  CHECK_OK(MPI_Get_count_c(&st, MPI_LONG_LONG, &c));
  CHECK(c == 4);
  MPI_Barrier(comm);
  CHECK_OK(MPI_File_iread_at_c(fh, (MPI_Offset)sizeof(v) * ((rank + 1) % nranks), back,
                               (MPI_Count)4, MPI_LONG_LONG, &req));
  CHECK_OK(MPI_Wait(&req, &st));
  CHECK(back[3] == (rank + 1) % nranks);
  CHECK_OK(MPI_File_seek(fh, (MPI_Offset)sizeof(v) * rank, MPI_SEEK_SET));
  CHECK_OK(MPI_File_read_all_begin_c(fh, back, (MPI_Count)4, MPI_LONG_LONG));
  CHECK_OK(MPI_File_read_all_end(fh, back, &st));
  CHECK(back[0] == rank);
  CHECK_OK(MPI_File_get_type_extent_c(fh, MPI_LONG_LONG, &c));
  CHECK(c == (MPI_Count)sizeof(long long));
  CHECK_CLASS(MPI_File_read_c(fh, back, (MPI_Count)-1, MPI_LONG_LONG, &st), MPI_ERR_COUNT);
  CHECK_OK(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks < N);
  test_nonblocking(MPI_COMM_WORLD, rank, nranks);
  test_split_ordered(MPI_COMM_WORLD, rank, nranks);
  test_atomic(MPI_COMM_WORLD, rank, nranks);
  test_sequential_large(MPI_COMM_WORLD, rank, nranks);
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
