// MPI-IO: file views, the individual and shared file pointers, datatype
// extents in the file, data representations.
#include <sys/stat.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/file.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;
using namespace mpi::io;

namespace {

int check_datarep(const char* datarep, MPI_Datatype etype, MPI_Datatype filetype, View& v) {
  if (int rc = check_not_null(datarep, "datarep")) return rc;
  const std::string d = datarep;
  v.native = d == "native" || d == "internal";
  v.external32 = d == "external32";
  v.user = find_datarep(d);
  if (v.native) return MPI_SUCCESS;
  if (v.external32) {
    // The file's layout is the types' own (file_access.cc's conversion
    // keeps every element's size), so their elements must not change size.
    if (int rc = check_external32_type(*v.etype, "etype")) return rc;
    return check_external32_type(*v.filetype, "filetype");
  }
  if (v.user != nullptr) {
    if (int rc = check_datarep_type(*v.user, etype, "etype")) return rc;
    return check_datarep_type(*v.user, filetype, "filetype");
  }
  return fail(MPI_ERR_UNSUPPORTED_DATAREP,
              "datarep=\"{}\" is not \"native\", \"internal\", \"external32\" or a registered one", d);
}

// An etype or filetype must have its data at non-negative, non-decreasing
// displacements, and in a file that may be written no byte twice (MPI 3.1
// 13.3; ROMIO reports these as MPI_ERR_IO, and so does Lapis).
int check_view_type(const Datatype& t, const char* arg, bool writable) {
  const FlatType& flat = t.flat();
  std::int64_t prev_start = 0, prev_end = 0;
  bool first = true;
  for (std::int64_t r = 0; r < flat.reps; ++r) {
    for (const Block& b : flat.blocks) {
      if (b.len == 0) continue;
      const std::int64_t off = r * flat.rep_stride + b.offset;
      if (off < 0) return fail(MPI_ERR_IO, "{} has data at a negative displacement ({})", arg, off);
      if (!first && off < prev_start) {
        return fail(MPI_ERR_IO, "{}'s displacements decrease ({} after {})", arg, off, prev_start);
      }
      if (!first && writable && off < prev_end) {
        return fail(MPI_ERR_IO,
                    "{} overlaps itself at byte {}, and the file may be written", arg, off);
      }
      prev_start = off;
      prev_end = std::max(prev_end, off + b.len);
      first = false;
    }
  }
  return MPI_SUCCESS;
}

// A predefined handle as it is, a derived one as a new duplicate the
// caller frees (MPI_File_get_view).
int handle_for_caller(MPI_Datatype stored, const TypePtr& type, MPI_Datatype* out) {
  if (type->is_builtin()) {
    *out = stored;
    return MPI_SUCCESS;
  }
  TypePtr copy = Datatype::dup(type);
  if (copy == nullptr) return fail(MPI_ERR_NO_MEM, "no memory to duplicate the view's type");
  if (int rc = commit_type(*copy)) return rc;
  *out = state().types.insert(copy);
  return MPI_SUCCESS;
}

// Where MPI_File_seek(_shared) moves a pointer at `current` (etypes).
int seek_target(File& f, MPI_Offset offset, int whence, MPI_Offset current, MPI_Offset& out) {
  switch (whence) {
    case MPI_SEEK_SET: out = offset; break;
    case MPI_SEEK_CUR: out = current + offset; break;
    case MPI_SEEK_END: {
      // The end of the file, in etypes of the view: the first visible
      // byte at or after the end.
      struct stat st;
      if (fstat(f.fd, &st) != 0) return fail_errno(errno, "fstat", f.path);
      const MPI_Offset size = st.st_size;
      const MPI_Offset esize = f.view.etype->size();
      MPI_Offset vbytes = 0;
      if (size > f.view.disp && f.view.tile_size > 0) {
        // Count the visible bytes before `size` (binary search over the
        // monotone mapping of visible bytes to file offsets).
        MPI_Offset lo = 0, hi = size - f.view.disp + 1;
        while (lo < hi) {
          const MPI_Offset mid = lo + (hi - lo) / 2;
          if (file_offset_of(f.view, mid) < size) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        vbytes = lo;
      }
      out = (vbytes + esize - 1) / esize + offset;
      break;
    }
    default:
      return fail(MPI_ERR_ARG, "whence={} is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END",
                  whence);
  }
  if (out < 0) return fail(MPI_ERR_ARG, "the pointer would move to {} (negative)", out);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                 MPI_Datatype filetype, const char* datarep, MPI_Info info) {
  const ApiCall call("MPI_File_set_view");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_set_view";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  View v;
  int rc = lookup_type(etype, v.etype, true, "etype");
  if (rc == MPI_SUCCESS) rc = lookup_type(filetype, v.filetype, true, "filetype");
  if (rc == MPI_SUCCESS && v.etype->size() == 0) rc = fail(MPI_ERR_TYPE, "etype has size 0");
  if (rc == MPI_SUCCESS && v.filetype->size() % v.etype->size()) {
    rc = fail(MPI_ERR_TYPE, "filetype's size {} is not a multiple of etype's size {}",
              v.filetype->size(), v.etype->size());
  }
  const bool writable = (f->amode & MPI_MODE_RDONLY) == 0;
  if (rc == MPI_SUCCESS) rc = check_view_type(*v.etype, "etype", writable);
  if (rc == MPI_SUCCESS) rc = check_view_type(*v.filetype, "filetype", writable);
  if (rc == MPI_SUCCESS && disp == MPI_DISPLACEMENT_CURRENT &&
      (f->amode & MPI_MODE_SEQUENTIAL) == 0) {
    rc = fail(MPI_ERR_ARG, "disp=MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL");
  } else if (rc == MPI_SUCCESS && disp < 0 && disp != MPI_DISPLACEMENT_CURRENT) {
    rc = fail(MPI_ERR_ARG, "disp={} is negative", disp);
  }
  if (rc == MPI_SUCCESS) rc = check_datarep(datarep, etype, filetype, v);
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  // Collective: a rank whose arguments are bad fails them all, and nobody
  // waits for it in the steps below.
  rc = agree_on(f->comm, rc);
  if (rc != MPI_SUCCESS) return raise_file(f, kFn, rc);
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    MPI_Offset shared = 0;
    if (int rc2 = shared_fetch_add(*f, 0, shared)) return raise_file(f, kFn, rc2);
    disp = file_offset_of(f->view, shared * f->view.etype->size());
  }
  v.disp = disp;
  v.etype_handle = etype;
  v.filetype_handle = filetype;
  v.datarep = datarep;
  flatten_view(v);
  f->view = std::move(v);
  f->position = 0;
  rc = shared_set_collective(*f, 0);
  if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = MPI_File_set_info(fh, info);
  return raise_file(f, kFn, rc);
}

extern "C" int MPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype,
                                 MPI_Datatype* filetype, char* datarep) {
  const ApiCall call("MPI_File_get_view");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_view";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  int rc = check_not_null(disp, "disp");
  if (rc == MPI_SUCCESS) rc = check_not_null(etype, "etype");
  if (rc == MPI_SUCCESS) rc = check_not_null(filetype, "filetype");
  if (rc == MPI_SUCCESS) rc = check_not_null(datarep, "datarep");
  if (rc != MPI_SUCCESS) return raise_file(f, kFn, rc);
  const View& v = f->view;
  *disp = v.disp;
  rc = handle_for_caller(v.etype_handle, v.etype, etype);
  if (rc == MPI_SUCCESS) rc = handle_for_caller(v.filetype_handle, v.filetype, filetype);
  if (rc != MPI_SUCCESS) return raise_file(f, kFn, rc);
  // The name and its NUL only: strncpy's padding to MPI_MAX_DATAREP_STRING
  // overwrote what lay after a shorter buffer (MPICH's cxx/io/filemiscx
  // passes char[25], as ROMIO, which copies the string only, allows).
  const std::size_t n = std::min(v.datarep.size(), std::size_t{MPI_MAX_DATAREP_STRING - 1});
  std::memcpy(datarep, v.datarep.data(), n);
  datarep[n] = '\0';
  return MPI_SUCCESS;
}

