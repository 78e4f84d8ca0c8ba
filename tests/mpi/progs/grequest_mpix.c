/* MPICH's extensions Lapis provides for programs built against MPICH:
 * generalized requests that progress themselves (MPIX_Grequest_start with a
 * poll_fn or a wait_fn, MPIX_Grequest_class_create / _allocate), completed
 * through each Wait/Test form, a failing poll_fn, and the GPU queries; with
 * their bad arguments. Each rank works alone (MPI_COMM_SELF requests). */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"

/* A request's state: its handle (for MPI_Grequest_complete from a callback)
 * and how often poll_fn ran; it completes on the `after`-th poll. */
typedef struct {
  MPI_Request self;
  int polls, after, waits, queried, freed;
  int poll_error;
} Job;

static int job_query(void* extra, MPI_Status* st) {
  Job* j = extra;
  ++j->queried;
  MPI_Status_set_elements(st, MPI_BYTE, j->polls);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = 42;
  return MPI_SUCCESS;
}
static int job_free(void* extra) {
  ++((Job*)extra)->freed;
  return MPI_SUCCESS;
}
static int job_cancel(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}
static int job_poll(void* extra, MPI_Status* st) {
  (void)st;
  Job* j = extra;
  if (j->poll_error != MPI_SUCCESS) return j->poll_error;
  if (++j->polls == j->after) CHECK_OK(MPI_Grequest_complete(j->self));
  return MPI_SUCCESS;
}
/* Blocks until the requests complete (here: completes them at once). */
static int job_wait(int count, void** states, double timeout, MPI_Status* st) {
  (void)timeout;
  (void)st;
  for (int i = 0; i < count; ++i) {
    Job* j = states[i];
    ++j->waits;
    CHECK_OK(MPI_Grequest_complete(j->self));
  }
  return MPI_SUCCESS;
}

static void start(MPIX_Grequest_poll_function* poll, MPIX_Grequest_wait_function* wait, int after,
                  Job* j) {
  Job fresh = {MPI_REQUEST_NULL, 0, after, 0, 0, 0, MPI_SUCCESS};
  *j = fresh;
  CHECK_OK(MPIX_Grequest_start(job_query, job_free, job_cancel, poll, wait, j, &j->self));
}

static void polled(void) {
  Job j;
  MPI_Status st;
  int count = -1, flag = 0;
  /* MPI_Wait blocks: only its idle polls can complete the request. */
  start(job_poll, NULL, 50, &j);
  MPI_Request r = j.self;
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL && j.polls == 50 && j.queried == 1 && j.freed == 1);
  CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 50 && st.MPI_TAG == 42);
  /* MPI_Test polls once per call. */
  start(job_poll, NULL, 3, &j);
  r = j.self;
  int tests = 0;
  while (!flag) {
    CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    ++tests;
  }
  CHECK(j.polls == 3 && tests >= 3 && r == MPI_REQUEST_NULL && j.freed == 1);
  /* Waitany and Waitsome among other requests, Request_get_status. */
  Job a, b;
  start(job_poll, NULL, 10, &a);
  start(job_poll, NULL, 1000000, &b);
  MPI_Request rs[3] = {MPI_REQUEST_NULL, a.self, b.self};
  int index = -1, outcount = 0, indices[3];
  CHECK_OK(MPI_Waitany(3, rs, &index, MPI_STATUS_IGNORE));
  CHECK(index == 1 && a.polls == 10 && rs[1] == MPI_REQUEST_NULL && b.polls >= 10);
  b.after = b.polls + 5;
  CHECK_OK(MPI_Waitsome(3, rs, &outcount, indices, MPI_STATUSES_IGNORE));
  CHECK(outcount == 1 && indices[0] == 2 && b.polls == b.after && b.freed == 1);
  start(job_poll, NULL, 2, &a);
  flag = 0;
  while (!flag) CHECK_OK(MPI_Request_get_status(a.self, &flag, MPI_STATUS_IGNORE));
  CHECK(a.polls == 2 && a.freed == 0);
  CHECK_OK(MPI_Wait(&a.self, MPI_STATUS_IGNORE));
  CHECK(a.freed == 1);
  /* Complete, then freed without a wait: free_fn runs, poll_fn never again. */
  start(job_poll, NULL, 1, &a);
  flag = 0;
  while (!flag) CHECK_OK(MPI_Request_get_status(a.self, &flag, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Request_free(&a.self));
  start(job_poll, NULL, 4, &b);
  CHECK_OK(MPI_Wait(&b.self, MPI_STATUS_IGNORE));
  CHECK(a.freed == 1 && a.polls == 1 && a.queried == 0 && b.polls == 4);
}

