#pragma once
// MPI-IO data access: the one path every MPI_File_read* / write* takes,
// int and large-count forms alike (api/file_access.cc, file_access_c.cc):
//   validate -> where (explicit offset, individual pointer, shared pointer,
//   rank order) -> read_visible / write_visible -> status and pointers
// then, by form: raise (blocking), a completed request (i-forms, which do
// their I/O at once), or the status kept for _end (split collectives).

#include "mpi.h"

namespace mpi::io {

enum class Where { at, individual, shared, ordered };
enum class Dir { read, write };
// Collective writes end together (a barrier of the file's group), as
// ROMIO's two-phase writes do in effect: a program that reads another
// rank's data right after a collective write sees it, also where MPI
// asks for sync-barrier-sync.
enum class Sync { independent, collective };

struct Access {
  const char* fn;
  MPI_File fh;
  Where where;
  Dir dir;
  MPI_Offset offset;  // Where::at: in etypes of the view
  const void* buf;
  MPI_Count count;
  MPI_Datatype datatype;
  Sync sync;
};

// Blocking, collective or not (collective ones are independent I/O: see
// file.hpp); errors through the file's handler.
int access_blocking(const Access& a, MPI_Status* status);
// The i-forms: the I/O happens now, `request` is a completed generalized
// request whose status says what moved.
int access_nonblocking(const Access& a, MPI_Request* request);
// Split collectives: _begin does the access; _end (`begun` names the
// matching _begin) hands back its status.
int access_begin(const Access& a);
int access_end(const char* fn, const char* begun, MPI_File fh, MPI_Status* status);

}  // namespace mpi::io
