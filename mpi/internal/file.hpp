#pragma once
// MPI-IO's file objects (MPI_File handles point at these) and the steps of
// every data access: map the view's visible bytes to file extents, move
// them with pread/pwrite, pack or unpack the memory side with the datatype
// engine.
//
// Built only on MPI itself and POSIX: a file's group talks on a private
// duplicate of the communicator it was opened on (errors return, so the
// program's handlers never see the library's own calls), and its shared
// file pointer is one MPI_Offset in an MPI window on that duplicate, held
// by rank 0 and moved with MPI_Fetch_and_op under an exclusive lock.
// One host: every rank sees the same POSIX file system, and POSIX makes a
// completed pwrite visible to every later pread on that host, so
// collective calls are independent I/O and MPI_File_sync is fsync.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/errhandler.hpp"
#include "mpi/internal/file_datarep.hpp"

namespace mpi::io {

// A file view (MPI_File_set_view): the visible bytes are the filetype's
// data, tiled from `disp` every `tile_extent` bytes.
struct View {
  MPI_Offset disp = 0;
  TypePtr etype;     // committed
  TypePtr filetype;  // committed
  MPI_Datatype etype_handle = MPI_BYTE;
  MPI_Datatype filetype_handle = MPI_BYTE;
  std::string datarep = "native";
  bool native = true;  // "native" or "internal": no conversion
  // "external32": elements big-endian in the file, converted as they move
  // (only types whose elements keep their size: check_external32_type).
  bool external32 = false;
  // A representation registered by the program (file_datarep.hpp), whose
  // functions convert the data as it moves.
  const UserDatarep* user = nullptr;
  // One tile flattened: (offset from the tile's start, length), typemap
  // order, and the visible bytes before each piece.
  std::vector<Block> pieces;
  std::vector<std::int64_t> piece_start;
  std::int64_t tile_size = 1;    // visible bytes per tile
  std::int64_t tile_extent = 1;  // file bytes per tile
  bool contiguous = true;        // visible byte v is at disp + v
};

// A split collective (MPI_File_*_begin) waiting for its _end.
struct Split {
  bool active = false;
  const char* begun_by = nullptr;
  MPI_Status status{};
  int rc = MPI_SUCCESS;
};

struct File {
  int fd = -1;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, MPI_ERRORS_RETURN
  int rank = 0;
  int size = 1;
  std::string path;
  int amode = 0;
  MPI_Info info = MPI_INFO_NULL;  // the hints given (own copy)
  ErrhandlerPtr errhandler;
  bool atomic = false;
  View view;
  MPI_Offset position = 0;  // individual file pointer, in etypes
  MPI_Win shared_win = MPI_WIN_NULL;
  MPI_Offset* shared_cell = nullptr;  // rank 0: the shared file pointer, in etypes
  MPI_Fint fint = 0;                  // Fortran handle, 0 until MPI_File_c2f asks
  Split split;
};

// --- handles ---------------------------------------------------------------
MPI_File handle_of(File* f);
// MPI_ERR_FILE naming the argument when fh is not an open file.
int lookup_file(MPI_File fh, File*& out, const char* arg = "fh");
MPI_File register_file(std::unique_ptr<File> f);
// Forgets the handle and destroys the object.
void unregister_file(MPI_File fh);
MPI_Fint file_c2f(MPI_File fh);
MPI_File file_f2c(MPI_Fint fint);

// --- errors ----------------------------------------------------------------
// Raises `code` through f's handler (nullptr: MPI_FILE_NULL's, by default
// MPI_ERRORS_RETURN). Returns `code` unless the handler ends the job.
int raise_file(const File* f, const char* function, int code);
ErrhandlerPtr& file_null_errhandler();
// The MPI error class of a failed system call's errno.
int errno_class(int err);
// fail() with the errno's class and text.
int fail_errno(int err, const char* what, const std::string& path);

// The largest error class any rank of `comm` found (MPI_SUCCESS: none), so
// that a collective call fails or succeeds everywhere. The detail stays
// this rank's own, or says another rank failed.
int agree_on(MPI_Comm comm, int rc);

// --- views ----------------------------------------------------------------
// Fills the pieces of a view whose types are set.
void flatten_view(View& v);
// The file offset of visible byte `vbyte` (MPI_File_get_byte_offset).
MPI_Offset file_offset_of(const View& v, MPI_Offset vbyte);
// MPI_ERR_UNSUPPORTED_DATAREP naming `arg` unless every element of `t` has
// its native size in external32 (C long, unsigned long and wchar_t do not):
// Lapis' external32 files then have the native types' layout, and only the
// byte order changes.
int check_external32_type(const Datatype& t, const char* arg);

// --- the shared file pointer (in etypes) ------------------------------------
// Atomic fetch-and-add at rank 0's cell; any rank, any time.
int shared_fetch_add(File& f, MPI_Offset delta, MPI_Offset& old);
// Collective: every rank sets it to `value` (MPI_File_seek_shared, set_view).
int shared_set_collective(File& f, MPI_Offset value);

// --- data ------------------------------------------------------------------
// Moves count instances of `type` at `buf` from or to the visible bytes
// starting at `vbyte`. Reads stop at the end of the file: `bytes` tells
// how many moved. Takes fcntl byte-range locks when the file is atomic.
int read_visible(File& f, MPI_Offset vbyte, void* buf, MPI_Count count, const Datatype& type,
                 MPI_Offset& bytes);
int write_visible(File& f, MPI_Offset vbyte, const void* buf, MPI_Count count,
                  const Datatype& type, MPI_Offset& bytes);

}  // namespace mpi::io
