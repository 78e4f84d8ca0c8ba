/* MPI_Win_shared_query on each window flavor. MPI 3.1 and 4.0 define it for
 * MPI_Win_allocate_shared windows only and raise MPI_ERR_RMA_FLAVOR for the
 * others (MPI 4.1 lets created and allocated windows answer too; Lapis
 * implements 3.1/4.0). With the argument "fatal": the query on an
 * MPI_Win_allocate window under MPI_ERRORS_ARE_FATAL, whose message the
 * test reads. */
#include <mpi.h>
#include <string.h>

#include "check.h"

static int rank, size;

static void refused(MPI_Win win) {
  MPI_Aint sz = -7;
  int du = -7;
  void* p = &sz;
  CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  for (int r = 0; r < size; ++r) CHECK_CLASS(MPI_Win_shared_query(win, r, &sz, &du, &p), MPI_ERR_RMA_FLAVOR);
  CHECK_CLASS(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p), MPI_ERR_RMA_FLAVOR);
  CHECK(sz == -7 && du == -7 && p == &sz); /* outputs untouched */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(64, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    MPI_Aint sz;
    int du;
    void* p;
    MPI_Win_shared_query(win, 0, &sz, &du, &p); /* ends the job */
    printf("FAILED: MPI_Win_shared_query returned\n");
    return 1;
  }
  refused(win);
  CHECK_OK(MPI_Win_free(&win));
  int mem[16];
  CHECK_OK(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  refused(win);
  CHECK_OK(MPI_Win_free(&win));
  CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  refused(win);
  CHECK_OK(MPI_Win_free(&win));
  /* The shared flavor answers for every rank. */
  CHECK_OK(MPI_Win_allocate_shared(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  for (int r = 0; r < size; ++r) {
    MPI_Aint sz = -1;
    int du = -1;
    int* p = NULL;
    CHECK_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK(sz == 16 && du == 4 && p != NULL);
    if (r == rank) CHECK(p == base);
  }
  CHECK_OK(MPI_Win_free(&win));
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
