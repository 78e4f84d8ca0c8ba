/* The MPI-4.0 large-count ("_c") forms.
 *   large_count small   every form with small counts, beside its int form's
 *                       result (any number of ranks)
 *   large_count large   counts beyond INT_MAX: MPI_Send_c/MPI_Recv_c of
 *                       INT_MAX + 100 bytes, contiguous and every other byte
 *                       of a resized type, with MPI_Get_count_c; and
 *                       MPI_Reduce_local_c over INT_MAX + 100 elements, in
 *                       pieces (2 ranks; a buffer of 4 GiB per rank)
 *   large_count errors  bad arguments to every form: error classes */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "big_buffer.h"
#include "check.h"

static int rank, size;

static void small(void) {
  enum { N = 1000 };
  int out[N], in[N];
  for (int i = 0; i < N; ++i) out[i] = rank * 10000 + i;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  /* blocking and nonblocking point to point round a ring */
  memset(in, 0, sizeof in);
  MPI_Request r[2];
  CHECK_OK(MPI_Irecv_c(in, N, MPI_INT, left, 1, MPI_COMM_WORLD, &r[0]));
  CHECK_OK(MPI_Isend_c(out, N, MPI_INT, right, 1, MPI_COMM_WORLD, &r[1]));
  CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; ++i) CHECK(in[i] == left * 10000 + i);
  memset(in, 0, sizeof in);
  CHECK_OK(MPI_Sendrecv_c(out, N, MPI_INT, right, 2, in, N, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
  for (int i = 0; i < N; ++i) CHECK(in[i] == left * 10000 + i);
  MPI_Count count = -1;
  CHECK_OK(MPI_Get_count_c(&st, MPI_INT, &count));
  CHECK(count == N);
  CHECK_OK(MPI_Get_elements_c(&st, MPI_SHORT, &count));
  CHECK(count == 2 * N);
  /* a count past INT_MAX set and read back (a generalized request's query function's way) */
  const MPI_Count big = (MPI_Count)INT_MAX * 3 + 5;
  CHECK_OK(MPI_Status_set_elements_c(&st, MPI_SHORT, big));
  CHECK_OK(MPI_Get_elements_c(&st, MPI_SHORT, &count));
  CHECK(count == big);
  CHECK_OK(MPI_Get_count_c(&st, MPI_SHORT, &count));
  CHECK(count == big);
  /* the blocking send modes, to self */
  CHECK_OK(MPI_Irecv_c(in, N, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[0]));
  CHECK_OK(MPI_Ssend_c(out, N, MPI_INT, rank, 3, MPI_COMM_WORLD));
  CHECK_OK(MPI_Wait(&r[0], &st));
  CHECK_OK(MPI_Get_count_c(&st, MPI_INT, &count));
  CHECK(count == N && in[N - 1] == out[N - 1]);
  CHECK_OK(MPI_Send_init_c(out, N, MPI_INT, rank, 4, MPI_COMM_WORLD, &r[1]));
  CHECK_OK(MPI_Recv_init_c(in, N, MPI_INT, rank, 4, MPI_COMM_WORLD, &r[0]));
  for (int k = 0; k < 3; ++k) {
    memset(in, 0, sizeof in);
    CHECK_OK(MPI_Startall(2, r));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(in[7] == out[7]);
  }
  CHECK_OK(MPI_Request_free(&r[0]));
  CHECK_OK(MPI_Request_free(&r[1]));
  /* datatypes */
  MPI_Count lb = -1, extent = -1, sz = -1;
  CHECK_OK(MPI_Type_size_c(MPI_DOUBLE, &sz));
  CHECK(sz == 8);
  MPI_Datatype five;
  CHECK_OK(MPI_Type_contiguous_c(5, MPI_DOUBLE, &five));
  CHECK_OK(MPI_Type_get_extent_c(five, &lb, &extent));
  CHECK(lb == 0 && extent == 40);
  CHECK_OK(MPI_Type_get_true_extent_c(five, &lb, &extent));
  CHECK(lb == 0 && extent == 40);
  CHECK_OK(MPI_Type_free(&five));
  /* collectives against the int forms */
  int b[4] = {rank, rank + 1, rank + 2, rank + 3};
  CHECK_OK(MPI_Bcast_c(b, 4, MPI_INT, size - 1, MPI_COMM_WORLD));
  CHECK(b[0] == size - 1 && b[3] == size + 2);
  long sum = -1, want = -1;
  long mine = rank + 1;
  CHECK_OK(MPI_Allreduce_c(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK_OK(MPI_Allreduce(&mine, &want, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == want && sum == (long)size * (size + 1) / 2);
  sum = mine;
  CHECK_OK(MPI_Allreduce_c(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
  CHECK(sum == size);
  sum = -1;
  CHECK_OK(MPI_Reduce_c(&mine, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
  CHECK(rank != 0 || sum == want);
  int* all = malloc(sizeof(int) * 2 * (size_t)size);
  int two[2] = {rank, -rank};
  CHECK_OK(MPI_Allgather_c(two, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
  memset(all, 0, sizeof(int) * 2 * (size_t)size);
  CHECK_OK(MPI_Gather_c(two, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
  for (int i = 0; i < size && rank == 0; ++i) CHECK(all[2 * i] == i);
  int got[2] = {-1, -1};
  for (int i = 0; i < 2 * size; ++i) all[i] = i;
  CHECK_OK(MPI_Scatter_c(all, 2, MPI_INT, got, 2, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(got[0] == 2 * rank && got[1] == 2 * rank + 1);
  int* back = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < 2 * size; ++i) all[i] = rank * 100 + i;
  CHECK_OK(MPI_Alltoall_c(all, 2, MPI_INT, back, 2, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) CHECK(back[2 * i] == i * 100 + 2 * rank);
  free(all);
  free(back);
  int acc[3] = {1, 2, 3}, add[3] = {10, 20, 30};
  CHECK_OK(MPI_Reduce_local_c(add, acc, 3, MPI_INT, MPI_SUM));
  CHECK(acc[0] == 11 && acc[2] == 33);
}

/* byte i of a buffer of stride s holds f(i) at i * s */
static unsigned char f(MPI_Count i) { return (unsigned char)(i * 7 + (i >> 20)); }

static void large(void) {
  const MPI_Count n = (MPI_Count)INT_MAX + 100;
  if (size != 2) {
    CHECK(size == 1);
    return;
  }
  /* contiguous bytes, then every other byte through a resized type. One
   * buffer of 2n bytes per rank serves every step: memory touched for the
   * first time is what costs here (4 GiB took 15 s on a virtual machine;
   * each step with its own buffers took 78 s). */
  unsigned char* buf = big_buffer(2 * (size_t)n);
  for (int stride = 1; stride <= 2; ++stride) {
    MPI_Datatype type = MPI_BYTE;
    if (stride == 2) {
      CHECK_OK(MPI_Type_create_resized(MPI_BYTE, 0, 2, &type));
      CHECK_OK(MPI_Type_commit(&type));
    }
    if (rank == 0) {
      for (MPI_Count i = 0; i < n; ++i) buf[i * stride] = f(i);
      CHECK_OK(MPI_Send_c(buf, n, type, 1, stride, MPI_COMM_WORLD));
    } else {
      memset(buf, 0xee, (size_t)n * (size_t)stride);
      MPI_Status st;
      CHECK_OK(MPI_Recv_c(buf, n, type, 0, stride, MPI_COMM_WORLD, &st));
      MPI_Count count = -1;
      CHECK_OK(MPI_Get_count_c(&st, type, &count));
      CHECK(count == n);
      int small_count = 0;
      CHECK_OK(MPI_Get_count(&st, type, &small_count));
      CHECK(small_count == MPI_UNDEFINED);
      MPI_Count bad = 0;
      for (MPI_Count i = 0; i < n; ++i) bad += buf[i * stride] != f(i);
      CHECK(bad == 0);
      /* the gaps of the strided type are untouched */
      if (stride == 2) CHECK(buf[1] == 0xee && buf[2 * n - 1] == 0xee);
    }
    if (stride == 2) CHECK_OK(MPI_Type_free(&type));
  }
  /* a reduction beyond INT_MAX elements runs in pieces; every piece counts */
  if (rank == 0) {
    unsigned char* in = buf;
    unsigned char* acc = buf + n;
    for (MPI_Count i = 0; i < n; ++i) {
      in[i] = f(i);
      acc[i] = (unsigned char)i;
    }
    CHECK_OK(MPI_Reduce_local_c(in, acc, n, MPI_UINT8_T, MPI_SUM));
    MPI_Count bad = 0;
    for (MPI_Count i = 0; i < n; ++i) bad += acc[i] != (unsigned char)(f(i) + (unsigned char)i);
    CHECK(bad == 0);
  }
  free(buf);
}

static void errors(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0;
  const MPI_Count huge = (MPI_Count)INT_MAX + 1;
  CHECK_CLASS(MPI_Send_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  MPI_Status st;
  CHECK_CLASS(MPI_Status_set_elements_c(&st, MPI_SHORT, -1), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Status_set_elements_c(MPI_STATUS_IGNORE, MPI_SHORT, 1), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_set_elements_c(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Send_c(&x, huge, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Recv_c(&x, huge, (MPI_Datatype)0x12345, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              MPI_ERR_TYPE);
  /* 2^62 instances of a double do not fit in memory: refused before anything moves */
  CHECK_CLASS(MPI_Send_c(&x, (MPI_Count)1 << 62, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bcast_c(&x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Type_contiguous_c(huge, MPI_INT, NULL), MPI_ERR_ARG);
  MPI_Count c = 0;
  CHECK_CLASS(MPI_Get_count_c(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Allreduce_c(&x, &c, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
  /* every other form: a bad count or type is refused before anything moves */
  const MPI_Datatype bogus = (MPI_Datatype)0x12345;
  MPI_Datatype loose;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &loose)); /* never committed */
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Message msg = MPI_MESSAGE_NULL;
  CHECK_CLASS(MPI_Bsend_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Ssend_c(&x, huge, bogus, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Rsend_c(&x, huge, loose, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Isend_c(&x, huge, bogus, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Ibsend_c(&x, -5, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Issend_c(&x, huge, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Irsend_c(&x, huge, loose, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Irecv_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Send_init_c(&x, huge, bogus, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Bsend_init_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Ssend_init_c(&x, huge, loose, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Rsend_init_c(&x, huge, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, &req),
              MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Recv_init_c(&x, huge, bogus, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK(req == MPI_REQUEST_NULL);
  CHECK_CLASS(MPI_Sendrecv_c(&x, 1, MPI_INT, 0, 0, &x, huge, bogus, 0, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Sendrecv_replace_c(&x, huge, loose, 0, 0, 0, 0, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE),
              MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Mrecv_c(&x, huge, bogus, &msg, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Imrecv_c(&x, huge, bogus, &msg, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Get_elements_c(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_size_c(bogus, &c), MPI_ERR_TYPE);
  MPI_Count lb = 0;
  CHECK_CLASS(MPI_Type_get_extent_c(MPI_DATATYPE_NULL, &lb, &c), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_true_extent_c(bogus, &lb, &c), MPI_ERR_TYPE);
  MPI_Datatype t;
  CHECK_CLASS(MPI_Type_contiguous_c(huge, bogus, &t), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Gather_c(&x, huge, bogus, &x, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Scatter_c(&x, 1, MPI_INT, &x, huge, loose, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Allgather_c(&x, -1, MPI_INT, &x, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoall_c(&x, huge, MPI_DATATYPE_NULL, &x, huge, MPI_INT, MPI_COMM_WORLD),
              MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Reduce_c(&x, &c, 1, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_local_c(&x, &c, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
  CHECK_OK(MPI_Type_free(&loose));
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
