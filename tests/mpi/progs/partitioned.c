/* Partitioned point-to-point (MPI 4.0): MPI_Psend_init / MPI_Precv_init
 * around a ring (rank r sends to r+1; one rank sends to itself), equal and
 * different partition counts, MPI_Pready in reverse and shuffled order,
 * MPI_Pready_range / MPI_Pready_list, several epochs, MPI_Parrived polled
 * until every partition arrived, derived datatypes; then bad arguments on
 * MPI_COMM_SELF with their error classes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size, next, prev;

static unsigned lcg(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

static void shuffle(int* v, int n, unsigned seed) {
  for (int i = 0; i < n; ++i) v[i] = i;
  for (int i = n - 1; i > 0; --i) {
    int j = (int)(lcg(&seed) % (unsigned)(i + 1));
    int t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

/* Polls MPI_Parrived on every partition until all have arrived. */
static void poll_arrived(MPI_Request rreq, int partitions) {
  int left = partitions;
  char* seen = calloc((size_t)partitions, 1);
  while (left > 0) {
    for (int p = 0; p < partitions; ++p) {
      if (seen[p]) continue;
      int flag = 0;
      CHECK_OK(MPI_Parrived(rreq, p, &flag));
      if (flag) {
        seen[p] = 1;
        --left;
      }
    }
  }
  free(seen);
}

enum order { kForward, kReverse, kShuffled, kRangeList };

/* One exchange around the ring: `sp` x `sc` ints sent, `rp` x `rc` received
 * (sp * sc == rp * rc), over `epochs` epochs of one pair of requests. */
