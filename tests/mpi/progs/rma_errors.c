/* One-sided communication with bad arguments (rma_errors, any number of
 * ranks): the error class and the message of each, through
 * MPI_ERRORS_RETURN and a window error handler. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { K = 64 }; /* ints per rank slot */

static int rank, size;

static int handler_calls, deletes;
static int count_deletes(MPI_Win win, int keyval, void* value, void* extra) {
  (void)win;
  (void)keyval;
  CHECK(value == (void*)&deletes && extra == (void*)&handler_calls);
  ++deletes;
  return MPI_SUCCESS;
}
static void count_errors(MPI_Win* win, int* code, ...) {
  (void)win;
  (void)code;
  ++handler_calls;
}

static void errors(void) {
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Win_allocate(K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Errhandler eh;
  CHECK_OK(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int v[K] = {0};
  const int right = (rank + 1) % size;
  /* no epoch */
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_lock(12345, right, 0, win), MPI_ERR_LOCKTYPE);
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Win_fence(0x7, win), MPI_ERR_ASSERT);
  /* null and bogus windows: reported on MPI_COMM_WORLD */
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, (MPI_Win)MPI_COMM_WORLD), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Win_create(v, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &(MPI_Win){0}), MPI_ERR_SIZE);
  CHECK_CLASS(MPI_Win_create(v, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &(MPI_Win){0}), MPI_ERR_DISP);
  MPI_Request req;
  CHECK_CLASS(MPI_Rput(v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_post(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_CLASS(MPI_Rput(v, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
  /* out of the window: nothing written, MPI_ERR_RMA_RANGE */
  CHECK_CLASS(MPI_Put(v, 2, MPI_INT, right, K - 1, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Get(v, 1, MPI_INT, right, K, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Accumulate(v, 1, MPI_INT, right, K, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Fetch_and_op(v, v + 1, MPI_INT, right, K + 100, MPI_SUM, win), MPI_ERR_RMA_RANGE);
  /* the last element is inside (MPI_Put's inline path has the same bounds) */
  v[0] = 1000 + rank;
  CHECK_OK(MPI_Put(v, 1, MPI_INT, right, K - 1, 1, MPI_INT, win));
  CHECK_OK(MPI_Win_flush(right, win));
  int back = -1;
  CHECK_OK(MPI_Get(&back, 1, MPI_INT, right, K - 1, 1, MPI_INT, win));
  CHECK_OK(MPI_Win_flush(right, win));
  CHECK(back == 1000 + rank);
  CHECK_CLASS(MPI_Get(&back, 1, MPI_INT, right, K, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK(back == 1000 + rank);
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, right, -1, 1, MPI_INT, win), MPI_ERR_DISP);
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, right, (MPI_Aint)1 << 62, 1, MPI_INT, win), MPI_ERR_DISP);
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Put(v, -1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Put(v, 2, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Accumulate(v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
  CHECK_CLASS(MPI_Accumulate(v, 1, MPI_BYTE, right, 0, 1, MPI_BYTE, MPI_SUM, win), MPI_ERR_OP);
  CHECK_CLASS(MPI_Accumulate(v, 1, MPI_FLOAT, right, 0, 1, MPI_FLOAT, MPI_BAND, win), MPI_ERR_OP);
  MPI_Datatype two;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_OK(MPI_Type_commit(&two));
  CHECK_CLASS(MPI_Fetch_and_op(v, v + 2, two, right, 0, MPI_SUM, win), MPI_ERR_TYPE);
  MPI_Type_free(&two);
  /* Compare_and_swap compares bits: integers, logicals and bytes only */
  float fv = 1, fc = 0, fr = -1;
  double dv = 1, dc = 0, dr = -1;
  CHECK_CLASS(MPI_Compare_and_swap(&fv, &fc, &fr, MPI_FLOAT, right, 0, win), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Compare_and_swap(&dv, &dc, &dr, MPI_DOUBLE, right, 0, win), MPI_ERR_TYPE);
  CHECK(fr == -1 && dr == -1);
  CHECK_OK(MPI_Win_unlock(right, win));
  /* a user handler on the window is called */
  MPI_Errhandler mine;
  CHECK_OK(MPI_Win_create_errhandler(count_errors, &mine));
  CHECK_OK(MPI_Win_set_errhandler(win, mine));
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK(handler_calls == 1);
  CHECK_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 2);
  CHECK_OK(MPI_Errhandler_free(&mine));
  /* names and group */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_OK(MPI_Win_get_name(win, name, &len));
  CHECK(len == 0 && name[0] == '\0');
  CHECK_OK(MPI_Win_set_name(win, "my window"));
  CHECK_OK(MPI_Win_get_name(win, name, &len));
  CHECK(len == 9 && strcmp(name, "my window") == 0);
  MPI_Group g, world;
  int cmp = -1;
  CHECK_OK(MPI_Win_get_group(win, &g));
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_OK(MPI_Group_compare(g, world, &cmp));
  CHECK(cmp == MPI_IDENT);
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  int* attr = NULL;
  int flag = 0;
  CHECK_CLASS(MPI_Win_get_attr(win, MPI_TAG_UB, &attr, &flag), MPI_ERR_KEYVAL);
  /* user keyvals: set, get, replace (delete callback), freed keyval, Win_free */
  int key = MPI_KEYVAL_INVALID;
  CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_deletes, &key, &handler_calls));
  CHECK_OK(MPI_Win_get_attr(win, key, &attr, &flag));
  CHECK(flag == 0);
  CHECK_OK(MPI_Win_set_attr(win, key, &deletes));
  CHECK_OK(MPI_Win_get_attr(win, key, &attr, &flag));
  CHECK(flag == 1 && attr == &deletes);
  CHECK_OK(MPI_Win_set_attr(win, key, &deletes));
  CHECK(deletes == 1);
  CHECK_OK(MPI_Win_delete_attr(win, key));
  CHECK(deletes == 2);
  CHECK_CLASS(MPI_Win_delete_attr(win, key), MPI_ERR_KEYVAL);
  CHECK_CLASS(MPI_Win_set_attr(win, MPI_WIN_SIZE, &deletes), MPI_ERR_KEYVAL);
  CHECK_OK(MPI_Win_set_attr(win, key, &deletes));
  CHECK_OK(MPI_Win_free_keyval(&key));
  /* info: the defaults every window keeps */
  MPI_Info used;
  char value[MPI_MAX_INFO_VAL];
  CHECK_OK(MPI_Win_get_info(win, &used));
  CHECK_OK(MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag && strcmp(value, "rar,raw,war,waw") == 0);
  CHECK_OK(MPI_Info_free(&used));
  CHECK_OK(MPI_Win_set_info(win, MPI_INFO_NULL));
  CHECK_CLASS(MPI_Win_set_info(win, (MPI_Info)MPI_COMM_WORLD), MPI_ERR_INFO);
  CHECK(key == MPI_KEYVAL_INVALID);
  CHECK_OK(MPI_Win_free(&win));
  CHECK(deletes == 3);
  CHECK_CLASS(MPI_Win_free(&win), MPI_ERR_WIN);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  errors();
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
