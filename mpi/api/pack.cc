// MPI_Pack / MPI_Unpack / MPI_Pack_size and address arithmetic. The packed
// format is the raw bytes in typemap order (all ranks share one
// architecture), so Pack_size is count * size.
#include <cstdint>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

using namespace mpi;

extern "C" int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                        int outsize, int* position, MPI_Comm comm) {
  const ApiCall call("MPI_Pack");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Pack";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  TypePtr t;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_count(incount, "incount");
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(inbuf, incount, *t, "inbuf");
  if (rc == MPI_SUCCESS) rc = check_not_null(position, "position");
  if (rc == MPI_SUCCESS) rc = check_count(outsize, "outsize");
  if (rc == MPI_SUCCESS) {
    std::int64_t need = std::int64_t{incount} * t->size();
    if (*position < 0 || *position > outsize || need > outsize - *position) {
      rc = fail(MPI_ERR_TRUNCATE, "{} bytes do not fit at position {} of outsize={}", need,
                *position, outsize);
    } else if (need > 0 && outbuf == nullptr) {
      rc = fail(MPI_ERR_BUFFER, "outbuf is NULL");
    } else {
      pack(*t, inbuf, incount, static_cast<char*>(outbuf) + *position);
      *position += static_cast<int>(need);
    }
  }
  return raise(c, kFn, rc);
}

extern "C" int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf,
                          int outcount, MPI_Datatype datatype, MPI_Comm comm) {
  const ApiCall call("MPI_Unpack");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Unpack";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  TypePtr t;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_count(outcount, "outcount");
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, true);
  if (rc == MPI_SUCCESS) rc = check_buffer(outbuf, outcount, *t, "outbuf");
  if (rc == MPI_SUCCESS) rc = check_not_null(position, "position");
  if (rc == MPI_SUCCESS) rc = check_count(insize, "insize");
  if (rc == MPI_SUCCESS) {
    std::int64_t need = std::int64_t{outcount} * t->size();
    if (*position < 0 || *position > insize || need > insize - *position) {
      rc = fail(MPI_ERR_TRUNCATE, "{} bytes are not available at position {} of insize={}",
                need, *position, insize);
    } else if (need > 0 && inbuf == nullptr) {
      rc = fail(MPI_ERR_BUFFER, "inbuf is NULL");
    } else {
      unpack(*t, outbuf, outcount, static_cast<const char*>(inbuf) + *position, need);
      *position += static_cast<int>(need);
    }
  }
  return raise(c, kFn, rc);
}

extern "C" int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  const ApiCall call("MPI_Pack_size");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Pack_size";
  if (int rc = check_running(kFn)) return rc;
  Comm* c = nullptr;
  TypePtr t;
  int rc = lookup_comm(comm, c);
  if (rc == MPI_SUCCESS) rc = check_count(incount, "incount");
  if (rc == MPI_SUCCESS) rc = lookup_type(datatype, t, false);
  if (rc == MPI_SUCCESS) rc = check_not_null(size, "size");
  if (rc == MPI_SUCCESS) {
    std::int64_t need = 0;
    if (__builtin_mul_overflow(std::int64_t{incount}, t->size(), &need) || need > INT32_MAX) {
      rc = fail(MPI_ERR_COUNT, "{} x {} bytes does not fit an int", incount, t->size());
    } else {
      *size = static_cast<int>(need);
    }
  }
  return raise(c, kFn, rc);
}

extern "C" int MPI_Get_address(const void* location, MPI_Aint* address) {
  const ApiCall call("MPI_Get_address");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Get_address";
  if (int rc = check_not_null(address, "address")) return raise(nullptr, kFn, rc);
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
  return MPI_SUCCESS;
}

extern "C" MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }

extern "C" MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }
