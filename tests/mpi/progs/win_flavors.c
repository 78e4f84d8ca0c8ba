/* MPI_Win_shared_query on each window flavor (MPI 4.1: every flavor answers).
 * Outside an MPI_Win_allocate_shared window a rank reaches only its own
 * memory by loads and stores: it gets its own base and size, and size 0 and
 * NULL for every other rank (with that rank's displacement unit). With the
 * argument "fatal": a query for a rank outside the window's group under
 * MPI_ERRORS_ARE_FATAL, whose message the test reads. */
#include <mpi.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Each rank's window has `bytes` bytes at `base` with displacement unit `unit`. */
static void own_memory_only(MPI_Win win, void* base, MPI_Aint bytes, int unit) {
  for (int r = 0; r < size; ++r) {
    MPI_Aint sz = -7;
    int du = -7;
    void* p = &sz;
    CHECK_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK(du == unit);
    if (r == rank && bytes > 0) {
      CHECK(sz == bytes && p == base);
    } else {
      CHECK(sz == 0 && p == NULL);
    }
  }
  /* MPI_PROC_NULL: the first rank with memory here, which is this one. */
  MPI_Aint sz = -7;
  int du = -7;
  void* p = &sz;
  CHECK_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
  CHECK(sz == bytes && p == (bytes > 0 ? base : NULL));
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
    MPI_Win_shared_query(win, size, &sz, &du, &p); /* ends the job */
    printf("FAILED: MPI_Win_shared_query returned\n");
    return 1;
  }
  own_memory_only(win, base, 64, sizeof(int));
  CHECK_OK(MPI_Win_free(&win));
  int mem[16];
  CHECK_OK(MPI_Win_create(mem, sizeof mem, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  own_memory_only(win, mem, sizeof mem, 2);
  CHECK_OK(MPI_Win_free(&win));
  CHECK_OK(MPI_Win_create(mem, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  own_memory_only(win, mem, 0, 1);
  CHECK_OK(MPI_Win_free(&win));
  CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_OK(MPI_Win_attach(win, mem, sizeof mem));
  own_memory_only(win, NULL, 0, 1); /* attached memory is not the window's */
  CHECK_OK(MPI_Win_detach(win, mem));
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
