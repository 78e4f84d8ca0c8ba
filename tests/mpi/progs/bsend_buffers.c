/* MPI 4.1's buffered-send buffers: MPI_Buffer_flush and _iflush, a
 * communicator's and a session's buffer (which take precedence over the
 * process's), MPI_BUFFER_AUTOMATIC, the large-count forms, the implicit
 * detach of MPI_Comm_free and MPI_Session_finalize, and bad arguments.
 * Every message's bytes are checked. Runs on 2 or more ranks (the extra
 * ones only take part in the collective calls). With the argument "fatal":
 * a second buffer attached to MPI_COMM_WORLD under MPI_ERRORS_ARE_FATAL,
 * whose message the test reads. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pattern.h"

enum { kBig = 300000 }; /* beyond the eager limit (128 KiB): held until received */

static int rank, size;

static void recv_checked(MPI_Comm comm, int source, int tag, size_t n, int seed) {
  unsigned char* in = malloc(n + 1);
  MPI_Status st;
  CHECK_OK(MPI_Recv(in, (int)n, MPI_BYTE, source, tag, comm, &st));
  int got = -1;
  CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &got));
  CHECK(got == (int)n);
  CHECK(matches(in, n, seed));
  free(in);
}

/* MPICH's pt2pt/bsend_iflush, with checks that can fail: a buffer that
 * holds one message refuses a second; the flush is not done until the
 * message was received; after it the buffer takes one again. Self-sends,
 * so the receive is under the test's control; eager-sized too (a
 * self-message stays in the buffer until received). */
static void iflush_self(int n) {
  int bufsize = MPI_BSEND_OVERHEAD + n;
  char* pool = malloc(bufsize);
  unsigned char* out = malloc(n);
  CHECK_OK(MPI_Buffer_attach(pool, bufsize));
  fill(out, n, 1);
  CHECK_OK(MPI_Bsend(out, n, MPI_BYTE, 0, 1, MPI_COMM_SELF));
  memset(out, 0xee, n);
  CHECK_CLASS(MPI_Bsend(out, n, MPI_BYTE, 0, 1, MPI_COMM_SELF), MPI_ERR_BUFFER);
  MPI_Request flush;
  int done = 1;
  CHECK_OK(MPI_Buffer_iflush(&flush));
  for (int i = 0; i < 3; ++i) {
    CHECK_OK(MPI_Test(&flush, &done, MPI_STATUS_IGNORE));
    CHECK(!done); /* the message is still in the buffer */
  }
  recv_checked(MPI_COMM_SELF, 0, 1, n, 1);
  CHECK_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  CHECK(flush == MPI_REQUEST_NULL);
  fill(out, n, 2);
  CHECK_OK(MPI_Bsend(out, n, MPI_BYTE, 0, 2, MPI_COMM_SELF));
  recv_checked(MPI_COMM_SELF, 0, 2, n, 2);
  /* An empty buffer flushes at once, blocking or not. */
  CHECK_OK(MPI_Buffer_flush());
  CHECK_OK(MPI_Buffer_iflush(&flush));
  CHECK_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  void* back = NULL;
  int back_size = 0;
  CHECK_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == pool && back_size == bufsize);
  free(pool);
  free(out);
}

/* A flush waits for the messages in the buffer when it began, not for
 * later ones: rank 0 sends A, starts a flush, sends B; rank 1 takes A only,
 * then tells rank 0, which must see the flush done while B is still held. */
