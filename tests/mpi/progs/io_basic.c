/* MPI-IO without data views: opening (modes, their errors, errno's
 * classes, every rank agreeing), closing, deleting, DELETE_ON_CLOSE,
 * APPEND, sizes, the file's group, mode, hints, atomicity, handles and
 * error handlers, and bad arguments. Prints "OK" per rank. */
#include <sys/stat.h>

#include "io_common.h"

static int g_handler_calls = 0;
static int g_handler_code = 0;
static MPI_File g_handler_file = MPI_FILE_NULL;

static void file_handler(MPI_File* fh, int* code, ...) {
  ++g_handler_calls;
  g_handler_code = *code;
  g_handler_file = *fh;
}

static void test_modes(MPI_Comm comm, int rank) {
  char name[512], missing[600];
  MPI_File fh = MPI_FILE_NULL;
  io_name(comm, "modes", name, sizeof name);
  snprintf(missing, sizeof missing, "%s_no_such_dir/file", name);

  /* amode: exactly one access mode; RDONLY with CREATE/EXCL; RDWR with SEQUENTIAL. */
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK(fh == MPI_FILE_NULL);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDWR | 0x10000, MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK(!io_exists(name));
  /* errno's classes, the same on every rank. */
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_open(comm, missing, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_delete(name, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_open(comm, NULL, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDONLY, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_open(MPI_COMM_NULL, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_COMM);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE, (MPI_Info)0x5c00ffff, &fh),
              MPI_ERR_INFO);
  /* A different amode on one rank. */
  if (rank == 1) {
    CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                              MPI_INFO_NULL, &fh),
                MPI_ERR_NOT_SAME);
  } else {
    int size = 0, rc, cls;
    MPI_Comm_size(comm, &size);
    rc = MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_Error_class(rc, &cls);
    CHECK(size == 1 ? rc == MPI_SUCCESS : cls == MPI_ERR_NOT_SAME);
    if (rc == MPI_SUCCESS) CHECK_OK(MPI_File_close(&fh));
  }
  MPI_Barrier(comm);
  if (rank == 0 && io_exists(name)) CHECK_OK(MPI_File_delete(name, MPI_INFO_NULL));
  MPI_Barrier(comm);

  /* CREATE | EXCL: made once, then MPI_ERR_FILE_EXISTS on every rank. */
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                         MPI_INFO_NULL, &fh));
  CHECK(fh != MPI_FILE_NULL);
  {
    int amode = 0;
    CHECK_OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL));
  }
  CHECK_OK(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL);
  CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL,
                            MPI_INFO_NULL, &fh),
              MPI_ERR_FILE_EXISTS);
  /* Permission denied (root may open anything). */
  if (geteuid() != 0) {
    if (rank == 0) chmod(name, 0);
    MPI_Barrier(comm);
    CHECK_CLASS(MPI_File_open(comm, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ACCESS);
    MPI_Barrier(comm);
    if (rank == 0) chmod(name, 0644);
  }
  /* A directory is no file. */
  {
    char dir[600];
    snprintf(dir, sizeof dir, "%s", name);
    *strrchr(dir, '/') = '\0';
    CHECK_CLASS(MPI_File_open(comm, dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);
  }
  MPI_Barrier(comm);
  if (rank == 0) CHECK_OK(MPI_File_delete(name, MPI_INFO_NULL));
  MPI_Barrier(comm);
  CHECK(!io_exists(name));

  /* DELETE_ON_CLOSE. */
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
  CHECK(io_exists(name));
  CHECK_OK(MPI_File_close(&fh));
  CHECK(!io_exists(name));
}

static void test_sizes_append(MPI_Comm comm, int rank, int nranks) {
  char name[512];
  MPI_File fh;
  MPI_Offset size = -1, pos = -1;
  io_name(comm, "sizes", name, sizeof name);
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == 0);
  CHECK_OK(MPI_File_set_size(fh, 1000));
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == 1000);
  CHECK_OK(MPI_File_set_size(fh, 10));
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == 10);
  CHECK_OK(MPI_File_preallocate(fh, 4096));
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == 4096);
  CHECK_OK(MPI_File_preallocate(fh, 100)); /* never shrinks */
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == 4096);
  CHECK_OK(MPI_File_set_size(fh, 96));
  CHECK_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_get_size(fh, NULL), MPI_ERR_ARG);
  if (nranks > 1) CHECK_CLASS(MPI_File_set_size(fh, rank), MPI_ERR_NOT_SAME);
  CHECK_OK(MPI_File_sync(fh));
  CHECK_OK(MPI_File_close(&fh));

  /* APPEND: both pointers start at the end. */
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
  CHECK_OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == 96);
  CHECK_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 96);
  {
    int v = rank;
    CHECK_OK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Barrier(comm);
  }
  CHECK_OK(MPI_File_get_size(fh, &size));
  CHECK(size == 96 + 4 * nranks);
  CHECK_OK(MPI_File_close(&fh));

  /* Read-only: no size changes, no writes. */
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                         &fh));
  CHECK_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
  CHECK_CLASS(MPI_File_write_at(fh, 0, &size, 1, MPI_OFFSET, MPI_STATUS_IGNORE),
              MPI_ERR_READ_ONLY);
  {
    int v = -1;
    MPI_Status st;
    CHECK_OK(MPI_File_read_at(fh, 96 + 4 * (nranks - 1), &v, 1, MPI_INT, &st));
    CHECK(v == nranks - 1);
  }
  CHECK_OK(MPI_File_close(&fh));
  CHECK(!io_exists(name));
}