extern "C" int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  const ApiCall call("MPI_File_seek");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_seek";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (f->amode & MPI_MODE_SEQUENTIAL) {
    return raise_file(f, kFn,
                      fail(MPI_ERR_UNSUPPORTED_OPERATION, "the file was opened MPI_MODE_SEQUENTIAL"));
  }
  MPI_Offset to = 0;
  if (int rc = seek_target(*f, offset, whence, f->position, to)) return raise_file(f, kFn, rc);
  f->position = to;
  return MPI_SUCCESS;
}

extern "C" int MPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  const ApiCall call("MPI_File_get_position");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_position";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_not_null(offset, "offset")) return raise_file(f, kFn, rc);
  *offset = f->position;
  return MPI_SUCCESS;
}

extern "C" int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  const ApiCall call("MPI_File_seek_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_seek_shared";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  MPI_Offset now = 0;
  int rc = shared_fetch_add(*f, 0, now);
  MPI_Offset to = 0;
  if (rc == MPI_SUCCESS) rc = seek_target(*f, offset, whence, now, to);
  // Every rank must ask for the same place.
  MPI_Offset both[2] = {rc == MPI_SUCCESS ? to : -1, rc == MPI_SUCCESS ? -to : 1};
  MPI_Offset all[2] = {0, 0};
  MPI_Allreduce(both, all, 2, MPI_LONG, MPI_MAX, f->comm);
  if (rc == MPI_SUCCESS && all[0] != -all[1]) {
    rc = fail(MPI_ERR_NOT_SAME, "the ranks of the file's group asked for different offsets");
  }
  if (rc == MPI_SUCCESS) rc = shared_set_collective(*f, to);
  return raise_file(f, kFn, rc);
}

