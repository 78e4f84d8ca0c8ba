// MPI-IO data access, the int forms: explicit offsets (_at), the
// individual file pointer, the shared one (_shared, _ordered), blocking,
// collective (_all), nonblocking (i) and split collective (_begin/_end).
// Each names its place and direction and takes the one path in
// internal/file_access.hpp.
#include "mpi/internal/file_access.hpp"

#include "mpi.h"
#include "mpi/internal/api_call.hpp"

using namespace mpi;
using namespace mpi::io;

extern "C" int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_read_at");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_at", fh, Where::at, Dir::read, offset, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                    MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_read_at_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_at_all", fh, Where::at, Dir::read, offset, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                 MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_at");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_at", fh, Where::at, Dir::write, offset, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                     MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_at_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_at_all", fh, Where::at, Dir::write, offset, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                 MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iread_at");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_at", fh, Where::at, Dir::read, offset, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                  MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_at");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_at", fh, Where::at, Dir::write, offset, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                             MPI_Status* status) {
  const ApiCall call("MPI_File_read");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read", fh, Where::individual, Dir::read, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                 MPI_Status* status) {
  const ApiCall call("MPI_File_read_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_all", fh, Where::individual, Dir::read, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                              MPI_Status* status) {
  const ApiCall call("MPI_File_write");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write", fh, Where::individual, Dir::write, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                  MPI_Status* status) {
  const ApiCall call("MPI_File_write_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_all", fh, Where::individual, Dir::write, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                              MPI_Request* request) {
  const ApiCall call("MPI_File_iread");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread", fh, Where::individual, Dir::read, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                               MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite", fh, Where::individual, Dir::write, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                    MPI_Status* status) {
  const ApiCall call("MPI_File_read_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_shared", fh, Where::shared, Dir::read, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  const ApiCall call("MPI_File_write_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_shared", fh, Where::shared, Dir::write, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                     MPI_Request* request) {
  const ApiCall call("MPI_File_iread_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_shared", fh, Where::shared, Dir::read, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iwrite_shared(MPI_File fh, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_shared");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_shared", fh, Where::shared, Dir::write, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  const ApiCall call("MPI_File_read_ordered");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_ordered", fh, Where::ordered, Dir::read, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_write_ordered(MPI_File fh, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_ordered");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_ordered", fh, Where::ordered, Dir::write, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                          MPI_Datatype datatype) {
  const ApiCall call("MPI_File_read_at_all_begin");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_read_at_all_begin", fh, Where::at, Dir::read, offset, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_read_at_all_end(MPI_File fh, void* /*buf*/, MPI_Status* status) {
  const ApiCall call("MPI_File_read_at_all_end");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_end("MPI_File_read_at_all_end", "MPI_File_read_at_all_begin", fh, status);
}

extern "C" int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf,
                                           int count, MPI_Datatype datatype) {
  const ApiCall call("MPI_File_write_at_all_begin");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_write_at_all_begin", fh, Where::at, Dir::write, offset, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_write_at_all_end(MPI_File fh, const void* /*buf*/, MPI_Status* status) {
  const ApiCall call("MPI_File_write_at_all_end");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_end("MPI_File_write_at_all_end", "MPI_File_write_at_all_begin", fh, status);
}

extern "C" int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  const ApiCall call("MPI_File_read_all_begin");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_read_all_begin", fh, Where::individual, Dir::read, 0, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_read_all_end(MPI_File fh, void* /*buf*/, MPI_Status* status) {
  const ApiCall call("MPI_File_read_all_end");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_end("MPI_File_read_all_end", "MPI_File_read_all_begin", fh, status);
}

extern "C" int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count,
                                        MPI_Datatype datatype) {
  const ApiCall call("MPI_File_write_all_begin");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_write_all_begin", fh, Where::individual, Dir::write, 0, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_write_all_end(MPI_File fh, const void* /*buf*/, MPI_Status* status) {
  const ApiCall call("MPI_File_write_all_end");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_end("MPI_File_write_all_end", "MPI_File_write_all_begin", fh, status);
}

extern "C" int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count,
                                           MPI_Datatype datatype) {
  const ApiCall call("MPI_File_read_ordered_begin");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_read_ordered_begin", fh, Where::ordered, Dir::read, 0, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_read_ordered_end(MPI_File fh, void* /*buf*/, MPI_Status* status) {
  const ApiCall call("MPI_File_read_ordered_end");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_end("MPI_File_read_ordered_end", "MPI_File_read_ordered_begin", fh, status);
}

extern "C" int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count,
                                            MPI_Datatype datatype) {
  const ApiCall call("MPI_File_write_ordered_begin");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_write_ordered_begin", fh, Where::ordered, Dir::write, 0, buf,
                       count, datatype, Sync::collective});
}

extern "C" int MPI_File_write_ordered_end(MPI_File fh, const void* /*buf*/, MPI_Status* status) {
  const ApiCall call("MPI_File_write_ordered_end");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_end("MPI_File_write_ordered_end", "MPI_File_write_ordered_begin", fh, status);
}

extern "C" int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                     MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iread_at_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_at_all", fh, Where::at, Dir::read, offset, buf, count,
                             datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                      MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_at_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_at_all", fh, Where::at, Dir::write, offset, buf,
                             count, datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                  MPI_Request* request) {
  const ApiCall call("MPI_File_iread_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_all", fh, Where::individual, Dir::read, 0, buf, count,
                             datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                   MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_all");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_all", fh, Where::individual, Dir::write, 0, buf,
                             count, datatype, Sync::collective},
                            request);
}
