// MPI-IO: opening, closing and deleting files, their size, group, mode,
// hints and error handlers (data access: file_access.cc; views and
// pointers: file_view.cc; the machinery: internal/file.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/memory_kinds.hpp"
#include "mpi/internal/session.hpp"
#include "mpi/internal/file.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;
using namespace mpi::io;

namespace {

int check_amode(int amode) {
  constexpr int kKnown = MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE |
                         MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                         MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if ((amode & ~kKnown) != 0) {
    return fail(MPI_ERR_AMODE, "amode={:#x} has bits no MPI_MODE_* constant has", amode);
  }
  const int access = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_RDWR ? 1 : 0) +
                     (amode & MPI_MODE_WRONLY ? 1 : 0);
  if (access != 1) {
    return fail(MPI_ERR_AMODE,
                "amode={:#x} must hold exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR and "
                "MPI_MODE_WRONLY",
                amode);
  }
  if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) {
    return fail(MPI_ERR_AMODE, "amode={:#x}: MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL",
                amode);
  }
  if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) {
    return fail(MPI_ERR_AMODE, "amode={:#x}: MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL", amode);
  }
  return MPI_SUCCESS;
}

int open_flags(int amode) {
  if (amode & MPI_MODE_RDWR) return O_RDWR;
  return (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDONLY;
}

// This rank's open(2): rank 0 creates the file when asked, the others open
// what rank 0 made.
int open_local(File& f, bool create) {
  int flags = open_flags(f.amode) | O_CLOEXEC;
  if (create && (f.amode & MPI_MODE_CREATE)) {
    flags |= O_CREAT;
    if (f.amode & MPI_MODE_EXCL) flags |= O_EXCL;
  }
  int fd;
  do {
    fd = ::open(f.path.c_str(), flags, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail_errno(errno, "opening", f.path);
  f.fd = fd;
  return MPI_SUCCESS;
}

// The shared file pointer: one MPI_Offset at rank 0, in a window on the
// file's communicator.
int create_shared_pointer(File& f) {
  MPI_Aint bytes = 0;
  if (f.rank == 0) {
    f.shared_cell = new MPI_Offset(0);
    bytes = sizeof(MPI_Offset);
  }
  int rc = MPI_Win_create(f.shared_cell, bytes, sizeof(MPI_Offset), MPI_INFO_NULL, f.comm,
                          &f.shared_win);
  if (rc == MPI_SUCCESS) rc = MPI_Win_set_errhandler(f.shared_win, MPI_ERRORS_RETURN);
  return rc;
}

void release(File& f) {
  if (f.shared_win != MPI_WIN_NULL) MPI_Win_free(&f.shared_win);
  delete f.shared_cell;
  f.shared_cell = nullptr;
  if (f.fd >= 0) ::close(f.fd);
  f.fd = -1;
  if (f.info != MPI_INFO_NULL) MPI_Info_free(&f.info);
  if (f.comm != MPI_COMM_NULL) MPI_Comm_free(&f.comm);
}

void set_default_view(View& v) {
  TypePtr byte;
  lookup_type(MPI_BYTE, byte, true);
  v = View{};
  v.etype = byte;
  v.filetype = byte;
  flatten_view(v);
}

int file_size(const File& f, MPI_Offset& size) {
  struct stat st;
  if (fstat(f.fd, &st) != 0) return fail_errno(errno, "fstat", f.path);
  size = st.st_size;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info,
                             MPI_File* fh) {
  const ApiCall call("MPI_File_open");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_open";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS && c->is_inter()) rc = fail(MPI_ERR_COMM, "comm is an inter-communicator");
  if (rc == MPI_SUCCESS) rc = check_not_null(fh, "fh");
  if (rc != MPI_SUCCESS) return raise_file(nullptr, kFn, rc);
  auto f = std::make_unique<File>();
  rc = MPI_Comm_dup(comm, &f->comm);
  if (rc != MPI_SUCCESS) return raise_file(nullptr, kFn, rc);
  MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(f->comm, &f->rank);
  MPI_Comm_size(f->comm, &f->size);
  f->amode = amode;
  f->errhandler = file_null_errhandler();
  set_default_view(f->view);
  // Arguments, and the same amode everywhere.
  rc = check_not_null(filename, "filename");
  if (rc == MPI_SUCCESS) rc = check_amode(amode);
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc == MPI_SUCCESS) {
    f->path = filename;
    // ROMIO's file-system prefixes ("ufs:", "nfs:" ...) name the driver.
    if (auto colon = f->path.find(':'); colon != std::string::npos && colon >= 2 &&
                                        f->path.find('/') > colon) {
      f->path.erase(0, colon + 1);
    }
  }
  int modes[2] = {amode, -amode};
  int all[2] = {0, 0};
  MPI_Allreduce(modes, all, 2, MPI_INT, MPI_MAX, f->comm);
  if (rc == MPI_SUCCESS && all[0] != -all[1]) {
    rc = fail(MPI_ERR_NOT_SAME, "amode={:#x} differs between the ranks of comm", amode);
  }
  rc = agree_on(f->comm, rc);
  // Rank 0 creates, then the others open.
  if (rc == MPI_SUCCESS) {
    int rc0 = f->rank == 0 ? open_local(*f, true) : MPI_SUCCESS;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, f->comm);
    if (rc0 != MPI_SUCCESS) {
      rc = f->rank == 0 ? rc0 : fail(rc0, "rank 0 could not open \"{}\"", f->path);
    } else {
      if (f->rank != 0) rc = open_local(*f, false);
      rc = agree_on(f->comm, rc);
    }
  }
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = MPI_Info_dup(info, &f->info);
  if (rc == MPI_SUCCESS) rc = agree_on(f->comm, create_shared_pointer(*f));
  if (rc == MPI_SUCCESS && (amode & MPI_MODE_APPEND)) {
    MPI_Offset size = 0;
    rc = file_size(*f, size);
    f->position = size;
    if (f->rank == 0) *f->shared_cell = size;
    rc = agree_on(f->comm, rc);
  }
  if (rc != MPI_SUCCESS) {
    release(*f);
    *fh = MPI_FILE_NULL;
    return raise_file(nullptr, kFn, rc);
  }
  *fh = register_file(std::move(f));
  return MPI_SUCCESS;
}

extern "C" int MPI_File_close(MPI_File* fh) {
  const ApiCall call("MPI_File_close");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_close";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  int rc = check_not_null(fh, "fh");
  if (rc == MPI_SUCCESS) rc = lookup_file(*fh, f);
  if (rc != MPI_SUCCESS) return raise_file(nullptr, kFn, rc);
  if (f->split.active) {
    return raise_file(f, kFn,
                      fail(MPI_ERR_OTHER, "{} has not been ended yet", f->split.begun_by));
  }
  // Every rank's writes are done before anyone deletes the file.
  MPI_Barrier(f->comm);
  if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE)) ::unlink(f->path.c_str());
  release(*f);
  unregister_file(*fh);
  *fh = MPI_FILE_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPI_File_delete(const char* filename, MPI_Info info) {
  const ApiCall call("MPI_File_delete");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_delete";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(filename, "filename");
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc == MPI_SUCCESS && ::unlink(filename) != 0) rc = fail_errno(errno, "deleting", filename);
  return raise_file(nullptr, kFn, rc);
}

