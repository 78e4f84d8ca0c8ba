// MPI_Alloc_mem / MPI_Free_mem: memory allocated and registered by the core,
// so rendezvous and RMA reach it directly.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/handles.hpp"
#include "mpi/internal/runtime.hpp"

using namespace mpi;

extern "C" int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  const ApiCall call("MPI_Alloc_mem");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Alloc_mem";
  if (int rc = check_running(kFn)) return rc;
  int rc = check_not_null(baseptr, "baseptr");
  if (rc == MPI_SUCCESS && size < 0) rc = fail(MPI_ERR_SIZE, "size={} is negative", size);
  if (rc == MPI_SUCCESS) rc = check_info_arg(info);
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  void* p = nullptr;
  // A zero-byte request still yields a unique pointer MPI_Free_mem accepts.
  lapi::Status st = lapi_context().alloc_registered(size == 0 ? 1 : static_cast<std::size_t>(size), p);
  if (!st.ok()) {
    return raise(nullptr, kFn,
                 fail(MPI_ERR_NO_MEM, "cannot allocate {} registered bytes: {}", size,
                      st.message()));
  }
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}

extern "C" int MPI_Free_mem(void* base) {
  const ApiCall call("MPI_Free_mem");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Free_mem";
  if (int rc = check_running(kFn)) return rc;
  if (base == nullptr) return raise(nullptr, kFn, fail(MPI_ERR_BASE, "base is NULL"));
  lapi::Status st = lapi_context().free_registered(base);
  if (!st.ok()) {
    return raise(nullptr, kFn,
                 fail(MPI_ERR_BASE, "base={} did not come from MPI_Alloc_mem: {}", base,
                      st.message()));
  }
  return MPI_SUCCESS;
}
