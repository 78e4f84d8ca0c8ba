/* Hello world: every rank reports itself; rank 0 checks the count. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  int rank, size, len, version, subversion;
  char name[MPI_MAX_PROCESSOR_NAME];
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_OK(MPI_Get_processor_name(name, &len));
  CHECK(len == (int)strlen(name) && len > 0);
  CHECK_OK(MPI_Get_version(&version, &subversion));
  CHECK(version == 4 && subversion == 1);
  /* Everyone tells rank 0; rank 0 answers; counts must add up. */
  int token = rank;
  if (rank == 0) {
    int sum = 0;
    for (int i = 1; i < size; ++i) {
      int v;
      MPI_Status st;
      CHECK_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE == v);
      sum += v;
    }
    CHECK(sum == size * (size - 1) / 2);
  } else {
    CHECK_OK(MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  printf("hello from rank %d of %d on %s\n", rank, size, name);
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
