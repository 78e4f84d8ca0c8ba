/* Built by tests/mpi/mpich_abi_test with Debian's mpicc.mpich against MPICH's
 * own mpi.h, then run on Lapis' library: every handle, constant and status
 * field below is MPICH's. Point-to-point with statuses (MPICH's layout),
 * collectives incl. a pair type (a direct-kind handle), derived datatypes,
 * communicators, attributes, errors. Prints the library it runs on
 * ("LIBRARY path", from /proc/self/maps) and "OK" per rank. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* The file the MPI library was mapped from. */
static void print_library(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  CHECK(maps != NULL);
  char line[4096];
  while (fgets(line, sizeof line, maps)) {
    char* path = strchr(line, '/');
    if (path && (strstr(path, "/libmpi.so") || strstr(path, "/libmpich.so"))) {
      if (rank == 0) printf("LIBRARY %s", path);
      break;
    }
  }
  fclose(maps);
}

static void layout(void) {
  /* Compiled against MPICH's header: its layout, which Lapis must fill. */
  CHECK(sizeof(MPI_Status) == 5 * sizeof(int));
  CHECK(offsetof(MPI_Status, MPI_SOURCE) == 2 * sizeof(int));
  CHECK(sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8);
  /* The globals MPICH's header declares resolve in the library. */
  CHECK(&MPI_F_STATUS_IGNORE != NULL && &MPI_F_STATUSES_IGNORE != NULL);
  CHECK(MPI_F08_STATUS_IGNORE != NULL);
  CHECK(MPI_UNWEIGHTED != NULL && MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
}

static void point_to_point(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[7], in[7] = {0};
  for (int i = 0; i < 7; ++i) out[i] = rank * 100 + i;
  MPI_Status st;
  memset(&st, 0xff, sizeof st);
  CHECK_OK(MPI_Sendrecv(out, 7, MPI_INT, right, 11, in, 7, MPI_INT, left, MPI_ANY_TAG,
                        MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 11);
  CHECK(st.count_lo == 7 * (int)sizeof(int)); /* MPICH keeps bytes in count_lo */
  CHECK((st.count_hi_and_cancelled & 1) == 0);
  int n = -1, cancelled = 1;
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 7);
  CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
  CHECK(n == 28);
  CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
  CHECK(n == MPI_UNDEFINED); /* 28 bytes are not whole doubles */
  CHECK_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled == 0);
  for (int i = 0; i < 7; ++i) CHECK(in[i] == left * 100 + i);

  /* Nonblocking, statuses in an array (20-byte stride), MPI_ANY_SOURCE. */
  double dout[3] = {rank + 0.5, rank + 1.5, rank + 2.5}, din[2][3];
  MPI_Request reqs[4];
  MPI_Status sts[4];
  CHECK_OK(MPI_Irecv(din[0], 3, MPI_DOUBLE, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &reqs[0]));
  CHECK_OK(MPI_Irecv(din[1], 2, MPI_DOUBLE, left, 22, MPI_COMM_WORLD, &reqs[1]));
  CHECK_OK(MPI_Isend(dout, 3, MPI_DOUBLE, right, 21, MPI_COMM_WORLD, &reqs[2]));
  CHECK_OK(MPI_Isend(dout, 2, MPI_DOUBLE, right, 22, MPI_COMM_WORLD, &reqs[3]));
  CHECK_OK(MPI_Waitall(4, reqs, sts));
  for (int i = 0; i < 4; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL);
  CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 21);
  CHECK(sts[1].MPI_SOURCE == left && sts[1].MPI_TAG == 22);
  CHECK_OK(MPI_Get_count(&sts[0], MPI_DOUBLE, &n));
  CHECK(n == 3);
  CHECK_OK(MPI_Get_count(&sts[1], MPI_DOUBLE, &n));
  CHECK(n == 2);
  CHECK(din[0][2] == left + 2.5 && din[1][1] == left + 1.5);

  /* Probe, then receive what it announced. */
  char msg[40];
  snprintf(msg, sizeof msg, "from %d", rank);
  CHECK_OK(MPI_Send(msg, (int)strlen(msg) + 1, MPI_CHAR, right, 31, MPI_COMM_WORLD));
  CHECK_OK(MPI_Probe(left, 31, MPI_COMM_WORLD, &st));
  CHECK_OK(MPI_Get_count(&st, MPI_CHAR, &n));
  char got[40];
  CHECK_OK(MPI_Recv(got, n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
  char want[40];
  snprintf(want, sizeof want, "from %d", left);
  CHECK(strcmp(got, want) == 0);

  CHECK_OK(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
}

static void collectives(void) {
  int v = rank + 1, sum = 0;
  CHECK_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size + 1) / 2);
  double d = rank == size - 1 ? 100.0 : (double)rank, dmax = 0;
  CHECK_OK(MPI_Reduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
  if (rank == 0) CHECK(dmax == 100.0);
  struct { double v; int i; } loc = {rank == 1 % size ? 9.0 : 1.0, rank}, best;
  CHECK_OK(MPI_Allreduce(&loc, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(best.v == 9.0 && best.i == 1 % size);
  long long big = rank == 0 ? 1234567890123LL : 0;
  CHECK_OK(MPI_Bcast(&big, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
  CHECK(big == 1234567890123LL);
  int inplace = 2;
  CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, &inplace, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
  CHECK(inplace == 1 << size);
  int all[64];
  CHECK_OK(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) CHECK(all[i] == i);
  int to[64], from[64];
  for (int i = 0; i < size; ++i) to[i] = rank * 10 + i;
  CHECK_OK(MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; ++i) CHECK(from[i] == i * 10 + rank);
  int prefix = 0;
  CHECK_OK(MPI_Scan(&v, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(prefix == (rank + 1) * (rank + 2) / 2);
  int flag = rank % 2;
  int any = 0;
  CHECK_OK(MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
  CHECK(any == (size > 1));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void datatypes(void) {
  /* A column of a 4x5 matrix of ints, sent to the right, received packed. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int m[4][5], col[4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) m[i][j] = rank * 1000 + i * 10 + j;
  MPI_Datatype column;
  CHECK_OK(MPI_Type_vector(4, 1, 5, MPI_INT, &column));
  CHECK_OK(MPI_Type_commit(&column));
  int tsize = 0;
  MPI_Aint lb = -1, extent = 0;
  CHECK_OK(MPI_Type_size(column, &tsize));
  CHECK_OK(MPI_Type_get_extent(column, &lb, &extent));
  CHECK(tsize == 16 && lb == 0 && extent == (3 * 5 + 1) * (MPI_Aint)sizeof(int));
  MPI_Status st;
  CHECK_OK(MPI_Sendrecv(&m[0][2], 1, column, right, 41, col, 4, MPI_INT, left, 41,
                        MPI_COMM_WORLD, &st));
  for (int i = 0; i < 4; ++i) CHECK(col[i] == left * 1000 + i * 10 + 2);
  int elems = 0;
  CHECK_OK(MPI_Get_elements(&st, MPI_INT, &elems));
  CHECK(elems == 4);
  CHECK_OK(MPI_Type_free(&column));
  CHECK(column == MPI_DATATYPE_NULL);

  /* A struct {char; double}: its padding comes from the displacements. */
  struct rec { char c; double x; } r = {(char)('a' + rank), rank * 2.0}, rr;
  int lens[2] = {1, 1};
  MPI_Aint disp[2] = {offsetof(struct rec, c), offsetof(struct rec, x)};
  MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, rect;
  CHECK_OK(MPI_Type_create_struct(2, lens, disp, types, &rect));
  CHECK_OK(MPI_Type_commit(&rect));
  CHECK_OK(MPI_Sendrecv(&r, 1, rect, right, 42, &rr, 1, rect, left, 42, MPI_COMM_WORLD, &st));
  CHECK(rr.c == 'a' + left && rr.x == left * 2.0);
  CHECK_OK(MPI_Get_count(&st, rect, &elems));
  CHECK(elems == 1);
  CHECK_OK(MPI_Type_free(&rect));

  int sz = 0;
  CHECK_OK(MPI_Type_size(MPI_DOUBLE_PRECISION, &sz));
  CHECK(sz == 8);
  CHECK_OK(MPI_Type_size(MPI_2INT, &sz));
  CHECK(sz == 8);
}

static int copies;
static int count_copy(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  (void)c, (void)k, (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void communicators(void) {
  MPI_Comm half, dup;
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  int hr = -1, hs = 0;
  CHECK_OK(MPI_Comm_rank(half, &hr));
  CHECK_OK(MPI_Comm_size(half, &hs));
  CHECK(hs == (size + 1 - rank % 2) / 2);
  CHECK(hr == hs - 1 - rank / 2); /* keys reversed the order */
  int result = -1;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_IDENT);

  /* Attributes: MPICH's predefined key values and callbacks. */
  int* ub = NULL;
  int flag = 0;
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
  CHECK(flag && *ub >= 32767);
  int k_dup = MPI_KEYVAL_INVALID, k_null = MPI_KEYVAL_INVALID, k_count = MPI_KEYVAL_INVALID;
  CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k_dup, NULL));
  CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k_null, NULL));
  CHECK_OK(MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &k_count, NULL));
  static int a = 1, b = 2, c = 3;
  CHECK_OK(MPI_Comm_set_attr(dup, k_dup, &a));
  CHECK_OK(MPI_Comm_set_attr(dup, k_null, &b));
  CHECK_OK(MPI_Comm_set_attr(dup, k_count, &c));
  MPI_Comm dup2;
  CHECK_OK(MPI_Comm_dup(dup, &dup2));
  int* got = NULL;
  CHECK_OK(MPI_Comm_get_attr(dup2, k_dup, &got, &flag));
  CHECK(flag && got == &a);
  CHECK_OK(MPI_Comm_get_attr(dup2, k_null, &got, &flag));
  CHECK(!flag);
  CHECK(copies == 1);
  CHECK_OK(MPI_Comm_free(&dup2));
  CHECK_OK(MPI_Comm_free_keyval(&k_dup));
  CHECK(k_dup == MPI_KEYVAL_INVALID);
  CHECK_OK(MPI_Comm_free_keyval(&k_null));
  CHECK_OK(MPI_Comm_free_keyval(&k_count));

  int sum = 0;
  CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
  CHECK_OK(MPI_Comm_free(&half));
  CHECK_OK(MPI_Comm_free(&dup));
  CHECK(half == MPI_COMM_NULL && dup == MPI_COMM_NULL);
}

static void errors(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0;
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, 0, -7, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  /* A handle of the wrong kind: a datatype where a communicator goes. */
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, (MPI_Comm)MPI_INT), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Send(&x, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Allreduce(&x, &x, 1, MPI_INT, (MPI_Op)MPI_INFO_ENV, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_CLASS(MPI_Allreduce(&x, &x, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
  MPI_Request r = MPI_REQUEST_NULL;
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE)); /* null request: returns at once */
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, cls = -1;
  CHECK_OK(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len));
  CHECK(len > 0 && (int)strlen(text) == len);
  CHECK_OK(MPI_Error_class(MPI_ERR_REQUEST, &cls));
  CHECK(cls == MPI_ERR_REQUEST);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* MPICH's own extensions, which such a program may call: a generalized
 * request that completes itself from its poll_fn, the GPU queries, and
 * fault tolerance (ULFM) with every rank alive. */
static int polls;
static int complete_on_third_poll(void* extra, MPI_Status* status) {
  (void)status;
  if (++polls == 3) CHECK_OK(MPI_Grequest_complete(*(MPI_Request*)extra));
  return MPI_SUCCESS;
}

static void extensions(void) {
  MPI_Request r = MPI_REQUEST_NULL;
  CHECK_OK(MPIX_Grequest_start(NULL, NULL, NULL, complete_on_third_poll, NULL, &r, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(polls == 3 && r == MPI_REQUEST_NULL);
  int yes = -1;
  CHECK_OK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes));
  CHECK(yes == 0 && MPIX_Query_cuda_support() == 0);
  int flag = rank == 0 ? 0x3 : 0x6;
  CHECK_OK(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == (size > 1 ? 0x2 : 0x3));
  MPI_Comm shrunk = MPI_COMM_NULL, dup = MPI_COMM_NULL;
  CHECK_OK(MPIX_Comm_shrink(MPI_COMM_WORLD, &shrunk));
  int n = 0;
  CHECK_OK(MPI_Comm_size(shrunk, &n));
  CHECK(n == size);
  CHECK_OK(MPI_Comm_free(&shrunk));
  CHECK_OK(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  MPI_Group acked = MPI_GROUP_NULL;
  CHECK_OK(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked));
  CHECK(acked == MPI_GROUP_EMPTY);
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  /* Rank 0 revokes it; a send there, and the others' receives, fail. */
  int cls = MPI_SUCCESS;
  if (rank == 0) {
    CHECK_OK(MPIX_Comm_revoke(dup));
    CHECK_OK(MPI_Error_class(MPI_Send(&flag, 1, MPI_INT, 0, 0, dup), &cls));
  } else {
    CHECK_OK(MPI_Error_class(MPI_Recv(&flag, 1, MPI_INT, MPI_ANY_SOURCE, 0, dup, MPI_STATUS_IGNORE), &cls));
  }
  CHECK(cls == MPIX_ERR_REVOKED);
  CHECK_OK(MPI_Comm_free(&dup));
}

int main(int argc, char** argv) {
  int provided = -1;
  CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  CHECK(provided >= MPI_THREAD_FUNNELED);
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 64);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  CHECK_OK(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME);
  static char version[MPI_MAX_LIBRARY_VERSION_STRING];
  CHECK_OK(MPI_Get_library_version(version, &len));
  if (rank == 0) printf("VERSION %s\n", version);
  print_library();
  layout();
  point_to_point();
  collectives();
  datatypes();
  communicators();
  errors();
  extensions();
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