extern "C" int MPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  const ApiCall call("MPI_File_get_position_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_position_shared";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  if (int rc = check_not_null(offset, "offset")) return raise_file(f, kFn, rc);
  return raise_file(f, kFn, shared_fetch_add(*f, 0, *offset));
}

extern "C" int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  const ApiCall call("MPI_File_get_byte_offset");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_byte_offset";
  if (int rc = check_running(kFn)) return rc;
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, kFn, rc);
  int rc = check_not_null(disp, "disp");
  if (rc == MPI_SUCCESS && offset < 0) rc = fail(MPI_ERR_ARG, "offset={} is negative", offset);
  if (rc != MPI_SUCCESS) return raise_file(f, kFn, rc);
  *disp = file_offset_of(f->view, offset * f->view.etype->size());
  return MPI_SUCCESS;
}

namespace {

int type_extent(const char* fn, MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  File* f = nullptr;
  if (int rc = lookup_file(fh, f)) return raise_file(nullptr, fn, rc);
  TypePtr t;
  int rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(extent, "extent");
  if (rc != MPI_SUCCESS) return raise_file(f, fn, rc);
  // The memory extent: "native", and "external32" views, whose types keep
  // their elements' sizes (check_external32_type).
  *extent = t->extent();
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  const ApiCall call("MPI_File_get_type_extent");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_type_extent";
  if (int rc = check_running(kFn)) return rc;
  MPI_Count e = 0;
  int rc = type_extent(kFn, fh, datatype, extent == nullptr ? nullptr : &e);
  if (rc == MPI_SUCCESS) *extent = e;
  return rc;
}

extern "C" int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  const ApiCall call("MPI_File_get_type_extent_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_File_get_type_extent_c";
  if (int rc = check_running(kFn)) return rc;
  return type_extent(kFn, fh, datatype, extent);
}

// Registered representations (file_datarep.hpp): their functions convert
// data moving through views that name them.
namespace {

int register_rep(const char* fn, const char* datarep, const UserDatarep& rep) {
  int rc = check_not_null(datarep, "datarep");
  if (rc == MPI_SUCCESS) {
    rc = check_not_null(reinterpret_cast<const void*>(rep.extent), "dtype_file_extent_fn");
  }
  if (rc == MPI_SUCCESS && std::strlen(datarep) >= MPI_MAX_DATAREP_STRING) {
    rc = fail(MPI_ERR_ARG, "datarep is longer than MPI_MAX_DATAREP_STRING - 1");
  }
  if (rc == MPI_SUCCESS) rc = register_datarep(datarep, rep);
  return raise_file(nullptr, fn, rc);
}

}  // namespace

extern "C" int MPI_Register_datarep(const char* datarep,
                                    MPI_Datarep_conversion_function* read_conversion_fn,
                                    MPI_Datarep_conversion_function* write_conversion_fn,
                                    MPI_Datarep_extent_function* dtype_file_extent_fn,
                                    void* extra_state) {
  const ApiCall call("MPI_Register_datarep");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Register_datarep";
  if (int rc = check_running(kFn)) return rc;
  UserDatarep rep;
  rep.read = read_conversion_fn;
  rep.write = write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra_state = extra_state;
  return register_rep(kFn, datarep, rep);
}

extern "C" int MPI_Register_datarep_c(const char* datarep,
                                      MPI_Datarep_conversion_function_c* read_conversion_fn,
                                      MPI_Datarep_conversion_function_c* write_conversion_fn,
                                      MPI_Datarep_extent_function* dtype_file_extent_fn,
                                      void* extra_state) {
  const ApiCall call("MPI_Register_datarep_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Register_datarep_c";
  if (int rc = check_running(kFn)) return rc;
  UserDatarep rep;
  rep.read_c = read_conversion_fn;
  rep.write_c = write_conversion_fn;
  rep.extent = dtype_file_extent_fn;
  rep.extra_state = extra_state;
  return register_rep(kFn, datarep, rep);
}
