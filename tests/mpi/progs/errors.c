/* Every bad-argument case with MPI_ERRORS_RETURN: the call returns the right
 * error class and the program goes on. Also MPI_Error_string/class, errors
 * in the buffered and ready modes, and calls after MPI_Finalize. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

static void bad_arguments(void) {
  int buf[4] = {0};
  MPI_Request req;
  MPI_Status st;
  MPI_Comm world = MPI_COMM_WORLD;

  /* Communicators. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, 12345), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)MPI_INT), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_free(&world), MPI_ERR_COMM);

  /* Ranks. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Iprobe(size, 0, MPI_COMM_WORLD, &size, &st), MPI_ERR_RANK);

  /* Tags. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, -2, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, -2, MPI_COMM_WORLD, &st), MPI_ERR_TAG);

  /* Counts. */
  CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Recv(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &(MPI_Datatype){0}), MPI_ERR_COUNT);

  /* Datatypes: null, not a type, not committed, predefined freed. */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Send(buf, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  MPI_Datatype t;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_CLASS(MPI_Send(buf, 1, t, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Irecv(buf, 1, t, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_OK(MPI_Type_free(&t));
  MPI_Datatype predefined = MPI_INT;
  CHECK_CLASS(MPI_Type_free(&predefined), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_size(t, &size), MPI_ERR_TYPE); /* freed handle: now MPI_DATATYPE_NULL */

  /* Buffers. */
  CHECK_CLASS(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Recv(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Isend(NULL, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);

  /* Requests and statuses. */
  CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Wait(NULL, &st), MPI_ERR_ARG);
  MPI_Request bogus = 4242;
  CHECK_CLASS(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Test(&bogus, &size, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_free(&bogus), MPI_ERR_REQUEST);
  MPI_Request null_req = MPI_REQUEST_NULL;
  CHECK_CLASS(MPI_Request_free(&null_req), MPI_ERR_REQUEST);
  CHECK_OK(MPI_Irecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
  CHECK_CLASS(MPI_Start(&req), MPI_ERR_REQUEST); /* not persistent */
  CHECK_OK(MPI_Wait(&req, &st));
  MPI_Request arr[2] = {MPI_REQUEST_NULL, 777};
  int idx;
  CHECK_CLASS(MPI_Waitany(2, arr, &idx, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Waitall(-1, arr, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);
  MPI_Message msg = 31337;
  CHECK_CLASS(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST);

  /* Groups, attributes, error handlers. */
  MPI_Group g, ng;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
  int bad[2] = {0, size};
  CHECK_CLASS(MPI_Group_incl(g, 2, bad, &ng), MPI_ERR_RANK);
  int twice[2] = {0, 0};
  CHECK_CLASS(MPI_Group_excl(g, 2, twice, &ng), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP);
  CHECK_CLASS(MPI_Comm_create(MPI_COMM_WORLD, 99, &world), MPI_ERR_GROUP);
  CHECK_OK(MPI_Group_free(&g));
  void* v;
  int flag;
  CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, 5555, &v, &flag), MPI_ERR_KEYVAL);
  CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
  CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, 1234), MPI_ERR_ERRHANDLER);
  /* MPI 4.1: a null handle's name is its own (MPICH's commname, winname). */
  char name[MPI_MAX_OBJECT_NAME];
  int name_len = -1;
  CHECK_OK(MPI_Comm_get_name(MPI_COMM_NULL, name, &name_len));
  CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && name_len == 13);
  CHECK_OK(MPI_Win_get_name(MPI_WIN_NULL, name, &name_len));
  CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && name_len == 12);
  CHECK_OK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &name_len));
  CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && name_len == 17);
  CHECK_CLASS(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &name_len), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_get_name(MPI_DATATYPE_NULL, name, NULL), MPI_ERR_ARG);
  /* Not an error handler: MPI 4.1's class, wherever one is named. */
  MPI_Errhandler not_handler = (MPI_Errhandler)1234;
  CHECK_CLASS(MPI_Errhandler_free(&not_handler), MPI_ERR_ERRHANDLER);
  MPI_Win w;
  CHECK_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_SELF, &w));
  CHECK_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Win_set_errhandler(w, not_handler), MPI_ERR_ERRHANDLER);
  CHECK_OK(MPI_Win_free(&w));
  MPI_Session session;
  CHECK_CLASS(MPI_Session_init(MPI_INFO_NULL, not_handler, &session), MPI_ERR_ERRHANDLER);
  CHECK_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &world), MPI_ERR_ARG);

  /* Datatype constructors. */
  MPI_Datatype nt;
  CHECK_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &nt), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_indexed(2, NULL, NULL, MPI_INT, &nt), MPI_ERR_ARG);
  int sizes[2] = {4, 4}, subs[2] = {2, 5}, starts[2] = {0, 0};
  CHECK_CLASS(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &nt), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &nt), MPI_ERR_TYPE);
  /* A negative count in the indexed family is refused, not used to size an
     array (tests/fuzz/datatype_fuzzer found that crash). */
  int lens1[1] = {1}, displs1[1] = {0};
  MPI_Aint hdispls1[1] = {0};
  CHECK_CLASS(MPI_Type_indexed(-1, lens1, displs1, MPI_INT, &nt), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_create_hindexed(-1, lens1, hdispls1, MPI_INT, &nt), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_create_indexed_block(-2, 1, displs1, MPI_INT, &nt), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_create_hindexed_block(-3, 1, hdispls1, MPI_INT, &nt), MPI_ERR_COUNT);
  /* Sizes and bounds past 64 bits are refused (the fuzzer found overflow). */
  MPI_Datatype huge;
  CHECK_OK(MPI_Type_contiguous(1 << 30, MPI_DOUBLE, &huge));
  CHECK_CLASS(MPI_Type_contiguous(1 << 30, huge, &nt), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_vector(2, 1, INT_MAX, huge, &nt), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_resized(MPI_INT, (MPI_Aint)INT64_MAX, (MPI_Aint)INT64_MAX, &nt),
              MPI_ERR_ARG);
  CHECK_OK(MPI_Type_contiguous(1 << 10, huge, &nt)); /* 2^43 bytes: fine */
  int psize = 0;
  CHECK_CLASS(MPI_Pack_size(1 << 30, nt, MPI_COMM_WORLD, &psize), MPI_ERR_COUNT);
  CHECK_OK(MPI_Type_free(&nt));
  CHECK_OK(MPI_Type_free(&huge));
  char packed[4];
  int pos = 0;
  CHECK_CLASS(MPI_Pack(buf, 4, MPI_INT, packed, sizeof packed, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &v), MPI_ERR_SIZE);
  /* More than the machine has: refused at once (UCX would fill /dev/shm). */
  CHECK_CLASS(MPI_Alloc_mem((MPI_Aint)1 << 50, MPI_INFO_NULL, &v), MPI_ERR_NO_MEM);
  CHECK_CLASS(MPI_Free_mem(buf), MPI_ERR_BASE);
  /* Info is only hints: unknown keys are ignored; a handle that is no info is refused. */
  MPI_Info hints;
  CHECK_OK(MPI_Info_create(&hints));
  CHECK_OK(MPI_Info_set(hints, "no_such_hint", "1"));
  void* p = NULL;
  CHECK_OK(MPI_Alloc_mem(64, hints, &p));
  CHECK(p != NULL);
  CHECK_OK(MPI_Free_mem(p));
  CHECK_OK(MPI_Info_free(&hints));
  CHECK_CLASS(MPI_Alloc_mem(64, (MPI_Info)MPI_COMM_WORLD, &p), MPI_ERR_INFO);
}

