// MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with the
// one portable representation, "external32" (external32.hpp).
#include <cstdint>
#include <cstring>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/external32.hpp"

using namespace mpi;

namespace {

int check_datarep(const char* datarep) {
  if (int rc = check_not_null(datarep, "datarep")) return rc;
  if (std::strcmp(datarep, "external32") != 0) {
    return fail(MPI_ERR_UNSUPPORTED_DATAREP, "datarep=\"{:.40}\" is not \"external32\"", datarep);
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                                 MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                 MPI_Aint* position) {
  const ApiCall call("MPI_Pack_external");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Pack_external";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = check_datarep(datarep);
  if (rc == MPI_SUCCESS) rc = check_count(incount, "incount");
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(inbuf, incount, *t, "inbuf");
  if (rc == MPI_SUCCESS) rc = check_not_null(position, "position");
  if (rc == MPI_SUCCESS && outsize < 0) {
    rc = fail(MPI_ERR_ARG, "outsize={} is negative", outsize);
  }
  if (rc == MPI_SUCCESS) {
    const std::int64_t need = std::int64_t{incount} * external32_size(*t);
    if (*position < 0 || *position > outsize || need > outsize - *position) {
      rc = fail(MPI_ERR_TRUNCATE, "{} bytes do not fit at position {} of outsize={}", need,
                *position, outsize);
    } else if (need > 0 && outbuf == nullptr) {
      rc = fail(MPI_ERR_BUFFER, "outbuf is NULL");
    } else {
      rc = pack_external32(*t, inbuf, incount, static_cast<char*>(outbuf) + *position);
      if (rc == MPI_SUCCESS) *position += need;
    }
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                   MPI_Aint* position, void* outbuf, int outcount,
                                   MPI_Datatype datatype) {
  const ApiCall call("MPI_Unpack_external");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Unpack_external";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = check_datarep(datarep);
  if (rc == MPI_SUCCESS) rc = check_count(outcount, "outcount");
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(outbuf, outcount, *t, "outbuf");
  if (rc == MPI_SUCCESS) rc = check_not_null(position, "position");
  if (rc == MPI_SUCCESS && insize < 0) rc = fail(MPI_ERR_ARG, "insize={} is negative", insize);
  if (rc == MPI_SUCCESS) {
    const std::int64_t need = std::int64_t{outcount} * external32_size(*t);
    if (*position < 0 || *position > insize || need > insize - *position) {
      rc = fail(MPI_ERR_TRUNCATE, "{} bytes are not available at position {} of insize={}", need,
                *position, insize);
    } else if (need > 0 && inbuf == nullptr) {
      rc = fail(MPI_ERR_BUFFER, "inbuf is NULL");
    } else {
      rc = unpack_external32(*t, static_cast<const char*>(inbuf) + *position, outcount, outbuf);
      if (rc == MPI_SUCCESS) *position += need;
    }
  }
  return raise(nullptr, kFn, rc);
}

extern "C" int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                      MPI_Aint* size) {
  const ApiCall call("MPI_Pack_external_size");
  if (call.overlaps()) [[unlikely]]
    return call.refuse();
  constexpr const char* kFn = "MPI_Pack_external_size";
  if (int rc = check_running(kFn)) return rc;
  TypePtr t;
  int rc = check_datarep(datarep);
  if (rc == MPI_SUCCESS) rc = check_count(incount, "incount");
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(size, "size");
  if (rc == MPI_SUCCESS) rc = commit_type(*t);  // the element runs are known once flattened
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  *size = std::int64_t{incount} * external32_size(*t);
  return MPI_SUCCESS;
}