static void exchange(int sp, int sc, int rp, int rc, enum order order, int epochs, int tag) {
  const int n = sp * sc;
  int* sbuf = malloc(sizeof(int) * (size_t)n);
  int* rbuf = malloc(sizeof(int) * (size_t)n);
  int* perm = malloc(sizeof(int) * (size_t)sp);
  MPI_Request req[2];
  CHECK_OK(MPI_Precv_init(rbuf, rp, rc, MPI_INT, prev, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_OK(MPI_Psend_init(sbuf, sp, sc, MPI_INT, next, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  for (int e = 0; e < epochs; ++e) {
    for (int i = 0; i < n; ++i) rbuf[i] = -1;
    CHECK_OK(MPI_Startall(2, req));
    /* Filled after MPI_Start, before each partition's MPI_Pready. */
    for (int i = 0; i < n; ++i) sbuf[i] = e * 1000000 + rank * 10000 + i;
    shuffle(perm, sp, (unsigned)(tag * 31 + e * 7 + rank));
    if (order == kRangeList) {
      int half = sp / 2;
      if (half > 0) CHECK_OK(MPI_Pready_range(0, half - 1, req[1]));
      int* rest = malloc(sizeof(int) * (size_t)(sp - half));
      for (int i = 0; i < sp - half; ++i) rest[i] = sp - 1 - i;
      CHECK_OK(MPI_Pready_list(sp - half, rest, req[1]));
      free(rest);
    } else {
      for (int i = 0; i < sp; ++i) {
        int p = order == kForward ? i : order == kReverse ? sp - 1 - i : perm[i];
        if (i == sp - 1) {
          /* Not every partition is ready: the send cannot have completed. */
          int flag = 1;
          CHECK_OK(MPI_Test(&req[1], &flag, MPI_STATUS_IGNORE));
          CHECK(flag == 0);
        }
        CHECK_OK(MPI_Pready(p, req[1]));
      }
    }
    poll_arrived(req[0], rp);
    for (int i = 0; i < n; ++i) CHECK(rbuf[i] == e * 1000000 + prev * 10000 + i);
    MPI_Status st[2];
    CHECK_OK(MPI_Waitall(2, req, st));
    CHECK(st[0].MPI_SOURCE == prev && st[0].MPI_TAG == tag);
    int got = -1;
    CHECK_OK(MPI_Get_count(&st[0], MPI_INT, &got));
    CHECK(got == n);
    /* Inactive again: MPI_Parrived says arrived, MPI_Pready is refused. */
    int flag = 0;
    CHECK_OK(MPI_Parrived(req[0], 0, &flag));
    CHECK(flag == 1);
  }
  CHECK_OK(MPI_Request_free(&req[0]));
  CHECK_OK(MPI_Request_free(&req[1]));
  free(sbuf);
  free(rbuf);
  free(perm);
}

/* A strided send type (every other int) into a contiguous receive, and a
 * contiguous send into a strided receive. */
static void derived(void) {
  enum { kParts = 6, kPer = 5, kN = kParts * kPer };
  MPI_Datatype every_other;
  CHECK_OK(MPI_Type_vector(1, 1, 2, MPI_INT, &every_other));
  MPI_Datatype stride2;
  CHECK_OK(MPI_Type_create_resized(every_other, 0, 2 * (MPI_Aint)sizeof(int), &stride2));
  CHECK_OK(MPI_Type_commit(&stride2));
  int sbuf[2 * kN], rbuf[kN], sbuf2[kN], rbuf2[2 * kN];
  MPI_Request req[4];
  CHECK_OK(MPI_Precv_init(rbuf, 3, kN / 3, MPI_INT, prev, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_OK(MPI_Psend_init(sbuf, kParts, kPer, stride2, next, 40, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_OK(MPI_Precv_init(rbuf2, kParts, kPer, stride2, prev, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
  CHECK_OK(MPI_Psend_init(sbuf2, 2, kN / 2, MPI_INT, next, 41, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]));
  for (int e = 0; e < 3; ++e) {
    for (int i = 0; i < kN; ++i) {
      sbuf[2 * i] = e * 1000 + rank * 100 + i;
      sbuf[2 * i + 1] = -7;
      sbuf2[i] = e * 1000 + rank * 100 + i + 50;
      rbuf[i] = -1;
      rbuf2[2 * i] = -1;
      rbuf2[2 * i + 1] = -9;
    }
    CHECK_OK(MPI_Start(&req[0]));
    CHECK_OK(MPI_Start(&req[2]));
    CHECK_OK(MPI_Start(&req[1]));
    CHECK_OK(MPI_Start(&req[3]));
    CHECK_OK(MPI_Pready_range(0, kParts - 1, req[1]));
    CHECK_OK(MPI_Pready(1, req[3]));
    CHECK_OK(MPI_Pready(0, req[3]));
    poll_arrived(req[2], kParts);
    /* The strided receive is in the user's buffer once MPI_Parrived says so. */
    for (int i = 0; i < kN; ++i) {
      CHECK(rbuf2[2 * i] == e * 1000 + prev * 100 + i + 50);
      CHECK(rbuf2[2 * i + 1] == -9);
    }
    CHECK_OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < kN; ++i) CHECK(rbuf[i] == e * 1000 + prev * 100 + i);
  }
  for (int i = 0; i < 4; ++i) CHECK_OK(MPI_Request_free(&req[i]));
  CHECK_OK(MPI_Type_free(&stride2));
  CHECK_OK(MPI_Type_free(&every_other));
}

/* Partitioned messages never match ordinary receives (and MPI_PROC_NULL). */
static void separate_and_proc_null(void) {
  MPI_Request any;
  int sink = 0;
  CHECK_OK(MPI_Irecv(&sink, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &any));
  int v = 17, w = 0;
  MPI_Request req[2];
  CHECK_OK(MPI_Psend_init(&v, 1, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &req[0]));
  CHECK_OK(MPI_Precv_init(&w, 1, 1, MPI_INT, 0, 3, MPI_COMM_SELF, MPI_INFO_NULL, &req[1]));
  CHECK_OK(MPI_Startall(2, req));
  CHECK_OK(MPI_Pready(0, req[0]));
  CHECK_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  CHECK(w == 17);
  int flag = 1;
  CHECK_OK(MPI_Test(&any, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0);
  CHECK_OK(MPI_Cancel(&any));
  CHECK_OK(MPI_Wait(&any, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Request_free(&req[0]));
  CHECK_OK(MPI_Request_free(&req[1]));

  CHECK_OK(MPI_Psend_init(&v, 2, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_OK(MPI_Precv_init(&w, 2, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_OK(MPI_Startall(2, req));
  CHECK_OK(MPI_Pready_range(0, 1, req[0]));
  CHECK_OK(MPI_Parrived(req[1], 1, &flag));
  CHECK(flag == 1);
  MPI_Status st;
  CHECK_OK(MPI_Wait(&req[1], &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  CHECK_OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Request_free(&req[0]));
  CHECK_OK(MPI_Request_free(&req[1]));
}

static void errors(void) {
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  int v[4] = {1, 2, 3, 4}, w[4] = {0};
  MPI_Request s, r, plain;
  const MPI_Comm c = MPI_COMM_SELF;
  CHECK_CLASS(MPI_Psend_init(v, 0, 1, MPI_INT, 0, 1, c, MPI_INFO_NULL, &s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Psend_init(v, 2, -1, MPI_INT, 0, 1, c, MPI_INFO_NULL, &s), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Precv_init(w, 1 << 20, 1 << 12, MPI_INT, 0, 1, c, MPI_INFO_NULL, &r), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Precv_init(w, 2, 2, MPI_INT, MPI_ANY_SOURCE, 1, c, MPI_INFO_NULL, &r), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Precv_init(w, 2, 2, MPI_INT, 0, MPI_ANY_TAG, c, MPI_INFO_NULL, &r), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Psend_init(v, 2, 2, MPI_INT, 5, 1, c, MPI_INFO_NULL, &s), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Psend_init(v, 2, 2, MPI_DATATYPE_NULL, 0, 1, c, MPI_INFO_NULL, &s), MPI_ERR_TYPE);

  CHECK_OK(MPI_Psend_init(v, 4, 1, MPI_INT, 0, 9, c, MPI_INFO_NULL, &s));
  CHECK_OK(MPI_Precv_init(w, 2, 2, MPI_INT, 0, 9, c, MPI_INFO_NULL, &r));
  CHECK_CLASS(MPI_Pready(0, s), MPI_ERR_REQUEST); /* inactive */
  CHECK_OK(MPI_Start(&r));
  CHECK_OK(MPI_Start(&s));
  CHECK_CLASS(MPI_Start(&s), MPI_ERR_REQUEST); /* already active */
  CHECK_CLASS(MPI_Pready(4, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pready(-1, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST); /* a receive */
  CHECK_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Irecv(w, 1, MPI_INT, 0, 77, c, &plain), MPI_SUCCESS);
  CHECK_CLASS(MPI_Pready(0, plain), MPI_ERR_REQUEST); /* not partitioned */
  int flag = 0;
  CHECK_CLASS(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST); /* a send */
  CHECK_CLASS(MPI_Parrived(plain, 0, &flag), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Parrived(r, 2, &flag), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Parrived(r, 0, NULL), MPI_ERR_ARG);
  CHECK_OK(MPI_Cancel(&plain));
  CHECK_OK(MPI_Wait(&plain, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Pready(1, s));
  CHECK_CLASS(MPI_Pready(1, s), MPI_ERR_ARG); /* twice in one epoch */
  CHECK_CLASS(MPI_Pready_range(2, 1, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pready_range(-1, 0, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pready_range(2, 4, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pready_range(0, 1, s), MPI_ERR_ARG); /* 1 already ready */
  int dup[2] = {2, 2};
  CHECK_CLASS(MPI_Pready_list(2, dup, s), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pready_list(-1, dup, s), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pready_list(1, NULL, s), MPI_ERR_ARG);
  /* The refused calls marked nothing: partition 2 is still free. */
  CHECK_CLASS(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_ERR_REQUEST); /* would never return */
  CHECK_OK(MPI_Parrived(r, 0, &flag));
  CHECK(flag == 0);
  int rest[3] = {3, 2, 0};
  CHECK_OK(MPI_Pready_list(3, rest, s));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; ++i) CHECK(w[i] == v[i]);
  CHECK_OK(MPI_Request_free(&s));
  CHECK_OK(MPI_Request_free(&r));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  exchange(8, 16, 8, 16, kReverse, 1, 1);        /* equal partitions */
  exchange(4, 32, 16, 8, kShuffled, 3, 2);       /* coarser sender */
  exchange(16, 8, 2, 64, kForward, 2, 3);        /* finer sender */
  exchange(7, 3, 21, 1, kRangeList, 4, 4);       /* range + list, odd counts */
  exchange(1, 1000, 10, 100, kReverse, 2, 5);    /* one send partition */
  exchange(64, 1024, 32, 2048, kShuffled, 2, 6); /* 256 KiB: past the eager limit */
  derived();
  separate_and_proc_null();
  errors();
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
