// MPI-IO data access, MPI 4.0's large-count forms (MPI_File_read_c ...):
// the int forms' path (internal/file_access.hpp) takes an MPI_Count.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/file_access.hpp"

using namespace mpi;
using namespace mpi::io;

extern "C" int MPI_File_read_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                               MPI_Status* status) {
  const ApiCall call("MPI_File_read_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_c", fh, Where::individual, Dir::read, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                   MPI_Status* status) {
  const ApiCall call("MPI_File_read_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_all_c", fh, Where::individual, Dir::read, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count,
                                         MPI_Datatype datatype) {
  const ApiCall call("MPI_File_read_all_begin_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_read_all_begin_c", fh, Where::individual, Dir::read, 0, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_read_at_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_at_c", fh, Where::at, Dir::read, offset, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_read_at_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_at_all_c", fh, Where::at, Dir::read, offset, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf,
                                            MPI_Count count, MPI_Datatype datatype) {
  const ApiCall call("MPI_File_read_at_all_begin_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_read_at_all_begin_c", fh, Where::at, Dir::read, offset, buf, count,
                       datatype, Sync::collective});
}

extern "C" int MPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_read_ordered_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_ordered_c", fh, Where::ordered, Dir::read, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count,
                                             MPI_Datatype datatype) {
  const ApiCall call("MPI_File_read_ordered_begin_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_read_ordered_begin_c", fh, Where::ordered, Dir::read, 0, buf,
                       count, datatype, Sync::collective});
}

extern "C" int MPI_File_read_shared_c(MPI_File fh, void* buf, MPI_Count count,
                                      MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_read_shared_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_read_shared_c", fh, Where::shared, Dir::read, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_write_c(MPI_File fh, const void* buf, MPI_Count count,
                                MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_c", fh, Where::individual, Dir::write, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count,
                                    MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_all_c", fh, Where::individual, Dir::write, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                          MPI_Datatype datatype) {
  const ApiCall call("MPI_File_write_all_begin_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_write_all_begin_c", fh, Where::individual, Dir::write, 0, buf,
                       count, datatype, Sync::collective});
}

extern "C" int MPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_at_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_at_c", fh, Where::at, Dir::write, offset, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                       MPI_Count count, MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_at_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_at_all_c", fh, Where::at, Dir::write, offset, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                             MPI_Count count, MPI_Datatype datatype) {
  const ApiCall call("MPI_File_write_at_all_begin_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_write_at_all_begin_c", fh, Where::at, Dir::write, offset, buf,
                       count, datatype, Sync::collective});
}

extern "C" int MPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_ordered_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_ordered_c", fh, Where::ordered, Dir::write, 0, buf, count,
                          datatype, Sync::collective},
                         status);
}

extern "C" int MPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                              MPI_Datatype datatype) {
  const ApiCall call("MPI_File_write_ordered_begin_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_begin({"MPI_File_write_ordered_begin_c", fh, Where::ordered, Dir::write, 0, buf,
                       count, datatype, Sync::collective});
}

extern "C" int MPI_File_write_shared_c(MPI_File fh, const void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Status* status) {
  const ApiCall call("MPI_File_write_shared_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_blocking({"MPI_File_write_shared_c", fh, Where::shared, Dir::write, 0, buf, count,
                          datatype, Sync::independent},
                         status);
}

extern "C" int MPI_File_iread_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                MPI_Request* request) {
  const ApiCall call("MPI_File_iread_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_c", fh, Where::individual, Dir::read, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                    MPI_Request* request) {
  const ApiCall call("MPI_File_iread_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_all_c", fh, Where::individual, Dir::read, 0, buf,
                             count, datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iread_at_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_at_c", fh, Where::at, Dir::read, offset, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iread_at_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_at_all_c", fh, Where::at, Dir::read, offset, buf,
                             count, datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iread_shared_c(MPI_File fh, void* buf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iread_shared_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iread_shared_c", fh, Where::shared, Dir::read, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iwrite_c(MPI_File fh, const void* buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_c", fh, Where::individual, Dir::write, 0, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_all_c", fh, Where::individual, Dir::write, 0, buf,
                             count, datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                    MPI_Count count, MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_at_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_at_c", fh, Where::at, Dir::write, offset, buf, count,
                             datatype, Sync::independent},
                            request);
}

extern "C" int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf,
                                        MPI_Count count, MPI_Datatype datatype,
                                        MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_at_all_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_at_all_c", fh, Where::at, Dir::write, offset, buf,
                             count, datatype, Sync::collective},
                            request);
}

extern "C" int MPI_File_iwrite_shared_c(MPI_File fh, const void* buf, MPI_Count count,
                                        MPI_Datatype datatype, MPI_Request* request) {
  const ApiCall call("MPI_File_iwrite_shared_c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return access_nonblocking({"MPI_File_iwrite_shared_c", fh, Where::shared, Dir::write, 0, buf,
                             count, datatype, Sync::independent},
                            request);
}