static void waited(void) {
  Job j, k;
  start(NULL, job_wait, 0, &j);
  CHECK_OK(MPI_Wait(&j.self, MPI_STATUS_IGNORE));
  CHECK(j.waits == 1 && j.queried == 1 && j.freed == 1);
  start(NULL, job_wait, 0, &j);
  start(job_poll, job_wait, 1000000, &k);
  MPI_Request rs[2] = {j.self, k.self};
  CHECK_OK(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
  CHECK(j.waits == 1 && k.waits == 1 && j.freed == 1 && k.freed == 1);
}

static void classes(void) {
  MPIX_Grequest_class c;
  CHECK_OK(MPIX_Grequest_class_create(job_query, job_free, job_cancel, job_poll, NULL, &c));
  Job a = {MPI_REQUEST_NULL, 0, 7, 0, 0, 0, MPI_SUCCESS};
  Job b = {MPI_REQUEST_NULL, 0, 9, 0, 0, 0, MPI_SUCCESS};
  CHECK_OK(MPIX_Grequest_class_allocate(c, &a, &a.self));
  CHECK_OK(MPIX_Grequest_class_allocate(c, &b, &b.self));
  MPI_Request rs[2] = {a.self, b.self};
  MPI_Status sts[2];
  CHECK_OK(MPI_Waitall(2, rs, sts));
  int n0 = -1, n1 = -1;
  CHECK_OK(MPI_Get_count(&sts[0], MPI_BYTE, &n0));
  CHECK_OK(MPI_Get_count(&sts[1], MPI_BYTE, &n1));
  CHECK(a.polls == 7 && b.polls == 9 && n0 == 7 && n1 == 9 && a.freed == 1 && b.freed == 1);
}

static void failures(void) {
  /* A poll_fn that fails ends its request with its error. */
  Job j;
  start(job_poll, NULL, 1000000, &j);
  j.poll_error = MPI_ERR_OTHER;
  CHECK_CLASS(MPI_Wait(&j.self, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
  CHECK(j.self == MPI_REQUEST_NULL && j.freed == 1 && j.queried == 0);
  MPI_Request r = MPI_REQUEST_NULL;
  MPIX_Grequest_class c;
  CHECK_CLASS(MPIX_Grequest_start(job_query, job_free, job_cancel, job_poll, NULL, &j, NULL),
              MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Grequest_class_create(job_query, job_free, job_cancel, job_poll, NULL, NULL),
              MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Grequest_class_allocate(0, &j, &r), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Grequest_class_allocate(-1, &j, &r), MPI_ERR_ARG);
  CHECK(r == MPI_REQUEST_NULL);
  CHECK_OK(MPIX_Grequest_class_create(NULL, NULL, NULL, NULL, NULL, &c));
  CHECK_CLASS(MPIX_Grequest_class_allocate(c, &j, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Grequest_class_allocate(c + 1, &j, &r), MPI_ERR_ARG);
}

static void gpu_queries(void) {
  int yes = -1;
  CHECK_OK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes));
  CHECK(yes == 0);
  yes = -1;
  CHECK_OK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &yes));
  CHECK(yes == 0);
  yes = -1;
  CHECK_OK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &yes));
  CHECK(yes == 0);
  CHECK(MPIX_Query_cuda_support() == 0 && MPIX_Query_ze_support() == 0);
  CHECK(MPIX_Query_hip_support() == 0);
  CHECK_CLASS(MPIX_GPU_query_support(3, &yes), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_GPU_query_support(-1, &yes), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, NULL), MPI_ERR_ARG);
}

int main(int argc, char** argv) {
  /* GREQUEST_MULTIPLE=1: at MPI_THREAD_MULTIPLE, whose waits drop the lock in the same hook. */
  const char* multiple = getenv("GREQUEST_MULTIPLE");
  const int level = multiple && multiple[0] == '1' ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
  int provided = -1;
  CHECK_OK(MPI_Init_thread(&argc, &argv, level, &provided));
  CHECK(provided == level);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  polled();
  waited();
  classes();
  failures();
  gpu_queries();
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