static void strings_and_classes(void) {
  char text[MPI_MAX_ERROR_STRING];
  int len, cls;
  /* MPICH's classes: 0 .. MPICH_ERR_LAST_CLASS, 54 unused (MPI_ERR_LASTCODE
   * is the last error code, far above). */
  for (int c = MPI_SUCCESS; c <= MPICH_ERR_LAST_CLASS; ++c) {
    if (c == 54) continue;
    CHECK_OK(MPI_Error_string(c, text, &len));
    CHECK(len == (int)strlen(text) && len > 0 && len < MPI_MAX_ERROR_STRING);
    CHECK_OK(MPI_Error_class(c, &cls));
    CHECK(cls == c);
  }
  MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
  CHECK(strstr(text, "MPI_ERR_TRUNCATE") != NULL);
  MPI_Error_string(MPI_ERR_RANK, text, &len);
  CHECK(strstr(text, "rank") != NULL);
  CHECK_CLASS(MPI_Error_class(-4, &cls), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Error_string(MPICH_ERR_LAST_CLASS + 1, text, &len), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Error_class(54, &cls), MPI_ERR_ARG);
}

static void mode_errors(void) {
  /* Buffered send that does not fit the attached buffer. */
  char small[64 + MPI_BSEND_OVERHEAD];
  CHECK_OK(MPI_Buffer_attach(small, sizeof small));
  char big[1000] = {0};
  int right = (rank + 1) % size;
  CHECK_CLASS(MPI_Bsend(big, sizeof big, MPI_CHAR, right, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  void* back;
  int back_size;
  CHECK_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == small);
  CHECK_CLASS(MPI_Bsend(big, 10, MPI_CHAR, right, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER); /* none attached */
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* Ready send with no receive posted at the destination. */
  if (size > 1) {
    if (rank == 1) {
      int v = 1;
      CHECK_CLASS(MPI_Rsend(&v, 1, MPI_INT, 0, 41, MPI_COMM_WORLD), MPI_ERR_OTHER);
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
}

int main(int argc, char** argv) {
  int flag = 1;
  CHECK_OK(MPI_Initialized(&flag));
  CHECK(!flag);
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Initialized(&flag));
  CHECK(flag);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Init(&argc, &argv), MPI_ERR_OTHER);
  bad_arguments();
  strings_and_classes();
  mode_errors();
  CHECK_OK(MPI_Finalize());
  CHECK_OK(MPI_Finalized(&flag));
  CHECK(flag);
  /* After MPI_Finalize, calls report through the handler MPI_COMM_WORLD had. */
  int v = 0;
  CHECK_CLASS(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_OTHER);
  CHECK_CLASS(MPI_Barrier(MPI_COMM_WORLD), MPI_ERR_OTHER);
  printf("OK\n");
  return 0;
}
