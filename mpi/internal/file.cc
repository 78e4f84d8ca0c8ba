#include "mpi/internal/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "mpi/internal/errors.hpp"
#include "mpi/internal/external32.hpp"
#include "mpi/internal/state.hpp"

namespace mpi::io {
namespace {

// The open files (guarded by the MPI lock, as every MPI-layer table).
std::unordered_map<File*, std::unique_ptr<File>> g_files;
// Fortran handles: g_fortran[i] is handle i + 1 (nullptr once closed).
std::vector<File*> g_fortran;

}  // namespace

MPI_File handle_of(File* f) { return reinterpret_cast<MPI_File>(f); }

int lookup_file(MPI_File fh, File*& out, const char* arg) {
  out = nullptr;
  if (fh == MPI_FILE_NULL) return fail(MPI_ERR_FILE, "{} is MPI_FILE_NULL", arg);
  auto it = g_files.find(reinterpret_cast<File*>(fh));
  if (it == g_files.end()) {
    return fail(MPI_ERR_FILE, "{}={} is not an open file", arg, static_cast<const void*>(fh));
  }
  out = it->second.get();
  return MPI_SUCCESS;
}

MPI_File register_file(std::unique_ptr<File> f) {
  File* raw = f.get();
  g_files.emplace(raw, std::move(f));
  return handle_of(raw);
}

void unregister_file(MPI_File fh) {
  auto it = g_files.find(reinterpret_cast<File*>(fh));
  if (it == g_files.end()) return;
  if (it->second->fint > 0) g_fortran[it->second->fint - 1] = nullptr;
  g_files.erase(it);
}

MPI_Fint file_c2f(MPI_File fh) {
  if (fh == MPI_FILE_NULL) return 0;
  auto it = g_files.find(reinterpret_cast<File*>(fh));
  if (it == g_files.end()) return -1;
  File& f = *it->second;
  if (f.fint == 0) {
    g_fortran.push_back(&f);
    f.fint = static_cast<MPI_Fint>(g_fortran.size());
  }
  return f.fint;
}

MPI_File file_f2c(MPI_Fint fint) {
  if (fint <= 0 || static_cast<std::size_t>(fint) > g_fortran.size()) return MPI_FILE_NULL;
  File* f = g_fortran[fint - 1];
  return f == nullptr ? MPI_FILE_NULL : handle_of(f);
}

ErrhandlerPtr& file_null_errhandler() {
  static ErrhandlerPtr h = return_errhandler();
  return h;
}

int raise_file(const File* f, const char* function, int code) {
  if (code == MPI_SUCCESS) return code;
  const ErrhandlerPtr& h = f != nullptr ? f->errhandler : file_null_errhandler();
  if (!h || h->kind == Errhandler::Kind::fatal) fatal_error(function, code, error_detail());
  if (h->kind == Errhandler::Kind::user && h->fn != nullptr) {
    MPI_File handle = f != nullptr ? handle_of(const_cast<File*>(f)) : MPI_FILE_NULL;
    if (h->fortran_file) {
      MPI_Fint fint = file_c2f(handle);
      return call_user_errhandler(*h, ErrObject::file, &fint, code);
    }
    return call_user_errhandler(*h, ErrObject::file, &handle, code);
  }
  return code;
}

int errno_class(int err) {
  switch (err) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case ENOSPC:
    case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case EBUSY:
    case ETXTBSY: return MPI_ERR_FILE_IN_USE;
    default: return MPI_ERR_IO;
  }
}

int fail_errno(int err, const char* what, const std::string& path) {
  return fail(errno_class(err), "{} of \"{}\" failed: {}", what, path, std::strerror(err));
}

int agree_on(MPI_Comm comm, int rc) {
  int all = rc;
  if (MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) {
    return fail(MPI_ERR_INTERN, "the file's group could not agree on the outcome");
  }
  if (all != MPI_SUCCESS && rc == MPI_SUCCESS) {
    return fail(all, "another rank of the file's group failed (this rank's part succeeded)");
  }
  return all;
}

// --- views -------------------------------------------------------------------

