/* Shared by the MPI-IO test programs: a file name every rank agrees on,
 * under the test's temporary directory. */
#ifndef LAPIS_TESTS_MPI_IO_COMMON_H_
#define LAPIS_TESTS_MPI_IO_COMMON_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* "<TEST_TMPDIR or TMPDIR or /tmp>/lapis_io_<rank 0's pid>_<tag>", the
 * same on every rank of comm. */
static void io_name(MPI_Comm comm, const char* tag, char* out, size_t len) {
  int rank = 0;
  long pid = (long)getpid();
  MPI_Comm_rank(comm, &rank);
  MPI_Bcast(&pid, 1, MPI_LONG, 0, comm);
  const char* dir = getenv("TEST_TMPDIR");
  if (dir == NULL || *dir == '\0') dir = getenv("TMPDIR");
  if (dir == NULL || *dir == '\0') dir = "/tmp";
  snprintf(out, len, "%s/lapis_io_%ld_%s", dir, pid, tag);
}

static inline int io_exists(const char* path) { return access(path, F_OK) == 0; }

#endif
