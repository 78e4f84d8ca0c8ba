/* Bad arguments to the collectives and reduction operations, with
 * MPI_ERRORS_RETURN: each call returns the right error class and nothing
 * hangs. Arguments every rank checks are tested on MPI_COMM_WORLD (all ranks
 * make the same bad call); arguments only the root checks, on
 * MPI_COMM_SELF. With an argument, one bad call under MPI_ERRORS_ARE_FATAL
 * (the test checks the message names the function and the argument). */
#include <mpi.h>
#include <string.h>

#include "check.h"

static int rank, size;
static int handler_calls;

static void noop_fn(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)in, (void)inout, (void)len, (void)type;
}

static void ops(void) {
  MPI_Op op = MPI_SUM, user;
  int flag;
  CHECK_CLASS(MPI_Op_free(&op), MPI_ERR_OP);
  CHECK_CLASS(MPI_Op_create(NULL, 1, &user), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Op_create(noop_fn, 1, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Op_commutative(MPI_OP_NULL, &flag), MPI_ERR_OP);
  CHECK_CLASS(MPI_Op_commutative((MPI_Op)MPI_INT, &flag), MPI_ERR_OP);
  CHECK_CLASS(MPI_Op_commutative(MPI_MAX, NULL), MPI_ERR_ARG);
  CHECK_OK(MPI_Op_create(noop_fn, 1, &user));
  MPI_Op copy = user;
  CHECK_OK(MPI_Op_free(&user));
  CHECK_CLASS(MPI_Op_free(&copy), MPI_ERR_OP); /* already freed */
  int a[4] = {1, 2, 3, 4}, b[4] = {0};
  char c[2] = {0};
  CHECK_CLASS(MPI_Reduce_local(c, c, 2, MPI_BYTE, MPI_SUM), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_MINLOC), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_local(a, b, 2, MPI_FLOAT, MPI_BAND), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_local(a, b, 2, MPI_C_DOUBLE_COMPLEX, MPI_MAX), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_local(NULL, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_local(a, NULL, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
  /* No MPI_IN_PLACE, no aliasing (it crashed on MPI_IN_PLACE as inbuf). */
  CHECK_CLASS(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_local(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_local(b, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_local(a, b, 4, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
  CHECK_OK(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_SUM));
  CHECK(b[3] == 4);
  /* A mixed struct takes no arithmetic op. */
  int lens[2] = {1, 1};
  MPI_Aint displs[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, mixed;
  CHECK_OK(MPI_Type_create_struct(2, lens, displs, types, &mixed));
  CHECK_OK(MPI_Type_commit(&mixed));
  double d[4] = {0};
  CHECK_CLASS(MPI_Reduce_local(d, d + 2, 1, mixed, MPI_SUM), MPI_ERR_OP);
  CHECK_OK(MPI_Reduce_local(d, d + 2, 1, mixed, MPI_REPLACE));
  CHECK_OK(MPI_Type_free(&mixed));
}

/* The user error handler on MPI_COMM_WORLD: errors of collectives reach it. */
static void count_calls(MPI_Comm* comm, int* code, ...) {
  CHECK(*comm == MPI_COMM_WORLD && *code != MPI_SUCCESS);
  ++handler_calls;
}

/* MPI_Alltoallv with receive counts smaller than what arrives. On one node
 * small pieces pass through the segment's slots (the receiver finds the
 * excess) and large ones are written straight into the receiver's buffer
 * (the writer refuses): every rank gets the error either way, and the next
 * call, with the right counts, moves every piece. */
static void alltoallv_truncation(int send_count, int recv_count) {
  const size_t n = (size_t)send_count * (size_t)size;
  int* out = malloc(n * sizeof(int));
  int* in = malloc(n * sizeof(int));
  int* sc = malloc((size_t)size * sizeof(int));
  int* rc = malloc((size_t)size * sizeof(int));
  int* displs = malloc((size_t)size * sizeof(int));
  for (int p = 0; p < size; ++p) sc[p] = send_count, rc[p] = recv_count, displs[p] = p * send_count;
  for (size_t i = 0; i < n; ++i) out[i] = rank * 1000000 + (int)i;
  CHECK_CLASS(MPI_Alltoallv(out, sc, displs, MPI_INT, in, rc, displs, MPI_INT, MPI_COMM_WORLD),
              MPI_ERR_TRUNCATE);
  for (int p = 0; p < size; ++p) rc[p] = send_count;
  CHECK_OK(MPI_Alltoallv(out, sc, displs, MPI_INT, in, rc, displs, MPI_INT, MPI_COMM_WORLD));
  int wrong = 0;
  for (int p = 0; p < size; ++p) {
    for (int k = 0; k < send_count; ++k) {
      wrong += in[p * send_count + k] != p * 1000000 + rank * send_count + k;
    }
  }
  CHECK(wrong == 0);
  free(out), free(in), free(sc), free(rc), free(displs);
}

/* MPI_Ibcast whose root sends more than the others' count: the ranks whose
 * receive truncates report it and still take part in the tree (it hung at
 * 4 ranks: the ranks below waited forever), and the ranks below them
 * report it too (MPICH's errors/coll/bcastlength -nonblocking: rank 3
 * succeeded with what its parent forwarded). */
static void ibcast_truncation(void) {
  int buf[2] = {0, 0};
  if (rank == 0) buf[0] = 7, buf[1] = 8;
  MPI_Request r;
  CHECK_OK(MPI_Ibcast(buf, rank == 0 ? 2 : 1, MPI_INT, 0, MPI_COMM_WORLD, &r));
  const int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  CHECK(rank == 0 ? cls == MPI_SUCCESS : cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER);
  CHECK(rank == 0 || buf[1] == 0);
  CHECK(buf[0] == (rank == 0 || cls == MPI_ERR_TRUNCATE ? 7 : 0));
}

/* Blocking MPI_Bcast whose root's count differs from the others'
 * (erroneous). A rank with less room gets the root's first elements and
 * MPI_ERR_TRUNCATE, one with more gets the root's elements and
 * MPI_ERR_OTHER (a collective size mismatch) -- or, down a point-to-point
 * tree, MPI_ERR_OTHER from its parent, which sends it no data; nobody
 * writes past its count, and the communicator still works. On one node the segment read a
 * 2-element broadcast from the wrong place when the root's data sat in a
 * slot and the reader's in the flag line, and a root sending more chunks
 * than a reader took left the next collectives hanging. */
static void bcast_mismatch(int root_count, int other_count) {
  const int room = root_count > other_count ? root_count : other_count;
  int* buf = malloc((size_t)(room + 1) * sizeof(int));
  for (int i = 0; i <= room; ++i) buf[i] = rank == 0 ? i + 1 : -1;
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Bcast(buf, rank == 0 ? root_count : other_count, MPI_INT, 0, MPI_COMM_WORLD),
                  &cls);
  if (rank == 0) {
    CHECK(cls == MPI_SUCCESS);
  } else {
    CHECK(cls == MPI_ERR_OTHER || (root_count > other_count && cls == MPI_ERR_TRUNCATE));
  }
  /* What landed, if anything, is the root's: nothing past the count. */
  const int landed = root_count < other_count ? root_count : other_count;
  int wrong = 0, from_root = 0;
  for (int i = 0; rank != 0 && i <= room; ++i) {
    from_root += i < landed && buf[i] == i + 1;
    wrong += buf[i] != (i < landed ? i + 1 : -1) && buf[i] != -1;
  }
  CHECK(wrong == 0 && (from_root == 0 || from_root == landed));
  int three[3] = {rank, rank, rank};
  if (rank == 0) three[0] = 5, three[1] = 6, three[2] = 7;
  CHECK_OK(MPI_Bcast(three, 3, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(three[0] == 5 && three[1] == 6 && three[2] == 7);
  free(buf);
}

/* Nonblocking collectives whose counts differ across ranks (erroneous):
 * every rank completes, those that see the mismatch with MPI_ERR_TRUNCATE.
 * A rank leaving the algorithm at its error hung the others (at 4 ranks). */
static int class_of_wait(MPI_Request* r) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Wait(r, MPI_STATUS_IGNORE), &cls);
  return cls;
}

static void nonblocking_mismatch(void) {
  int in[2] = {rank, rank}, out[128];
  MPI_Request r;
  /* Rank 0's send is larger than its block: it says so, still takes part,
   * and sends the others none of its data, so they report it too (MPICH's
   * errors/coll/allgatherlength -nonblocking: they succeeded). */
  CHECK_OK(MPI_Iallgather(in, rank == 0 ? 2 : 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD, &r));
  int cls = class_of_wait(&r);
  CHECK(rank == 0 ? cls == MPI_ERR_TRUNCATE : cls == MPI_ERR_OTHER);
  /* Rank 0 reduces two elements, the others one: their receives from rank
   * 0 truncate, and rank 0's receives are short (a size mismatch). */
  CHECK_OK(MPI_Iallreduce(in, out, rank == 0 ? 2 : 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  cls = class_of_wait(&r);
  CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER);
  /* The communicator still works. */
  int one = 1, total = 0;
  CHECK_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == size);
}

/* Blocking MPI_Allreduce and MPI_Allgather whose counts differ across
 * ranks: some rank reports the mismatch (on one node, every rank: each
 * compares the sizes in the segment's flag lines, where they read data of
 * the wrong size before), none hangs, and the communicator still works. */
static void blocking_mismatch(void) {
  int in[16], out[256];  /* room for a reduce-scatter of 2 per rank at 8 ranks */
  for (int i = 0; i < 16; ++i) in[i] = rank;
  const int count = rank == 0 ? 2 : 1;
  /* Scans and reduce-scatters carry on past a mismatch too (a rank that
   * left its recursive doubling or skipped the scatter hung the others). */
  for (int which = 0; which < 5; ++which) {
    int rc;
    switch (which) {
      case 0: rc = MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
      case 1: rc = MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, MPI_COMM_WORLD); break;
      case 2: rc = MPI_Scan(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
      case 3: rc = MPI_Exscan(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD); break;
      default: rc = MPI_Reduce_scatter_block(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_OTHER);
    int mismatched = cls != MPI_SUCCESS, any = 0;
    CHECK_OK(MPI_Allreduce(&mismatched, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(size == 1 || any >= 1);
  }
  /* A rank whose send is shorter than its block (MPICH's allgatherlength):
   * it says so, and the others see its short block too. */
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Allgather(in, rank == 0 ? 1 : 2, MPI_INT, out, 2, MPI_INT, MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_ERR_OTHER);
  /* A gather of two-chunk blocks with the last rank's one element short:
   * the root reports it, and every rank takes part in every chunk, so
   * the next collective still matches up. */
  const int block = 20000;
  int* mine = calloc((size_t)block, sizeof(int));
  int* all = rank == 0 ? calloc((size_t)block * (size_t)size, sizeof(int)) : NULL;
  const int short_rank = size - 1;
  MPI_Error_class(MPI_Gather(mine, rank == short_rank ? block - 1 : block, MPI_INT, all, block, MPI_INT,
                             0, MPI_COMM_WORLD),
                  &cls);
  if (size > 1 && rank == 0) {
    CHECK(cls == MPI_ERR_OTHER);
  } else if (size > 1 && rank == short_rank) {
    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_OTHER);
  }
  free(mine), free(all);
  int one = 1, total = 0;
  CHECK_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == size);
}

static void world_checks(void) {
  MPI_Comm w = MPI_COMM_WORLD;
  int a[64] = {0}, b[64] = {0};
  int counts[64], displs[64];
  for (int i = 0; i < 64; ++i) counts[i] = 1, displs[i] = i;
  /* Roots. */
  CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, size, w), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, size + 2, w), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, -5, w), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, size, w), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, size, w), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, size, w), MPI_ERR_ROOT);
  /* Communicators. */
  CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, (MPI_Comm)MPI_SUM), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
  /* Counts. */
  CHECK_CLASS(MPI_Bcast(a, -1, MPI_INT, 0, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allreduce(a, b, -2, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allgather(a, 1, MPI_INT, b, -1, MPI_INT, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoall(a, -1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
  counts[0] = -1;
  CHECK_CLASS(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, w),
              MPI_ERR_COUNT);
  counts[0] = 1;
  /* Ops and types. */
  CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
  CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_BYTE, MPI_SUM, w), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_MAXLOC, 0, w), MPI_ERR_OP);
  CHECK_CLASS(MPI_Scan(a, b, 1, MPI_DOUBLE, MPI_BXOR, w), MPI_ERR_OP);
  CHECK_CLASS(MPI_Exscan(a, b, 1, MPI_2INT, MPI_SUM, w), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_scatter_block(a, b, 1, MPI_FLOAT, MPI_LAND, w), MPI_ERR_OP);
  CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, w), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Bcast(a, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, w), MPI_ERR_TYPE);
  MPI_Datatype uncommitted;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_CLASS(MPI_Bcast(a, 1, uncommitted, 0, w), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Allgather(a, 1, MPI_INT, b, 1, uncommitted, w), MPI_ERR_TYPE);
  CHECK_OK(MPI_Type_free(&uncommitted));
  /* Buffers. */
  CHECK_CLASS(MPI_Bcast(NULL, 3, MPI_INT, 0, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allreduce(a, NULL, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgather(a, 1, MPI_INT, NULL, 1, MPI_INT, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scan(NULL, b, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  /* Null arrays. */
  CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, w), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, counts, NULL, MPI_INT, w), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Alltoallv(a, counts, NULL, MPI_INT, b, counts, displs, MPI_INT, w),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, w), MPI_ERR_ARG);
  MPI_Datatype ints[64];
  for (int i = 0; i < 64; ++i) ints[i] = MPI_INT;
  CHECK_CLASS(MPI_Alltoallw(a, counts, displs, NULL, b, counts, displs, ints, w), MPI_ERR_ARG);
  ints[size - 1] = MPI_DATATYPE_NULL;
  CHECK_CLASS(MPI_Alltoallw(a, counts, displs, ints, b, counts, displs, ints, w), MPI_ERR_TYPE);
  /* A bad LAPIS_COLL_* value is reported by the collective it names
   * (set by the test for this program: LAPIS_COLL_ALLTOALL=bogus). */
  if (getenv("LAPIS_COLL_ALLTOALL") != NULL) {
    CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_ARG);
  }
  /* Mismatched sizes are detected where the data arrives. */
  CHECK_CLASS(MPI_Allgather(a, 2, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_TRUNCATE);
  if (getenv("LAPIS_COLL_ALLTOALL") == NULL) {
    alltoallv_truncation(2, 1);
    alltoallv_truncation(16384, 8192);
  }
  ibcast_truncation();
  bcast_mismatch(2, 1);         /* in the flag line */
  bcast_mismatch(100, 2);       /* the root's in a slot, the reader's in the line */
  bcast_mismatch(2, 100);       /* the reader has room to spare */
  bcast_mismatch(20000, 1000);  /* two chunks at the root, one at the reader */
  blocking_mismatch();
  nonblocking_mismatch();
  /* Send memory that is the receive buffer, or this rank's block of it:
   * every rank finds it before communicating. */
  CHECK_CLASS(MPI_Allgather(&a[rank], 1, MPI_INT, a, 1, MPI_INT, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgatherv(&a[rank], 1, MPI_INT, a, counts, displs, MPI_INT, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, a, 1, MPI_INT, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoallv(a, counts, displs, MPI_INT, a, counts, displs, MPI_INT, w),
              MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_scatter_block(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_scatter(a, a, counts, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
  if (rank == 0) { /* the root alone */
    CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, a, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);
  }
  /* Disjoint blocks of one array are fine, and MPI_IN_PLACE of course. */
  CHECK_OK(MPI_Allgather(&a[size], 1, MPI_INT, a, 1, MPI_INT, w));
  CHECK_OK(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, a, 1, MPI_INT, w));
}

/* Arguments only the root looks at: on MPI_COMM_SELF, where this rank is
 * the root. */
static void root_checks(void) {
  MPI_Comm s = MPI_COMM_SELF;
  int a[8] = {0}, b[8] = {0}, counts[1] = {1}, displs[1] = {0}, neg[1] = {-1};
  CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, NULL, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, -1, MPI_INT, 0, s), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, 0, s), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, 0, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, neg, displs, MPI_INT, 0, s), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, counts, NULL, MPI_INT, 0, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Scatter(NULL, 1, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scatter(a, -3, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, s),
              MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scatterv(a, neg, displs, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce(a, NULL, 1, MPI_INT, MPI_SUM, 0, s), MPI_ERR_BUFFER);
  /* A root's own block larger than its receive block. */
  CHECK_CLASS(MPI_Gather(a, 2, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_TRUNCATE);
  /* Send and receive memory shared at the root (MPICH's noalias2: the root
   * alone calls; it must return before communicating). */
  CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, a, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Gatherv(a, 1, MPI_INT, a, counts, displs, MPI_INT, 0, s), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scatter(a, 1, MPI_INT, a, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scatterv(a, counts, displs, MPI_INT, a, 1, MPI_INT, 0, s), MPI_ERR_BUFFER);
  /* The calls still work afterwards. */
  CHECK_OK(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, s));
}

/* Bad calls under MPI_ERRORS_ARE_FATAL: the job ends with a message. */
static void fatal(const char* what) {
  int a[4] = {0}, b[4] = {0};
  char c[4] = {0}, d[4] = {0};
  if (strcmp(what, "op") == 0) {
    MPI_Allreduce(c, d, 4, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(what, "root") == 0) {
    MPI_Bcast(a, 4, MPI_INT, size, MPI_COMM_WORLD);
  } else if (strcmp(what, "buffer") == 0) {
    MPI_Reduce(NULL, b, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  } else if (strcmp(what, "env") == 0) {
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
  }
  printf("NOT REACHED\n");
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (argc > 1) {
    fatal(argv[1]);
    return 0;
  }
  MPI_Errhandler keep;
  CHECK_OK(MPI_Comm_create_errhandler(count_calls, &keep));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, keep));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  ops();
  world_checks();
  int world_errors = handler_calls;
  CHECK(world_errors >= 40);
  root_checks();
  CHECK(handler_calls == world_errors); /* MPI_COMM_SELF's errors went elsewhere */
  /* The communicator still works: a real collective after all that. */
  int one = 1, total = 0;
  CHECK_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == size);
  CHECK_OK(MPI_Errhandler_free(&keep));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
