#include "mpi/internal/file_access.hpp"

#include <climits>
#include <cstring>

#include "mpi/internal/buffers.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/external32.hpp"
#include "mpi/internal/file.hpp"
#include "mpi/internal/p2p_common.hpp"
#include "mpi/internal/request.hpp"
#include "mpi/internal/status_fields.hpp"

namespace mpi::io {
namespace {

int check_access(const Access& a, File& f, const Datatype*& type) {
  if (a.count < 0) return fail(MPI_ERR_COUNT, "count={} is negative", a.count);
  if (int rc = lookup_type(a.datatype, type, true)) return rc;
  if (a.count <= INT_MAX) {
    if (int rc = check_buffer(a.buf, static_cast<int>(a.count), *type)) return rc;
  }
  if (a.dir == Dir::write && (f.amode & MPI_MODE_RDONLY)) {
    return fail(MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
  }
  if (a.dir == Dir::read && (f.amode & MPI_MODE_WRONLY)) {
    return fail(MPI_ERR_ACCESS, "the file was opened MPI_MODE_WRONLY");
  }
  if ((a.where == Where::at || a.where == Where::individual) &&
      (f.amode & MPI_MODE_SEQUENTIAL)) {
    return fail(MPI_ERR_UNSUPPORTED_OPERATION,
                "the file was opened MPI_MODE_SEQUENTIAL: only the shared file pointer moves");
  }
  if (a.where == Where::at && a.offset < 0) {
    return fail(MPI_ERR_ARG, "offset={} is negative", a.offset);
  }
  const std::int64_t esize = f.view.etype->size();
  if (type->size() % esize != 0) {
    return fail(MPI_ERR_TYPE, "datatype's size {} is not a multiple of the view's etype size {}",
                type->size(), esize);
  }
  if (f.view.external32) return check_external32_type(*type, "datatype");
  if (f.view.user != nullptr) return check_datarep_type(*f.view.user, a.datatype, "datatype");
  return MPI_SUCCESS;
}

// Where the access starts, in etypes: `units` is its length (every rank of
// an ordered access passes its own, 0 when its arguments were bad).
int start_of(const Access& a, File& f, MPI_Offset units, MPI_Offset& start) {
  switch (a.where) {
    case Where::at: start = a.offset; return MPI_SUCCESS;
    case Where::individual: start = f.position; return MPI_SUCCESS;
    case Where::shared: return shared_fetch_add(f, units, start);
    case Where::ordered: {
      // Rank order: an exclusive scan of the lengths; rank 0 moves the
      // shared pointer past them all and tells everyone where it was.
      MPI_Offset before = 0, total = 0, base = 0;
      int rc = MPI_Exscan(&units, &before, 1, MPI_LONG, MPI_SUM, f.comm);
      if (f.rank == 0) before = 0;
      if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&units, &total, 1, MPI_LONG, MPI_SUM, f.comm);
      int rc0 = MPI_SUCCESS;
      if (rc == MPI_SUCCESS && f.rank == 0) rc0 = shared_fetch_add(f, total, base);
      if (rc == MPI_SUCCESS) rc = MPI_Bcast(&base, 1, MPI_LONG, 0, f.comm);
      if (rc != MPI_SUCCESS) return fail(rc, "agreeing on the ranks' offsets failed");
      if (rc0 != MPI_SUCCESS) return rc0;
      start = base + before;
      return MPI_SUCCESS;
    }
  }
  return MPI_SUCCESS;
}

// Through a converting view ("external32", or a registered representation
// with conversion functions): the data goes through a buffer of its file
// bytes (the same sizes: check_external32_type, check_datarep_type), moved
// as bytes. A read converts the whole items it got.
int move_converted(const Access& a, File& f, MPI_Offset vbyte, const Datatype& type,
                   MPI_Offset& bytes) {
  const std::int64_t total = a.count * type.size();
  Staging buffer;  // reports exhaustion: the count comes from the program
  if (!buffer.try_allocate(static_cast<std::size_t>(total))) {
    return fail(MPI_ERR_NO_MEM, "no memory for the {} bytes converted for the view's datarep \"{}\"",
                total, f.view.datarep);
  }
  char* const staged = buffer.data.get();
  const Datatype* byte_type = nullptr;
  if (int rc = lookup_type(MPI_BYTE, byte_type, true)) return rc;
  const UserDatarep* user = f.view.user;
  if (a.dir == Dir::write) {
    const int rc = user != nullptr
                       ? convert_for_write(*user, a.buf, a.datatype, a.count, staged)
                       : pack_external32(type, a.buf, a.count, staged);
    if (rc != MPI_SUCCESS) return rc;
    return write_visible(f, vbyte, staged, total, *byte_type, bytes);
  }
  if (int rc = read_visible(f, vbyte, staged, total, *byte_type, bytes)) return rc;
  if (type.size() == 0) return MPI_SUCCESS;
  const std::int64_t whole = bytes / type.size();
  void* out = const_cast<void*>(a.buf);
  if (user != nullptr) return convert_after_read(*user, out, a.datatype, whole, staged);
  return unpack_external32(type, staged, whole, out);
}

// Whether data through f's view is converted on the way (else it moves as
// it is: "native", "internal", or a registered representation whose
// functions for this direction are MPI_CONVERSION_FN_NULL).
bool converts(const File& f, Dir dir) {
  if (f.view.external32) return true;
  const UserDatarep* u = f.view.user;
  if (u == nullptr) return false;
  return dir == Dir::write ? (u->write != nullptr || u->write_c != nullptr)
                           : (u->read != nullptr || u->read_c != nullptr);
}

int move_data(const Access& a, File& f, MPI_Status* status) {
  const Datatype* type = nullptr;
  int rc = check_access(a, f, type);
  const std::int64_t esize = f.view.etype->size();
  const MPI_Offset units = rc == MPI_SUCCESS ? a.count * (type->size() / esize) : 0;
  MPI_Offset start = 0;
  if (rc == MPI_SUCCESS || a.where == Where::ordered) {
    int rc2 = start_of(a, f, units, start);
    if (rc == MPI_SUCCESS) rc = rc2;
  }
  if (rc != MPI_SUCCESS) return rc;
  MPI_Offset bytes = 0;
  if (converts(f, a.dir)) {
    rc = move_converted(a, f, start * esize, *type, bytes);
  } else if (a.dir == Dir::read) {
    rc = read_visible(f, start * esize, const_cast<void*>(a.buf), a.count, *type, bytes);
  } else {
    rc = write_visible(f, start * esize, a.buf, a.count, *type, bytes);
  }
  if (a.where == Where::individual) f.position = start + bytes / esize;
  if (rc != MPI_SUCCESS) return rc;
  if (wants_status(status)) {
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->count_hi_and_cancelled = 0;
    set_status_count(*status, bytes);
  }
  return MPI_SUCCESS;
}

// The access itself; the status is filled on success. Returns the error
// class (not raised); f is the file when fh named one.
int run(const Access& a, File*& f, MPI_Status* status) {
  if (int rc = lookup_file(a.fh, f)) return rc;
  const int rc = move_data(a, *f, status);
  if (a.sync == Sync::collective && a.dir == Dir::write) MPI_Barrier(f->comm);
  return rc;
}

// A completed generalized request carrying a status.
struct Done {
  MPI_Status status;
};

int done_query(void* extra, MPI_Status* status) {
  *status = static_cast<Done*>(extra)->status;
  return MPI_SUCCESS;
}
int done_free(void* extra) {
  delete static_cast<Done*>(extra);
  return MPI_SUCCESS;
}
int done_cancel(void*, int) { return MPI_SUCCESS; }

}  // namespace

int access_blocking(const Access& a, MPI_Status* status) {
  if (int rc = check_running(a.fn)) return rc;
  File* f = nullptr;
  int rc = MPI_SUCCESS;
  if (status == nullptr) rc = fail(MPI_ERR_ARG, "status is NULL (MPI_STATUS_IGNORE is fine)");
  if (rc == MPI_SUCCESS) rc = run(a, f, status);
  return raise_file(f, a.fn, rc);
}

int access_nonblocking(const Access& a, MPI_Request* request) {
  if (int rc = check_running(a.fn)) return rc;
  File* f = nullptr;
  int rc = check_not_null(request, "request");
  auto* done = new Done{};
  set_empty_status(&done->status);
  if (rc == MPI_SUCCESS) rc = run(a, f, &done->status);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Grequest_start(done_query, done_free, done_cancel, done, request);
    if (rc == MPI_SUCCESS) return MPI_Grequest_complete(*request);
  }
  delete done;
  return raise_file(f, a.fn, rc);
}