static void iflush_ignores_later(void) {
  if (rank > 1) return;
  int bufsize = 2 * (MPI_BSEND_OVERHEAD + kBig);
  char* pool = malloc(bufsize);
  unsigned char* out = malloc(kBig);
  int ack = 0;
  if (rank == 0) {
    CHECK_OK(MPI_Buffer_attach(pool, bufsize));
    fill(out, kBig, 3);
    CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    MPI_Request flush;
    CHECK_OK(MPI_Buffer_iflush(&flush));
    fill(out, kBig, 4);
    CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 4, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(&ack, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE)); /* B is not received yet */
    CHECK_OK(MPI_Send(&ack, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
    void* back = NULL;
    int back_size = 0;
    CHECK_OK(MPI_Buffer_detach(&back, &back_size)); /* waits for B */
    CHECK(back == pool && back_size == bufsize);
  } else {
    recv_checked(MPI_COMM_WORLD, 0, 3, kBig, 3);
    CHECK_OK(MPI_Send(&ack, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    CHECK_OK(MPI_Recv(&ack, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    recv_checked(MPI_COMM_WORLD, 0, 4, kBig, 4);
  }
  free(pool);
  free(out);
}

/* A communicator's buffer serves its sends (the process has none); others
 * still have none; a second attach is refused; flush and detach. */
static void comm_buffer(void) {
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int bufsize = 3 * (MPI_BSEND_OVERHEAD + kBig);
  char* pool = malloc(bufsize);
  unsigned char* out = malloc(kBig);
  CHECK_OK(MPI_Comm_attach_buffer(dup, pool, bufsize));
  CHECK_CLASS(MPI_Comm_attach_buffer(dup, pool, bufsize), MPI_ERR_BUFFER);
  if (rank == 0) {
    CHECK_CLASS(MPI_Bsend(out, 10, MPI_BYTE, 1, 7, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    for (int i = 0; i < 3; ++i) {
      fill(out, kBig, 10 + i);
      CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 7, dup));
    }
    CHECK_OK(MPI_Comm_flush_buffer(dup)); /* rank 1 receives them */
    MPI_Request r;
    fill(out, kBig, 13);
    CHECK_OK(MPI_Ibsend(out, kBig, MPI_BYTE, 1, 7, dup, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Comm_iflush_buffer(dup, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  } else if (rank == 1) {
    for (int i = 0; i < 4; ++i) recv_checked(dup, 0, 7, kBig, 10 + i);
  }
  void* back = NULL;
  int back_size = 0;
  CHECK_OK(MPI_Comm_detach_buffer(dup, &back, &back_size));
  CHECK(back == pool && back_size == bufsize);
  /* Nothing attached: NULL and 0; flushes return at once. */
  CHECK_OK(MPI_Comm_detach_buffer(dup, &back, &back_size));
  CHECK(back == NULL && back_size == 0);
  CHECK_OK(MPI_Comm_flush_buffer(dup));
  MPI_Request r;
  CHECK_OK(MPI_Comm_iflush_buffer(dup, &r));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Comm_free(&dup));
  free(pool);
  free(out);
}

/* The communicator's buffer comes before the process's: a message too big
 * for the process's fits the communicator's, and a dup of the
 * communicator (which inherits no buffer) uses the process's. */
static void precedence(void) {
  int small = MPI_BSEND_OVERHEAD + 16;
  int big = MPI_BSEND_OVERHEAD + kBig;
  char* process_pool = malloc(small);
  char* comm_pool = malloc(big);
  unsigned char* out = malloc(kBig);
  MPI_Comm dup, dup2;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_OK(MPI_Buffer_attach(process_pool, small));
  CHECK_OK(MPI_Comm_attach_buffer(dup, comm_pool, big));
  CHECK_OK(MPI_Comm_dup(dup, &dup2));
  CHECK_OK(MPI_Comm_set_errhandler(dup2, MPI_ERRORS_RETURN));
  if (rank == 0) {
    fill(out, kBig, 20);
    CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 8, dup));
    CHECK_CLASS(MPI_Bsend(out, kBig, MPI_BYTE, 1, 8, dup2), MPI_ERR_BUFFER);
    fill(out, 16, 21);
    CHECK_OK(MPI_Bsend(out, 16, MPI_BYTE, 1, 9, dup2));
  } else if (rank == 1) {
    recv_checked(dup, 0, 8, kBig, 20);
    recv_checked(dup2, 0, 9, 16, 21);
  }
  void* back = NULL;
  int back_size = 0;
  CHECK_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == process_pool && back_size == small);
  /* MPI_Comm_free detaches the communicator's buffer. */
  CHECK_OK(MPI_Comm_free(&dup));
  CHECK_OK(MPI_Comm_free(&dup2));
  free(process_pool);
  free(comm_pool);
  free(out);
}

/* MPI_BUFFER_AUTOMATIC: any number of messages of any size, none received
 * until all were sent; detach gives MPI_BUFFER_AUTOMATIC back. Also in the
 * large-count forms, and for a communicator. */
static void automatic(int large_count, int on_comm) {
  enum { kMessages = 40 };
  MPI_Comm comm = MPI_COMM_WORLD;
  if (on_comm) CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  if (on_comm && large_count) {
    CHECK_OK(MPI_Comm_attach_buffer_c(comm, MPI_BUFFER_AUTOMATIC, 0));
  } else if (on_comm) {
    CHECK_OK(MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0));
  } else if (large_count) {
    CHECK_OK(MPI_Buffer_attach_c(MPI_BUFFER_AUTOMATIC, 0));
  } else {
    CHECK_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  }
  unsigned char* out = malloc(kBig);
  int ack = 0;
  if (rank == 0) {
    for (int i = 0; i < kMessages; ++i) {
      size_t n = (size_t)(i * 2503) % kBig;
      fill(out, n, 30 + i);
      CHECK_OK(MPI_Bsend(out, (int)n, MPI_BYTE, 1, 10, comm));
    }
    CHECK_OK(MPI_Send(&ack, 1, MPI_INT, 1, 11, comm));
  } else if (rank == 1) {
    CHECK_OK(MPI_Recv(&ack, 1, MPI_INT, 0, 11, comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < kMessages; ++i) recv_checked(comm, 0, 10, (size_t)(i * 2503) % kBig, 30 + i);
  }
  void* back = NULL;
  if (large_count) {
    MPI_Count back_size = -1;
    if (on_comm) {
      CHECK_OK(MPI_Comm_detach_buffer_c(comm, &back, &back_size));
    } else {
      CHECK_OK(MPI_Buffer_detach_c(&back, &back_size));
    }
    CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0);
  } else {
    int back_size = -1;
    if (on_comm) {
      CHECK_OK(MPI_Comm_detach_buffer(comm, &back, &back_size));
    } else {
      CHECK_OK(MPI_Buffer_detach(&back, &back_size));
    }
    CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0);
  }
  if (on_comm) CHECK_OK(MPI_Comm_free(&comm));
  free(out);
}

/* A session's buffer serves the communicators made from its groups; the
 * communicator's own still comes first; finalizing the session detaches. */
static void session_buffer(void) {
  MPI_Session session;
  MPI_Group group;
  MPI_Comm comm, dup;
  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  CHECK_OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  CHECK_OK(MPI_Comm_create_from_group(group, "bsend_buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                      &comm));
  CHECK_OK(MPI_Comm_dup(comm, &dup)); /* derived: the session's buffer too */
  int bufsize = MPI_BSEND_OVERHEAD + kBig;
  char* pool = malloc(bufsize);
  unsigned char* out = malloc(kBig);
  CHECK_CLASS(MPI_Bsend(out, 10, MPI_BYTE, 0, 12, comm), MPI_ERR_BUFFER);
  CHECK_OK(MPI_Session_attach_buffer_c(session, pool, bufsize));
  CHECK_CLASS(MPI_Session_attach_buffer(session, pool, bufsize), MPI_ERR_BUFFER);
  if (rank == 0) {
    fill(out, kBig, 40);
    CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 12, dup));
    MPI_Request r;
    CHECK_OK(MPI_Session_iflush_buffer(session, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE)); /* rank 1 received it */
    fill(out, kBig, 41);
    CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 13, comm));
    CHECK_OK(MPI_Session_flush_buffer(session));
  } else if (rank == 1) {
    recv_checked(dup, 0, 12, kBig, 40);
    recv_checked(comm, 0, 13, kBig, 41);
  }
  void* back = NULL;
  MPI_Count back_size = 0;
  CHECK_OK(MPI_Session_detach_buffer_c(session, &back, &back_size));
  CHECK(back == pool && back_size == bufsize);
  /* Attached again, then left to MPI_Session_finalize, with a message in it. */
  CHECK_OK(MPI_Session_attach_buffer(session, MPI_BUFFER_AUTOMATIC, 0));
  if (rank == 0) {
    fill(out, kBig, 42);
    CHECK_OK(MPI_Bsend(out, kBig, MPI_BYTE, 1, 14, comm));
  } else if (rank == 1) {
    recv_checked(comm, 0, 14, kBig, 42);
  }
  CHECK_OK(MPI_Comm_free(&dup));
  CHECK_OK(MPI_Comm_free(&comm));
  CHECK_OK(MPI_Group_free(&group));
  CHECK_OK(MPI_Session_finalize(&session));
  free(pool);
  free(out);
}

