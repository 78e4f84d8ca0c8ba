/* MPI_Finalize with objects the program never freed: communicators made by
 * dup, split, create_group, cart_create and intercomm_create, a window, a
 * committed datatype, a group, an op, an info, an error handler, a keyval
 * with an attribute set, and an inactive persistent request. The standard
 * lets a program leave them; MPI_Finalize must release them, not crash (NPB's
 * BT, FT and SP leave their split and dup'd communicators). Prints OK after
 * MPI_Finalize returned. */
#include <mpi.h>
#include <stdio.h>

#include "check.h"

static void sum_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

static void ignore_error(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  (void)code;
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

  MPI_Comm dup, split, group_comm, cart;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split));
  MPI_Group world_group;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &group_comm));
  const int dims[1] = {size}, periods[1] = {1};
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
  if (size >= 2) {  // the two halves of split, joined
    MPI_Comm inter;
    CHECK_OK(MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 5, &inter));
  }
  /* Each is usable, collectively and point to point, before it is left. */
  int one = 1, total = 0;
  CHECK_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, dup));
  CHECK(total == size);
  CHECK_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, cart));
  CHECK(total == size);
  CHECK_OK(MPI_Barrier(split));
  CHECK_OK(MPI_Barrier(group_comm));

  MPI_Win win;
  int* base = NULL;
  CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &base, &win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_OK(MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK(*base == (rank + size - 1) % size);

  MPI_Datatype pair;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_OK(MPI_Type_commit(&pair));
  MPI_Op op;
  CHECK_OK(MPI_Op_create(sum_ints, 1, &op));
  MPI_Info info;
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "key", "value"));
  MPI_Errhandler errh;
  CHECK_OK(MPI_Comm_create_errhandler(ignore_error, &errh));
  int keyval;
  CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
  CHECK_OK(MPI_Comm_set_attr(dup, keyval, &keyval));
  MPI_Request persistent;
  CHECK_OK(MPI_Send_init(&rank, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &persistent));

  CHECK_OK(MPI_Finalize());
  int finalized = 0;
  MPI_Finalized(&finalized);
  CHECK(finalized);
  printf("OK\n");
  return 0;
}