extern "C" int MPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  const ApiCall call("MPI_File_get_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_size";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  int rc = check_not_null(size, "size");
  if (rc == MPI_SUCCESS) rc = file_size(*f, *size);
  return raise_file(f, kFn, rc);
}

namespace {

// MPI_File_set_size and MPI_File_preallocate: collective; rank 0 changes
// the file, everyone learns how that went.
int resize(const char* fn, MPI_File fh, MPI_Offset size, bool preallocate) {
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, fn, rc);
  int rc = MPI_SUCCESS;
  if (size < 0) rc = fail(MPI_ERR_ARG, "size={} is negative", size);
  if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_RDONLY)) {
    rc = fail(MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  }
  if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_SEQUENTIAL)) {
    rc = fail(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened MPI_MODE_SEQUENTIAL");
  }
  MPI_Offset sizes[2] = {size, -size};
  MPI_Offset all[2] = {0, 0};
  MPI_Allreduce(sizes, all, 2, MPI_LONG, MPI_MAX, f->comm);
  if (rc == MPI_SUCCESS && all[0] != -all[1]) {
    rc = fail(MPI_ERR_NOT_SAME, "size={} differs between the ranks of the file's group", size);
  }
  rc = agree_on(f->comm, rc);
  if (rc != MPI_SUCCESS) return raise_file(f, fn, rc);  // everywhere
  if (f->rank == 0) {
    MPI_Offset now = 0;
    rc = file_size(*f, now);
    if (rc == MPI_SUCCESS && !preallocate && ftruncate(f->fd, size) != 0) {
      rc = fail_errno(errno, "ftruncate", f->path);
    }
    if (rc == MPI_SUCCESS && preallocate && size > now) {
      int err = posix_fallocate(f->fd, 0, size);
      if (err != 0) rc = fail_errno(err, "posix_fallocate", f->path);
    }
  }
  return raise_file(f, fn, agree_on(f->comm, rc));
}

}  // namespace

