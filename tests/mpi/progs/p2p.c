/* Point-to-point through the MPI layer: every send mode blocking and
 * nonblocking, sizes across the eager limit, ring, self and zero-byte
 * messages, MPI_PROC_NULL, wildcards, Sendrecv(_replace), the Wait and Test
 * families, persistent requests. Runs on any number of ranks. */
#include <mpi.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pattern.h"

static int rank, size;

/* Ring: everyone sends to the right and receives from the left. */
static void ring(size_t bytes, int mode) {
  unsigned char* out = malloc(bytes + 1);
  unsigned char* in = malloc(bytes + 1);
  fill(out, bytes, rank);
  memset(in, 0, bytes + 1);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request rr, sr;
  MPI_Status st;
  CHECK_OK(MPI_Irecv(in, (int)bytes, MPI_BYTE, left, 11, MPI_COMM_WORLD, &rr));
  switch (mode) {
    case 0: CHECK_OK(MPI_Isend(out, (int)bytes, MPI_BYTE, right, 11, MPI_COMM_WORLD, &sr)); break;
    case 1: CHECK_OK(MPI_Issend(out, (int)bytes, MPI_BYTE, right, 11, MPI_COMM_WORLD, &sr)); break;
    default:
      /* Ready mode: the receive must be posted everywhere first. */
      CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_OK(MPI_Irsend(out, (int)bytes, MPI_BYTE, right, 11, MPI_COMM_WORLD, &sr));
      break;
  }
  CHECK_OK(MPI_Wait(&rr, &st));
  CHECK(rr == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
  int count = -1;
  CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == (int)bytes);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 11);
  CHECK(matches(in, bytes, left));
  free(out);
  free(in);
}

/* Blocking ping-pong between rank 0 and every other rank in each mode. */
static void pingpong(size_t bytes) {
  unsigned char* buf = malloc(bytes + 1);
  for (int peer = 1; peer < size; ++peer) {
    for (int mode = 0; mode < 3; ++mode) {
      if (rank == 0) {
        fill(buf, bytes, peer + mode);
        if (mode == 0) CHECK_OK(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD));
        if (mode == 1) CHECK_OK(MPI_Ssend(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD));
        if (mode == 2) CHECK_OK(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD));
        memset(buf, 0, bytes);
        CHECK_OK(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(matches(buf, bytes, peer + mode + 1));
      } else if (rank == peer) {
        CHECK_OK(MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, mode, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(matches(buf, bytes, peer + mode));
        fill(buf, bytes, peer + mode + 1);
        CHECK_OK(MPI_Send(buf, (int)bytes, MPI_BYTE, 0, mode, MPI_COMM_WORLD));
      }
    }
  }
  free(buf);
}