static void bad_arguments(void) {
  char pool[64];
  void* back = NULL;
  int back_size = 0;
  MPI_Request r;
  CHECK_CLASS(MPI_Buffer_attach(pool, -1), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Buffer_attach(NULL, 64), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Buffer_attach_c(pool, (MPI_Count)1 << 40), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Buffer_iflush(NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Buffer_detach(NULL, &back_size), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Buffer_detach(&back, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_attach_buffer(MPI_COMM_NULL, pool, 64), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_detach_buffer(MPI_COMM_NULL, &back, &back_size), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_iflush_buffer(MPI_COMM_NULL, &r), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_iflush_buffer(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_attach_buffer(MPI_SESSION_NULL, pool, 64), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_flush_buffer(MPI_SESSION_NULL), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_iflush_buffer(MPI_SESSION_NULL, &r), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_detach_buffer(MPI_SESSION_NULL, &back, &back_size), MPI_ERR_SESSION);
  /* Each communicator and session call checks its other arguments too, and the _c forms. */
  MPI_Count back_count = 0;
  CHECK_CLASS(MPI_Comm_attach_buffer(MPI_COMM_WORLD, NULL, 64), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Comm_attach_buffer(MPI_COMM_WORLD, pool, -1), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Comm_detach_buffer(MPI_COMM_WORLD, NULL, &back_size), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &back, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_attach_buffer_c(MPI_COMM_NULL, pool, 64), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, pool, (MPI_Count)1 << 40), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Comm_detach_buffer_c(MPI_COMM_NULL, &back, &back_count), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &back, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_attach_buffer_c(MPI_SESSION_NULL, pool, 64), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_detach_buffer_c(MPI_SESSION_NULL, &back, &back_count), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Buffer_detach_c(&back, NULL), MPI_ERR_ARG);
  /* None of them attached anything. */
  CHECK_OK(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &back, &back_size));
  CHECK(back == NULL && back_size == 0);
  CHECK_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == NULL && back_size == 0);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    CHECK_OK(MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 0));
    MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 0); /* ends the job */
    printf("FAILED: MPI_Comm_attach_buffer returned\n");
    return 1;
  }
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  iflush_self(1000);
  iflush_self(kBig);
  iflush_ignores_later();
  comm_buffer();
  precedence();
  for (int large_count = 0; large_count < 2; ++large_count) {
    for (int on_comm = 0; on_comm < 2; ++on_comm) automatic(large_count, on_comm);
  }
  session_buffer();
  bad_arguments();
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