static void test_queries_handlers(MPI_Comm comm, int rank, int nranks) {
  char name[512];
  MPI_File fh, other;
  MPI_Group group, world_group;
  MPI_Info info, used;
  MPI_Errhandler eh, got;
  int result = 0, flag = 0, nkeys = 0;
  char value[64];
  io_name(comm, "queries", name, sizeof name);
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "read_mostly");
  CHECK_OK(MPI_File_open(comm, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         info, &fh));
  MPI_Info_free(&info);
  CHECK_OK(MPI_File_get_info(fh, &used));
  CHECK_OK(MPI_Info_get(used, "access_style", 63, value, &flag));
  CHECK(flag && strcmp(value, "read_mostly") == 0);
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "1");
  CHECK_OK(MPI_File_set_info(fh, info));
  MPI_Info_free(&info);
  CHECK_OK(MPI_File_get_info(fh, &used));
  CHECK_OK(MPI_Info_get_nkeys(used, &nkeys));
  CHECK(nkeys == 3);  /* two hints, and MPI 4.1's memory kinds */
  MPI_Info_free(&used);

  CHECK_OK(MPI_File_get_group(fh, &group));
  MPI_Comm_group(comm, &world_group);
  MPI_Group_compare(group, world_group, &result);
  CHECK(result == MPI_IDENT);
  MPI_Group_free(&group);
  MPI_Group_free(&world_group);

  /* Atomicity: off by default, the same flag everywhere. */
  CHECK_OK(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0);
  CHECK_OK(MPI_File_set_atomicity(fh, 1));
  CHECK_OK(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1);
  if (nranks > 1) CHECK_CLASS(MPI_File_set_atomicity(fh, rank == 0), MPI_ERR_NOT_SAME);
  CHECK_OK(MPI_File_set_atomicity(fh, 0));

  /* Fortran handles. */
  {
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(f != 0);
    CHECK(MPI_File_f2c(f) == fh);
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0);
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL);
  }

  /* Error handlers: files start with MPI_FILE_NULL's, MPI_ERRORS_RETURN. */
  CHECK_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  CHECK_OK(MPI_File_get_errhandler(fh, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  CHECK_OK(MPI_File_create_errhandler(file_handler, &eh));
  CHECK_OK(MPI_File_set_errhandler(fh, eh));
  CHECK_OK(MPI_File_get_errhandler(fh, &got));
  CHECK(got == eh);
  MPI_Errhandler_free(&got);
  CHECK_CLASS(MPI_File_read_at(fh, -1, value, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_ARG);
  CHECK(g_handler_calls == 1 && g_handler_code == MPI_ERR_ARG && g_handler_file == fh);
  CHECK_CLASS(MPI_File_read(fh, value, -1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_File_read(fh, value, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_seek(fh, -5, MPI_SEEK_SET), MPI_ERR_ARG);
  CHECK(g_handler_calls == 5);
  CHECK_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK(g_handler_calls == 6 && g_handler_code == MPI_ERR_IO);
  /* MPI_FILE_NULL's handler takes open's and delete's errors. */
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
  CHECK_CLASS(MPI_File_open(comm, "", MPI_MODE_RDONLY, MPI_INFO_NULL, &other),
              MPI_ERR_NO_SUCH_FILE);
  CHECK(g_handler_calls == 7 && g_handler_file == MPI_FILE_NULL);
  CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Errhandler_free(&eh));
  CHECK_CLASS(MPI_File_set_errhandler(fh, MPI_ERRHANDLER_NULL), MPI_ERR_ERRHANDLER);

  /* Bad handles. */
  other = fh;
  CHECK_OK(MPI_File_close(&fh));
  CHECK_CLASS(MPI_File_close(&other), MPI_ERR_FILE);
  CHECK_CLASS(MPI_File_get_size(other, NULL), MPI_ERR_FILE);
  CHECK_CLASS(MPI_File_get_amode(MPI_FILE_NULL, &flag), MPI_ERR_FILE);
  CHECK_CLASS(MPI_File_sync(MPI_FILE_NULL), MPI_ERR_FILE);
  CHECK(!io_exists(name));
}

int main(int argc, char** argv) {
  int rank, nranks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  test_modes(MPI_COMM_WORLD, rank);
  test_sizes_append(MPI_COMM_WORLD, rank, nranks);
  test_queries_handlers(MPI_COMM_WORLD, rank, nranks);
  /* A file of one rank. */
  {
    char name[512];
    MPI_File fh;
    char self_tag[32];
    snprintf(self_tag, sizeof self_tag, "self%d", rank);
    io_name(MPI_COMM_WORLD, self_tag, name, sizeof name);
    CHECK_OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                           &fh));
    CHECK_OK(MPI_File_write(fh, "abc", 3, MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_File_close(&fh));
    CHECK_OK(MPI_File_delete(name, MPI_INFO_NULL));
    CHECK(!io_exists(name));
  }
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