void flatten_view(View& v) {
  const Datatype& ft = *v.filetype;
  v.pieces.clear();
  v.piece_start.clear();
  v.tile_size = ft.size();
  v.tile_extent = ft.extent();
  const FlatType& flat = ft.flat();
  std::int64_t seen = 0;
  for (std::int64_t r = 0; r < flat.reps; ++r) {
    for (const Block& b : flat.blocks) {
      if (b.len == 0) continue;
      const std::int64_t off = r * flat.rep_stride + b.offset;
      if (!v.pieces.empty() && v.pieces.back().offset + v.pieces.back().len == off) {
        v.pieces.back().len += b.len;
      } else {
        v.pieces.push_back({off, b.len});
        v.piece_start.push_back(seen);
      }
      seen += b.len;
    }
  }
  v.contiguous = v.pieces.size() == 1 && v.pieces[0].offset == 0 &&
                 v.pieces[0].len == v.tile_extent;
}

MPI_Offset file_offset_of(const View& v, MPI_Offset vbyte) {
  if (v.contiguous) return v.disp + vbyte;
  if (v.tile_size == 0) return v.disp;
  const std::int64_t tile = vbyte / v.tile_size;
  const std::int64_t within = vbyte % v.tile_size;
  auto it = std::upper_bound(v.piece_start.begin(), v.piece_start.end(), within);
  const std::size_t i = static_cast<std::size_t>(it - v.piece_start.begin()) - 1;
  return v.disp + tile * v.tile_extent + v.pieces[i].offset + (within - v.piece_start[i]);
}

int check_external32_type(const Datatype& t, const char* arg) {
  if (external32_size(t) == t.size()) return MPI_SUCCESS;
  return fail(MPI_ERR_UNSUPPORTED_DATAREP,
              "datarep \"external32\": {} has C long, unsigned long or wchar_t elements, whose "
              "external32 size differs from the native one (Lapis converts only elements that "
              "keep their size)",
              arg);
}

// --- the shared file pointer ---------------------------------------------------

int shared_fetch_add(File& f, MPI_Offset delta, MPI_Offset& old) {
  int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f.shared_win);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Fetch_and_op(&delta, &old, MPI_LONG, 0, 0, delta == 0 ? MPI_NO_OP : MPI_SUM,
                          f.shared_win);
    int rc2 = MPI_Win_unlock(0, f.shared_win);
    if (rc == MPI_SUCCESS) rc = rc2;
  }
  if (rc != MPI_SUCCESS) return fail(rc, "moving the shared file pointer failed");
  return MPI_SUCCESS;
}

int shared_set_collective(File& f, MPI_Offset value) {
  // Nobody moves it before everyone got here, nobody uses it before it is set.
  int rc = MPI_Barrier(f.comm);
  if (rc == MPI_SUCCESS && f.rank == 0) {
    rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f.shared_win);
    if (rc == MPI_SUCCESS) {
      *f.shared_cell = value;
      rc = MPI_Win_unlock(0, f.shared_win);
    }
  }
  int rc2 = MPI_Barrier(f.comm);
  if (rc == MPI_SUCCESS) rc = rc2;
  if (rc != MPI_SUCCESS) return fail(rc, "setting the shared file pointer failed");
  return MPI_SUCCESS;
}

// --- data --------------------------------------------------------------------
namespace {

struct Extent {
  MPI_Offset offset;
  MPI_Offset len;
};

// The file extents of visible bytes [vbyte, vbyte + n), in order, merged.
std::vector<Extent> extents_of(const View& v, MPI_Offset vbyte, MPI_Offset n) {
  std::vector<Extent> out;
  if (n <= 0) return out;
  if (v.contiguous) {
    out.push_back({v.disp + vbyte, n});
    return out;
  }
  std::int64_t tile = vbyte / v.tile_size;
  std::int64_t within = vbyte % v.tile_size;
  auto it = std::upper_bound(v.piece_start.begin(), v.piece_start.end(), within);
  std::size_t i = static_cast<std::size_t>(it - v.piece_start.begin()) - 1;
  std::int64_t skip = within - v.piece_start[i];
  while (n > 0) {
    const Block& b = v.pieces[i];
    const MPI_Offset len = std::min<MPI_Offset>(b.len - skip, n);
    const MPI_Offset off = v.disp + tile * v.tile_extent + b.offset + skip;
    if (!out.empty() && out.back().offset + out.back().len == off) {
      out.back().len += len;
    } else {
      out.push_back({off, len});
    }
    n -= len;
    skip = 0;
    if (++i == v.pieces.size()) {
      i = 0;
      ++tile;
    }
  }
  return out;
}

// An fcntl byte-range lock over an access's extents while the file is in
// atomic mode (MPI_File_set_atomicity): ranks are processes, so POSIX
// record locks order their overlapping accesses.
class RangeLock {
 public:
  RangeLock(const File& f, const std::vector<Extent>& ext, bool write) {
    if (!f.atomic || ext.empty()) return;
    fd_ = f.fd;
    lock_.l_type = static_cast<short>(write ? F_WRLCK : F_RDLCK);
    lock_.l_whence = SEEK_SET;
    lock_.l_start = ext.front().offset;
    lock_.l_len = 0;
    MPI_Offset end = 0;
    for (const Extent& e : ext) {
      lock_.l_start = std::min<MPI_Offset>(lock_.l_start, e.offset);
      end = std::max<MPI_Offset>(end, e.offset + e.len);
    }
    lock_.l_len = end - lock_.l_start;
    // A read lock needs a readable descriptor, a write lock a writable one.
    while (fcntl(fd_, F_SETLKW, &lock_) != 0 && errno == EINTR) {}
  }
  ~RangeLock() {
    if (fd_ < 0) return;
    lock_.l_type = F_UNLCK;
    fcntl(fd_, F_SETLK, &lock_);
  }
  RangeLock(const RangeLock&) = delete;
  RangeLock& operator=(const RangeLock&) = delete;