static void buffered(void) {
  int attach_size = 4 * (1 << 16) + 8 * MPI_BSEND_OVERHEAD;
  char* pool = malloc(attach_size);
  CHECK_OK(MPI_Buffer_attach(pool, attach_size));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char* out = malloc(1 << 16);
  unsigned char* in = malloc(1 << 16);
  for (int i = 0; i < 3; ++i) {
    fill(out, 1 << 16, rank + i);
    CHECK_OK(MPI_Bsend(out, 1 << 16, MPI_BYTE, right, 20 + i, MPI_COMM_WORLD));
    /* The buffer is ours again at once. */
    memset(out, 0xee, 1 << 16);
  }
  MPI_Request r;
  fill(out, 100, rank + 9);
  CHECK_OK(MPI_Ibsend(out, 100, MPI_BYTE, right, 30, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 2; i >= 0; --i) {
    CHECK_OK(MPI_Recv(in, 1 << 16, MPI_BYTE, left, 20 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(matches(in, 1 << 16, left + i));
  }
  CHECK_OK(MPI_Recv(in, 100, MPI_BYTE, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(matches(in, 100, left + 9));
  void* back = NULL;
  int back_size = 0;
  CHECK_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == pool && back_size == attach_size);
  free(pool);
  free(out);
  free(in);
}

/* An attached buffer that holds exactly one round of messages serves
 * round after round: once the receiver has taken a round and a barrier
 * has passed, those messages have left it, even if the sender made no
 * call since that polled for their completions (MPI_Bsend failed with
 * MPI_ERR_BUFFER in most runs of MPICH's mt_bsendrecv_huge). Even ranks
 * send to the next odd one, which only receives. */
static void buffered_rounds(void) {
  enum { kMessages = 4, kBytes = 1 << 18 };
  const int sender = rank % 2 == 0 && rank + 1 < size, receiver = rank % 2 == 1;
  int attach_size = kMessages * (kBytes + MPI_BSEND_OVERHEAD);
  char* pool = malloc(attach_size);
  unsigned char* data = malloc((size_t)kMessages * kBytes);
  CHECK_OK(MPI_Buffer_attach(pool, attach_size));
  for (int round = 0; round < 4; ++round) {
    int ack = 0;
    if (sender) fill(data, kBytes, rank + round);
    for (int i = 0; i < kMessages; ++i) {
      if (sender) CHECK_OK(MPI_Bsend(data, kBytes, MPI_BYTE, rank + 1, 40, MPI_COMM_WORLD));
      if (receiver) {  /* checked after the barrier: a slow receiver hid the bug */
        CHECK_OK(MPI_Recv(data + (size_t)i * kBytes, kBytes, MPI_BYTE, rank - 1, 40, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
      }
    }
    if (sender) CHECK_OK(MPI_Send(&ack, 1, MPI_INT, rank + 1, 41, MPI_COMM_WORLD));
    if (receiver) CHECK_OK(MPI_Recv(&ack, 1, MPI_INT, rank - 1, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; receiver && i < kMessages; ++i) CHECK(matches(data + (size_t)i * kBytes, kBytes, rank - 1 + round));
  }
  void* back = NULL;
  int back_size = 0;
  CHECK_OK(MPI_Buffer_detach(&back, &back_size));
  free(pool);
  free(data);
}

static void self_and_null(void) {
  int v = 42, w = 0;
  MPI_Status st;
  /* A message to myself: post the send first, then receive. */
  MPI_Request r;
  CHECK_OK(MPI_Isend(&v, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Recv(&w, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &st));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(w == 42 && st.MPI_SOURCE == rank);
  CHECK_OK(MPI_Isend(&v, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &r));
  CHECK_OK(MPI_Recv(&w, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &st));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  /* Zero bytes, also with a NULL buffer. */
  CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_INT, rank, 7, NULL, 0, MPI_INT, rank, 7, MPI_COMM_WORLD, &st));
  int count = -1;
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0 && st.MPI_TAG == 7);
  /* MPI_PROC_NULL completes at once with the special status. */
  CHECK_OK(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  w = 5;
  CHECK_OK(MPI_Recv(&w, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  CHECK(w == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0);
  CHECK_OK(MPI_Irecv(&w, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  int flag = 0;
  CHECK_OK(MPI_Test(&r, &flag, &st));
  CHECK(flag && r == MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_PROC_NULL);
  /* Nothing moves to or from MPI_PROC_NULL, however large the count: the
   * buffer is neither copied nor touched (it used to copy count elements). */
  w = 9;
  CHECK_OK(MPI_Sendrecv_replace(&w, INT_MAX, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                                MPI_COMM_WORLD, &st));
  CHECK(w == 9 && st.MPI_SOURCE == MPI_PROC_NULL);
  /* With MPI_PROC_NULL even MPI_DATATYPE_NULL will do (MPICH's pt2pt/recvnull), blocking,
   * nonblocking and persistent; with a real peer it stays MPI_ERR_TYPE (errors.c). */
  CHECK_OK(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
  CHECK_OK(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD));
  CHECK_OK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
  CHECK_OK(MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Recv_init(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Start(&r));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  CHECK_OK(MPI_Request_free(&r));
  CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 1, NULL, 0, MPI_DATATYPE_NULL,
                        MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  /* Waiting on MPI_REQUEST_NULL is fine, and gives an empty status: source and tag
   * wildcards and MPI_SUCCESS in MPI_ERROR (MPI 3.1 section 3.7.3), whatever MPI_ERROR
   * held before. The same from MPI_Test and MPI_Request_get_status. */
  r = MPI_REQUEST_NULL;
  st.MPI_ERROR = -77;
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && st.MPI_ERROR == MPI_SUCCESS);
  st.MPI_ERROR = -77;
  flag = 0;
  CHECK_OK(MPI_Test(&r, &flag, &st));
  CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_ERROR == MPI_SUCCESS);
  st.MPI_ERROR = -77;
  flag = 0;
  CHECK_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
  CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && st.MPI_ERROR == MPI_SUCCESS);
}

static void wildcards_and_probe(void) {
  if (rank == 0) {
    /* Every other rank sends two messages; receive them by wildcards. */
    int got = 0;
    for (int i = 0; i < 2 * (size - 1); ++i) {
      MPI_Status st;
      int flag = 0;
      while (!flag) CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
      int n = 0;
      CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
      CHECK(n == st.MPI_TAG);
      int* buf = malloc(sizeof(int) * (n + 1));
      MPI_Status st2;
      CHECK_OK(MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
      CHECK(st2.MPI_SOURCE == st.MPI_SOURCE && buf[0] == st.MPI_SOURCE);
      free(buf);
      ++got;
    }
    CHECK(got == 2 * (size - 1));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* only now may tags 98/99 come */
    /* Matched probe: the message can only be received through the handle. */
    for (int i = 1; i < size; ++i) {
      MPI_Message msg;
      MPI_Status st;
      CHECK_OK(MPI_Mprobe(i, 99, MPI_COMM_WORLD, &msg, &st));
      int n = 0;
      CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
      CHECK(n == 3);
      double d[3];
      CHECK_OK(MPI_Mrecv(d, 3, MPI_DOUBLE, &msg, &st));
      CHECK(msg == MPI_MESSAGE_NULL && d[2] == i + 0.5);
    }
    for (int i = 1; i < size; ++i) {
      MPI_Message msg;
      MPI_Status st;
      int flag = 0;
      while (!flag) CHECK_OK(MPI_Improbe(MPI_ANY_SOURCE, 98, MPI_COMM_WORLD, &flag, &msg, &st));
      MPI_Request r;
      int v = 0;
      CHECK_OK(MPI_Imrecv(&v, 1, MPI_INT, &msg, &r));
      CHECK_OK(MPI_Wait(&r, &st));
      CHECK(v == st.MPI_SOURCE * 10);
    }
    MPI_Message msg;
    MPI_Status st;
    CHECK_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    CHECK_OK(MPI_Mrecv(NULL, 0, MPI_INT, &msg, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
  } else {
    int small[2] = {rank, 0};
    int* big = calloc(5000, sizeof(int));
    big[0] = rank;
    CHECK_OK(MPI_Send(small, 2, MPI_INT, 0, 2, MPI_COMM_WORLD));
    CHECK_OK(MPI_Send(big, 5000, MPI_INT, 0, 5000, MPI_COMM_WORLD));
    free(big);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    double d[3] = {0, 0, rank + 0.5};
    CHECK_OK(MPI_Send(d, 3, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD));
    int v = rank * 10;
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, 98, MPI_COMM_WORLD));
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Non-overtaking through the MPI layer: many sizes, one tag, in order. */
static void ordering(void) {
  const int n = 40;
  if (rank == 1 % size && size > 1) {
    for (int i = 0; i < n; ++i) {
      size_t bytes = (size_t)(i % 2 ? 100000 : 8);
      unsigned char* b = malloc(bytes);
      fill(b, bytes, i);
      CHECK_OK(MPI_Send(b, (int)bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
      free(b);
    }
  } else if (rank == 0 && size > 1) {
    unsigned char* b = malloc(100000);
    for (int i = 0; i < n; ++i) {
      MPI_Status st;
      CHECK_OK(MPI_Recv(b, 100000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int count;
      CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == (i % 2 ? 100000 : 8));
      CHECK(matches(b, (size_t)count, i));
    }
    free(b);
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void completion_families(void) {
  enum { kN = 6 };
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[kN], in[kN];
  MPI_Request reqs[2 * kN];
  MPI_Status sts[2 * kN];
  for (int i = 0; i < kN; ++i) {
    out[i] = rank * 100 + i;
    in[i] = -1;
    CHECK_OK(MPI_Irecv(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &reqs[i]));
  }
  for (int i = 0; i < kN; ++i) {
    CHECK_OK(MPI_Isend(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD, &reqs[kN + i]));
  }
  /* Waitany until all receives are in. */
  int seen = 0;
  for (int k = 0; k < kN; ++k) {
    int idx = -1;
    MPI_Status st;
    CHECK_OK(MPI_Waitany(kN, reqs, &idx, &st));
    CHECK(idx >= 0 && idx < kN && reqs[idx] == MPI_REQUEST_NULL);
    CHECK(st.MPI_TAG == idx && in[idx] == left * 100 + idx);
    seen |= 1 << idx;
  }
  CHECK(seen == (1 << kN) - 1);
  int idx = 0;
  CHECK_OK(MPI_Waitany(kN, reqs, &idx, MPI_STATUS_IGNORE));
  CHECK(idx == MPI_UNDEFINED);
  CHECK_OK(MPI_Waitall(kN, reqs + kN, sts));
  for (int i = 0; i < kN; ++i) CHECK(reqs[kN + i] == MPI_REQUEST_NULL);

  /* Waitsome / Testsome / Testall / Testany. */
  for (int i = 0; i < kN; ++i) {
    CHECK_OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 50 + i, MPI_COMM_WORLD, &reqs[i]));
  }
  int flag = 1;
  CHECK_OK(MPI_Testall(kN, reqs, &flag, MPI_STATUSES_IGNORE));
  if (size > 1) CHECK(!flag); /* nothing is sent before the barrier */
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < kN; ++i) {
    CHECK_OK(MPI_Send(&out[i], 1, MPI_INT, right, 50 + i, MPI_COMM_WORLD));
  }
  int done = 0;
  while (done < kN) {
    int outcount = 0, indices[kN];
    if (done % 2) {
      CHECK_OK(MPI_Testsome(kN, reqs, &outcount, indices, sts));
    } else {
      CHECK_OK(MPI_Waitsome(kN, reqs, &outcount, indices, sts));
      CHECK(outcount >= 1);
    }
    CHECK(outcount != MPI_UNDEFINED);
    for (int k = 0; k < outcount; ++k) {
      CHECK(in[indices[k]] == left * 100 + indices[k]);
      CHECK(sts[k].MPI_TAG == 50 + indices[k]);
    }
    done += outcount;
  }
  int outcount = 0, indices[kN];
  CHECK_OK(MPI_Waitsome(kN, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED);
  CHECK_OK(MPI_Testany(kN, reqs, &idx, &flag, MPI_STATUS_IGNORE));
  CHECK(flag && idx == MPI_UNDEFINED);
  CHECK_OK(MPI_Testall(kN, reqs, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag);

  /* Small sends (they usually complete inside MPI_Isend, with no engine
   * request behind them) through Request_get_status, Waitany and Waitsome.
   * Receives first: with LAPIS_EAGER_LIMIT=0 the sends need them. */
  MPI_Request* sends = reqs + kN;
  for (int i = 0; i < kN; ++i) {
    CHECK_OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 70 + i, MPI_COMM_WORLD, &reqs[i]));
  }
  for (int i = 0; i < kN; ++i) {
    CHECK_OK(MPI_Isend(&out[i], 1, MPI_INT, right, 70 + i, MPI_COMM_WORLD, &sends[i]));
  }
  do {
    CHECK_OK(MPI_Request_get_status(sends[0], &flag, &sts[0]));
  } while (!flag);
  CHECK(sends[0] != MPI_REQUEST_NULL && sts[0].MPI_ERROR == MPI_SUCCESS);
  CHECK_OK(MPI_Waitany(kN, sends, &idx, MPI_STATUS_IGNORE));
  CHECK(idx >= 0 && idx < kN && sends[idx] == MPI_REQUEST_NULL);
  for (int left_over = kN - 1; left_over > 0; left_over -= outcount) {
    CHECK_OK(MPI_Waitsome(kN, sends, &outcount, indices, sts));
    CHECK(outcount >= 1 && outcount <= left_over);
  }
  for (int i = 0; i < kN; ++i) CHECK(sends[i] == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Waitall(kN, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < kN; ++i) CHECK(in[i] == left * 100 + i);
}

/* A small send usually completes inside MPI_Isend, and all such sends share one completed
 * handle (as MPICH's lightweight and Open MPI's empty requests do). Every call that takes a
 * request must treat each copy on its own and leave the others usable: two rounds, so that a
 * call that spoiled the shared request in the first fails the second. */
static void sends_done_at_once(void) {
  enum { kN = 5 };
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[kN], in[kN];
  MPI_Request sends[kN], recvs[kN];
  MPI_Status st;
  int flag = 0, idx = -1;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kN; ++i) {
      out[i] = rank * 10 + i + round * 100;
      in[i] = -1;
      CHECK_OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 80 + i, MPI_COMM_WORLD, &recvs[i]));
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* receives posted: the sends can leave at once */
    for (int i = 0; i < kN; ++i) {
      CHECK_OK(MPI_Isend(&out[i], 1, MPI_INT, right, 80 + i, MPI_COMM_WORLD, &sends[i]));
      CHECK(sends[i] != MPI_REQUEST_NULL);
    }
    do {
      CHECK_OK(MPI_Test(&sends[0], &flag, &st));
    } while (!flag);
    CHECK(sends[0] == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Cancel(&sends[1])); /* too late: it completed */
    CHECK_OK(MPI_Wait(&sends[1], &st));
    CHECK(sends[1] == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag);
    CHECK_OK(MPI_Request_free(&sends[2]));
    CHECK(sends[2] == MPI_REQUEST_NULL);
    do {
      CHECK_OK(MPI_Request_get_status(sends[3], &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    CHECK(sends[3] != MPI_REQUEST_NULL); /* get_status leaves it */
    do {
      CHECK_OK(MPI_Testany(2, &sends[3], &idx, &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    CHECK(idx == 0 || idx == 1);
    CHECK(sends[3 + idx] == MPI_REQUEST_NULL);
    do {
      CHECK_OK(MPI_Testall(kN, sends, &flag, MPI_STATUSES_IGNORE));
    } while (!flag);
    for (int i = 0; i < kN; ++i) CHECK(sends[i] == MPI_REQUEST_NULL);
    CHECK_OK(MPI_Waitall(kN, recvs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < kN; ++i) CHECK(in[i] == left * 10 + i + round * 100);
  }
}

static void persistent(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out[4], in[4];
  MPI_Request reqs[2];
  CHECK_OK(MPI_Recv_init(in, 4, MPI_DOUBLE, left, 70, MPI_COMM_WORLD, &reqs[0]));
  CHECK_OK(MPI_Send_init(out, 4, MPI_DOUBLE, right, 70, MPI_COMM_WORLD, &reqs[1]));
  /* An inactive persistent request completes at once. */
  MPI_Status st;
  CHECK_OK(MPI_Wait(&reqs[0], &st));
  CHECK(reqs[0] != MPI_REQUEST_NULL);
  for (int iter = 0; iter < 5; ++iter) {
    for (int k = 0; k < 4; ++k) out[k] = rank + iter * 0.25 + k;
    CHECK_OK(MPI_Startall(2, reqs));
    CHECK_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL);
    for (int k = 0; k < 4; ++k) CHECK(in[k] == left + iter * 0.25 + k);
  }
  CHECK_OK(MPI_Start(&reqs[0]));
  CHECK_OK(MPI_Start(&reqs[1]));
  int flag = 0;
  while (!flag) CHECK_OK(MPI_Test(&reqs[0], &flag, &st));
  CHECK_OK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Request_free(&reqs[0]));
  CHECK_OK(MPI_Request_free(&reqs[1]));
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);

  /* Ssend_init / Bsend_init / Rsend_init once each. */
  int v = rank, w = -1;
  MPI_Request r2[2];
  CHECK_OK(MPI_Recv_init(&w, 1, MPI_INT, left, 71, MPI_COMM_WORLD, &r2[0]));
  CHECK_OK(MPI_Ssend_init(&v, 1, MPI_INT, right, 71, MPI_COMM_WORLD, &r2[1]));
  CHECK_OK(MPI_Startall(2, r2));
  CHECK_OK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
  CHECK(w == left);
  MPI_Request_free(&r2[1]);
  CHECK_OK(MPI_Start(&r2[0]));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD)); /* receives are posted everywhere */
  CHECK_OK(MPI_Rsend_init(&v, 1, MPI_INT, right, 71, MPI_COMM_WORLD, &r2[1]));
  CHECK_OK(MPI_Start(&r2[1]));
  CHECK_OK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
  MPI_Request_free(&r2[0]);
  MPI_Request_free(&r2[1]);
}

static void cancel_and_free(void) {
  int v = 0;
  MPI_Request r;
  MPI_Status st;
  /* Nobody sends with tag 999: the receive can be cancelled. */
  CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Cancel(&r));
  CHECK_OK(MPI_Wait(&r, &st));
  int flag = 0;
  CHECK_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag);
  /* A freed send still delivers. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank + 1000, in = 0;
  CHECK_OK(MPI_Isend(&out, 1, MPI_INT, right, 77, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Recv(&in, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &st));
  CHECK(in == left + 1000);
  CHECK_OK(MPI_Test_cancelled(&st, &flag));
  CHECK(!flag);
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void sendrecv(void) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  long out[3] = {rank, rank * 2, rank * 3}, in[3];
  MPI_Status st;
  CHECK_OK(MPI_Sendrecv(out, 3, MPI_LONG, right, 4, in, 3, MPI_LONG, left, 4, MPI_COMM_WORLD, &st));
  CHECK(in[2] == left * 3 && st.MPI_SOURCE == left);
  CHECK_OK(MPI_Sendrecv_replace(out, 3, MPI_LONG, right, 5, left, 5, MPI_COMM_WORLD, &st));
  CHECK(out[0] == left && out[1] == left * 2);
  CHECK_OK(MPI_Sendrecv(out, 3, MPI_LONG, MPI_PROC_NULL, 4, in, 3, MPI_LONG, MPI_PROC_NULL, 4,
                        MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
}

/* Single-completion calls leave status.MPI_ERROR alone (MPI 3.1 3.2.5). */
static void status_error_untouched(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank, in = -1, flag = 0;
  MPI_Status st;
  MPI_Request r;
  st.MPI_ERROR = 12345;
  CHECK_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 61, &in, 1, MPI_INT, left, 61, MPI_COMM_WORLD, &st));
  CHECK(in == left && st.MPI_ERROR == 12345);
  CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 62, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Send(&out, 1, MPI_INT, right, 62, MPI_COMM_WORLD));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(st.MPI_ERROR == 12345);
  MPI_Request r2;
  CHECK_OK(MPI_Isend(&out, 1, MPI_INT, right, 63, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Probe(left, 63, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_ERROR == 12345 && st.MPI_SOURCE == left);
  CHECK_OK(MPI_Recv(&in, 1, MPI_INT, left, 63, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_ERROR == 12345 && st.MPI_TAG == 63);
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, left, 64, MPI_COMM_WORLD, &r2));
  CHECK_OK(MPI_Isend(&out, 1, MPI_INT, right, 64, MPI_COMM_WORLD, &r));
  do {
    CHECK_OK(MPI_Test(&r2, &flag, &st));
  } while (!flag);
  CHECK(st.MPI_ERROR == 12345);
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  size_t sizes[] = {0, 1, 8, 1000, 16383, 16384, 16385, 100000, 1 << 20, 4 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    for (int mode = 0; mode < 3; ++mode) ring(sizes[i], mode);
  }
  for (size_t i = 0; i < 8; ++i) pingpong(sizes[i]);
  buffered();
  buffered_rounds();
  self_and_null();
  wildcards_and_probe();
  ordering();
  completion_families();
  sends_done_at_once();
  persistent();
  cancel_and_free();
  sendrecv();
  status_error_untouched();
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
