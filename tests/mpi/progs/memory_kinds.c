/* MPI 4.1's memory allocation kinds: the kinds the launcher asked for
 * (argv[1]: what the world model must answer) on MPI_COMM_WORLD, a window
 * and a file made from it; a session asking for its own, a communicator
 * from its group and a window on that; a session asking for none gets the
 * world model's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static const char* kKey = "mpi_memory_alloc_kinds";

/* Frees `info` and checks its kinds. */
static void check_kinds(MPI_Info info, const char* expect, const char* what) {
  char value[MPI_MAX_INFO_VAL + 1];
  int len = sizeof value, flag = 0;
  CHECK_OK(MPI_Info_get_string(info, kKey, &len, value, &flag));
  if (!flag || strcmp(value, expect) != 0) {
    printf("FAILED %s: kinds '%s', expected '%s'\n", what, flag ? value : "(none)", expect);
  }
  CHECK_OK(MPI_Info_free(&info));
}

static void check_comm_and_window(MPI_Comm comm, const char* expect, const char* what) {
  MPI_Info info;
  CHECK_OK(MPI_Comm_get_info(comm, &info));
  check_kinds(info, expect, what);
  MPI_Win win;
  void* base;
  CHECK_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win));
  CHECK_OK(MPI_Win_get_info(win, &info));
  check_kinds(info, expect, what);
  CHECK_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK(argc == 2);
  const char* world = argv[1];
  check_comm_and_window(MPI_COMM_WORLD, world, "world");

  long job = (long)getpid();
  CHECK_OK(MPI_Bcast(&job, 1, MPI_LONG, 0, MPI_COMM_WORLD));
  const char* dir = getenv("TEST_TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/memory_kinds.%ld", dir ? dir : "/tmp", job);
  MPI_File fh;
  MPI_Info info;
  CHECK_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_get_info(fh, &info));
  check_kinds(info, world, "file");
  CHECK_OK(MPI_File_close(&fh));

  /* A session's own request: the unsupported entries (a device kind, a
   * restrictor of another kind, an unknown one) are left out. */
  MPI_Info ask;
  MPI_Session session;
  CHECK_OK(MPI_Info_create(&ask));
  CHECK_OK(MPI_Info_set(ask, kKey, "mpi:win_allocate:alloc_mem,rocm,system:alloc_mem,mpi:host"));
  CHECK_OK(MPI_Session_init(ask, MPI_ERRORS_RETURN, &session));
  CHECK_OK(MPI_Info_free(&ask));
  const char* own = "mpi,system,mpi:win_allocate:alloc_mem";
  CHECK_OK(MPI_Session_get_info(session, &info));
  check_kinds(info, own, "session");
  MPI_Group group;
  MPI_Comm comm;
  CHECK_OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  CHECK_OK(MPI_Comm_create_from_group(group, "memory_kinds", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  check_comm_and_window(comm, own, "session's communicator");
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(comm, &dup));
  check_comm_and_window(dup, own, "its duplicate");
  CHECK_OK(MPI_Comm_free(&dup));
  CHECK_OK(MPI_Comm_free(&comm));
  CHECK_OK(MPI_Group_free(&group));
  CHECK_OK(MPI_Session_finalize(&session));

  CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  CHECK_OK(MPI_Session_get_info(session, &info));
  check_kinds(info, world, "session asking for none");
  CHECK_OK(MPI_Session_finalize(&session));
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