int access_begin(const Access& a) {
  if (int rc = check_running(a.fn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(a.fh, f)) return raise_file(nullptr, a.fn, rc);
  if (f->split.active) {
    return raise_file(f, a.fn,
                      fail(MPI_ERR_OTHER, "{} is still active on this file (one split collective "
                                          "at a time)",
                           f->split.begun_by));
  }
  MPI_Status status;
  set_empty_status(&status);
  int rc = run(a, f, &status);
  if (rc != MPI_SUCCESS) return raise_file(f, a.fn, rc);
  f->split = Split{true, a.fn, status, MPI_SUCCESS};
  return MPI_SUCCESS;
}

int access_end(const char* fn, const char* begun, MPI_File fh, MPI_Status* status) {
  if (int rc = check_running(fn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, fn, rc);
  if (!f->split.active || std::strncmp(f->split.begun_by, begun, std::strlen(begun)) != 0 ||
      (f->split.begun_by[std::strlen(begun)] != '\0' &&
       std::strcmp(f->split.begun_by + std::strlen(begun), "_c") != 0)) {
    return raise_file(f, fn,
                      fail(MPI_ERR_OTHER, "no {} is active on this file{}{}", begun,
                           f->split.active ? " (active: " : "",
                           f->split.active ? std::string(f->split.begun_by) + ")" : ""));
  }
  if (status == nullptr) {
    return raise_file(f, fn, fail(MPI_ERR_ARG, "status is NULL (MPI_STATUS_IGNORE is fine)"));
  }
  if (wants_status(status)) *status = f->split.status;
  f->split = Split{};
  return MPI_SUCCESS;
}

}  // namespace mpi::io