 private:
  int fd_ = -1;
  struct flock lock_ {};
};

// pread until `len` bytes or the end of the file: the bytes read.
int pread_full(const File& f, char* p, MPI_Offset len, MPI_Offset off, MPI_Offset& got) {
  got = 0;
  while (got < len) {
    ssize_t r = pread(f.fd, p + got, static_cast<std::size_t>(len - got), off + got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return fail_errno(errno, "reading", f.path);
    if (r == 0) break;
    got += r;
  }
  return MPI_SUCCESS;
}

int pwrite_full(const File& f, const char* p, MPI_Offset len, MPI_Offset off) {
  MPI_Offset put = 0;
  while (put < len) {
    ssize_t r = pwrite(f.fd, p + put, static_cast<std::size_t>(len - put), off + put);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return fail_errno(errno, "writing", f.path);
    put += r;
  }
  return MPI_SUCCESS;
}

// The file's pieces behind `n` visible bytes from visible byte `vbyte`
// (read_visible and write_visible).
int visible_extents(const File& f, MPI_Offset vbyte, MPI_Offset n, std::vector<Extent>& ext) {
  if (f.view.tile_size == 0) {
    return fail(MPI_ERR_IO, "the view's filetype holds no data, and {} bytes were to move", n);
  }
  ext = extents_of(f.view, vbyte, n);
  return MPI_SUCCESS;
}

}  // namespace

int read_visible(File& f, MPI_Offset vbyte, void* buf, MPI_Count count, const Datatype& type,
                 MPI_Offset& bytes) {
  bytes = 0;
  const MPI_Offset n = count * type.size();
  if (n == 0) return MPI_SUCCESS;
  std::vector<Extent> ext;
  if (int rc = visible_extents(f, vbyte, n, ext)) return rc;
  const bool direct = type.contiguous_for(count);
  std::vector<char> staging;
  char* dst = static_cast<char*>(buf) + (direct ? type.data_offset() : 0);
  if (!direct) {
    staging.resize(static_cast<std::size_t>(n));
    dst = staging.data();
  }
  const RangeLock lock(f, ext, false);
  for (const Extent& e : ext) {
    MPI_Offset got = 0;
    if (int rc = pread_full(f, dst + bytes, e.len, e.offset, got)) return rc;
    bytes += got;
    if (got < e.len) break;  // the end of the file
  }
  if (!direct) unpack(type, buf, count, staging.data(), bytes);
  return MPI_SUCCESS;
}

int write_visible(File& f, MPI_Offset vbyte, const void* buf, MPI_Count count,
                  const Datatype& type, MPI_Offset& bytes) {
  bytes = 0;
  const MPI_Offset n = count * type.size();
  if (n == 0) return MPI_SUCCESS;
  std::vector<Extent> ext;
  if (int rc = visible_extents(f, vbyte, n, ext)) return rc;
  const bool direct = type.contiguous_for(count);
  std::vector<char> staging;
  const char* src = static_cast<const char*>(buf) + (direct ? type.data_offset() : 0);
  if (!direct) {
    staging.resize(static_cast<std::size_t>(n));
    pack(type, buf, count, staging.data());
    src = staging.data();
  }
  const RangeLock lock(f, ext, true);
  for (const Extent& e : ext) {
    if (int rc = pwrite_full(f, src + bytes, e.len, e.offset)) return rc;
    bytes += e.len;
  }
  return MPI_SUCCESS;
}

}  // namespace mpi::io
