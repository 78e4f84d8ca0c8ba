/* MPI 4.1's non-destructive request queries (MPI_Request_get_status_any,
 * _all, _some beside MPI_Request_get_status), the status field accessors
 * (MPI_Status_get/set_source, _tag, _error) and MPI_Type_get_value_index,
 * with their bad arguments. Ranks exchange around a ring. */
#include <mpi.h>

#include "check.h"

static int rank, size;

static int greq_queries;
static int greq_query(void* extra, MPI_Status* st) {
  (void)extra;
  ++greq_queries;
  MPI_Status_set_elements(st, MPI_INT, 3);
  MPI_Status_set_cancelled(st, 0);
  MPI_Status_set_source(st, MPI_UNDEFINED);
  MPI_Status_set_tag(st, 77);
  return MPI_SUCCESS;
}
static int greq_free(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int greq_cancel(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

/* Spins on `query` until it says done; the request stays to be waited on. */
static void queries(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out = rank * 10, in[2] = {-1, -1};
  MPI_Request rs[4];
  CHECK_OK(MPI_Irecv(&in[0], 1, MPI_INT, left, 5, MPI_COMM_WORLD, &rs[0]));
  CHECK_OK(MPI_Irecv(&in[1], 1, MPI_INT, left, 6, MPI_COMM_WORLD, &rs[1]));
  rs[2] = MPI_REQUEST_NULL;
  /* Tag 6 is sent only after the barrier below: until then _all says no. */
  int flag = 1;
  CHECK_OK(MPI_Request_get_status_all(3, rs, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag == 0);
  CHECK_OK(MPI_Send(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
  int index = -1;
  MPI_Status st;
  flag = 0;
  while (!flag) CHECK_OK(MPI_Request_get_status_any(3, rs, &index, &flag, &st));
  CHECK(index == 0 && st.MPI_SOURCE == left && st.MPI_TAG == 5 && in[0] == left * 10);
  CHECK(rs[0] != MPI_REQUEST_NULL); /* not freed */
  int outcount = 0, indices[3];
  MPI_Status sts[3];
  CHECK_OK(MPI_Request_get_status_some(3, rs, &outcount, indices, sts));
  CHECK(outcount == 1 && indices[0] == 0 && sts[0].MPI_TAG == 5);
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Send(&out, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
  flag = 0;
  while (!flag) CHECK_OK(MPI_Request_get_status_all(3, rs, &flag, sts));
  CHECK(sts[0].MPI_TAG == 5 && sts[1].MPI_TAG == 6 && sts[1].MPI_SOURCE == left);
  CHECK(in[1] == left * 10 && rs[0] != MPI_REQUEST_NULL && rs[1] != MPI_REQUEST_NULL);
  /* Waiting afterwards completes them with the same statuses. */
  CHECK_OK(MPI_Waitall(3, rs, sts));
  CHECK(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL);
  CHECK(sts[0].MPI_TAG == 5 && sts[1].MPI_TAG == 6 && sts[1].MPI_SOURCE == left);
  /* Only null requests: _any says done with MPI_UNDEFINED, _some MPI_UNDEFINED. */
  CHECK_OK(MPI_Request_get_status_any(3, rs, &index, &flag, &st));
  CHECK(flag == 1 && index == MPI_UNDEFINED);
  CHECK_OK(MPI_Request_get_status_some(3, rs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED);
  CHECK_OK(MPI_Request_get_status_all(0, rs, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag == 1);
  /* A generalized request's status comes from its query_fn, each time asked. */
  MPI_Request g;
  CHECK_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &g));
  CHECK_OK(MPI_Request_get_status_any(1, &g, &index, &flag, &st));
  CHECK(flag == 0 && index == MPI_UNDEFINED && greq_queries == 0);
  CHECK_OK(MPI_Grequest_complete(g));
  CHECK_OK(MPI_Request_get_status_some(1, &g, &outcount, indices, &st));
  CHECK(outcount == 1 && st.MPI_TAG == 77 && greq_queries == 1);
  CHECK_OK(MPI_Wait(&g, &st));
  int count = -1;
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 3 && st.MPI_TAG == 77 && greq_queries == 2 && g == MPI_REQUEST_NULL);
}

static void accessors(void) {
  MPI_Status st;
  int v = 0;
  CHECK_OK(MPI_Status_set_source(&st, 3));
  CHECK_OK(MPI_Status_set_tag(&st, 41));
  CHECK_OK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 41 && st.MPI_ERROR == MPI_ERR_TRUNCATE);
  CHECK_OK(MPI_Status_get_source(&st, &v));
  CHECK(v == 3);
  CHECK_OK(MPI_Status_get_tag(&st, &v));
  CHECK(v == 41);
  CHECK_OK(MPI_Status_get_error(&st, &v));
  CHECK(v == MPI_ERR_TRUNCATE);
  CHECK_CLASS(MPI_Status_get_source(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_set_error(MPI_STATUS_IGNORE, 0), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_set_tag(NULL, 0), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_get_error(&st, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_get_error(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_get_source(&st, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_get_tag(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_set_source(MPI_STATUS_IGNORE, 0), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_set_error(NULL, 0), MPI_ERR_ARG);
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 41 && st.MPI_ERROR == MPI_ERR_TRUNCATE);
}

static void value_index(void) {
  struct {
    MPI_Datatype value, index, pair;
  } pairs[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INT, MPI_FLOAT, MPI_DATATYPE_NULL},
      {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL},
  };
  for (unsigned i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
    MPI_Datatype got = MPI_BYTE;
    CHECK_OK(MPI_Type_get_value_index(pairs[i].value, pairs[i].index, &got));
    CHECK(got == pairs[i].pair);
  }
  /* The pair it names reduces with MPI_MINLOC. */
  MPI_Datatype pair;
  CHECK_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair));
  struct {
    double value;
    int index;
  } mine = {(double)((rank + 1) % size), rank}, least;
  CHECK_OK(MPI_Allreduce(&mine, &least, 1, pair, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(least.value == 0.0 && least.index == size - 1);
  MPI_Datatype got;
  CHECK_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &got), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_value_index(MPI_INT, (MPI_Datatype)MPI_COMM_WORLD, &got), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL), MPI_ERR_ARG);
}

static void bad_input(void) {
  MPI_Request rs[2] = {MPI_REQUEST_NULL, (MPI_Request)0x12345};
  int flag = 0, index = 0, outcount = 0, indices[2];
  CHECK_CLASS(MPI_Request_get_status_any(2, rs, &index, &flag, MPI_STATUS_IGNORE),
              MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_get_status_all(2, rs, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_get_status_some(2, rs, &outcount, indices, MPI_STATUSES_IGNORE),
              MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_get_status_any(-1, rs, &index, &flag, MPI_STATUS_IGNORE),
              MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Request_get_status_all(1, NULL, &flag, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Request_get_status_any(1, rs, NULL, &flag, MPI_STATUS_IGNORE), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Request_get_status_any(1, rs, &index, NULL, MPI_STATUS_IGNORE), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Request_get_status_all(1, rs, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Request_get_status_some(1, rs, NULL, indices, MPI_STATUSES_IGNORE),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Request_get_status_some(1, rs, &outcount, NULL, MPI_STATUSES_IGNORE),
              MPI_ERR_ARG);
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  queries();
  accessors();
  value_index();
  bad_input();
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