extern "C" int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  const ApiCall call("MPI_File_set_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_set_size";
  if (int rc = check_running(kFn)) return rc;
  return resize(kFn, fh, size, false);
}

extern "C" int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  const ApiCall call("MPI_File_preallocate");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_preallocate";
  if (int rc = check_running(kFn)) return rc;
  return resize(kFn, fh, size, true);
}

extern "C" int MPI_File_sync(MPI_File fh) {
  const ApiCall call("MPI_File_sync");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_sync";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  int rc = MPI_SUCCESS;
  if ((f->amode & MPI_MODE_RDONLY) == 0 && fsync(f->fd) != 0) {
    rc = fail_errno(errno, "fsync", f->path);
  }
  return raise_file(f, kFn, agree_on(f->comm, rc));
}

extern "C" int MPI_File_get_group(MPI_File fh, MPI_Group* group) {
  const ApiCall call("MPI_File_get_group");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_group";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_not_null(group, "group")) return raise_file(f, kFn, rc);
  return raise_file(f, kFn, MPI_Comm_group(f->comm, group));
}

extern "C" int MPI_File_get_amode(MPI_File fh, int* amode) {
  const ApiCall call("MPI_File_get_amode");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_amode";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_not_null(amode, "amode")) return raise_file(f, kFn, rc);
  *amode = f->amode;
  return MPI_SUCCESS;
}

extern "C" int MPI_File_set_info(MPI_File fh, MPI_Info info) {
  const ApiCall call("MPI_File_set_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_set_info";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_info_arg(info)) return raise_file(f, kFn, rc);
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  // Hints only (none changes what Lapis does): kept, later values win.
  if (f->info == MPI_INFO_NULL) return raise_file(f, kFn, MPI_Info_dup(info, &f->info));
  int nkeys = 0;
  MPI_Info_get_nkeys(info, &nkeys);
  for (int i = 0; i < nkeys; ++i) {
    char key[MPI_MAX_INFO_KEY + 1];
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get_nthkey(info, i, key);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    if (flag) MPI_Info_set(f->info, key, value);
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  const ApiCall call("MPI_File_get_info");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_info";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_not_null(info_used, "info_used")) return raise_file(f, kFn, rc);
  InfoPtr hints;
  Comm* c = nullptr;
  int rc = f->info == MPI_INFO_NULL ? MPI_SUCCESS : lookup_info(f->info, hints, "info");
  if (rc == MPI_SUCCESS) rc = lookup_comm(f->comm, c);
  if (rc != MPI_SUCCESS) return raise_file(f, kFn, rc);
  auto used = hints ? std::make_shared<Info>(*hints) : std::make_shared<Info>();
  used->set(kMemoryKindsKey, memory_kinds_of(*c));
  return raise_file(f, kFn, insert_info(std::move(used), info_used, "info_used"));
}

extern "C" int MPI_File_set_atomicity(MPI_File fh, int flag) {
  const ApiCall call("MPI_File_set_atomicity");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_set_atomicity";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  int flags[2] = {flag ? 1 : 0, flag ? -1 : 0};
  int all[2] = {0, 0};
  MPI_Allreduce(flags, all, 2, MPI_INT, MPI_MAX, f->comm);
  int rc = MPI_SUCCESS;
  if (all[0] != -all[1]) {
    rc = fail(MPI_ERR_NOT_SAME, "flag={} differs between the ranks of the file's group", flag);
  }
  if (rc == MPI_SUCCESS) f->atomic = flag != 0;
  return raise_file(f, kFn, rc);
}

extern "C" int MPI_File_get_atomicity(MPI_File fh, int* flag) {
  const ApiCall call("MPI_File_get_atomicity");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_atomicity";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_not_null(flag, "flag")) return raise_file(f, kFn, rc);
  *flag = f->atomic ? 1 : 0;
  return MPI_SUCCESS;
}

// ---- error handlers (MPI_FILE_NULL's applies to MPI_File_open and
// MPI_File_delete, and is MPI_ERRORS_RETURN until set) ------------------

extern "C" int MPI_File_create_errhandler(MPI_File_errhandler_function* file_errhandler_fn,
                                          MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_File_create_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_create_errhandler";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(reinterpret_cast<const void*>(file_errhandler_fn), "file_errhandler_fn");
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *errhandler = state().errhandlers.insert(std::make_shared<const Errhandler>(Errhandler{
      Errhandler::Kind::user, reinterpret_cast<MPI_Comm_errhandler_function*>(file_errhandler_fn)}));
  return MPI_SUCCESS;
}

// For mpi/fortran (fortran_support.h): the same for a Fortran handler.
extern "C" int lapis_f_file_create_errhandler(MPI_Comm_errhandler_function* fn,
                                              MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_File_create_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_create_errhandler";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(reinterpret_cast<const void*>(fn), "file_errhandler_fn");
  if (rc == MPI_SUCCESS) rc = check_not_null(errhandler, "errhandler");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *errhandler = state().errhandlers.insert(
      std::make_shared<const Errhandler>(
          Errhandler{.kind = Errhandler::Kind::user, .fn = fn, .fortran_file = true}));
  return MPI_SUCCESS;
}

extern "C" int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  const ApiCall call("MPI_File_set_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_set_errhandler";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (file != MPI_FILE_NULL) {
    if (int rc = lookup_file(file, f, "file")) return raise_file(nullptr, kFn, rc);
  }
  if (int rc = lookup_errhandler(errhandler, f != nullptr ? f->errhandler : file_null_errhandler())) {
    return raise_file(f, kFn, rc);
  }
  return MPI_SUCCESS;
}

extern "C" int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  const ApiCall call("MPI_File_get_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_errhandler";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (file != MPI_FILE_NULL) {
    if (int rc = lookup_file(file, f, "file")) return raise_file(nullptr, kFn, rc);
  }
  if (int rc = check_not_null(errhandler, "errhandler")) return raise_file(f, kFn, rc);
  *errhandler = errhandler_handle_for(f != nullptr ? f->errhandler : file_null_errhandler());
  return MPI_SUCCESS;
}

extern "C" int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
  const ApiCall call("MPI_File_call_errhandler");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_call_errhandler";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (fh != MPI_FILE_NULL) {
    if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  }
  set_error_detail("raised by the program");
  raise_file(f, kFn, errorcode);
  return MPI_SUCCESS;
}

extern "C" MPI_Fint MPI_File_c2f(MPI_File file) {
  const ApiCall call("MPI_File_c2f");
  return file_c2f(file);
}

extern "C" MPI_File MPI_File_f2c(MPI_Fint file) {
  const ApiCall call("MPI_File_f2c");
  return file_f2c(file);
}
