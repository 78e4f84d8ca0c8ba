// MPICH's GPU queries. Lapis moves host memory only, so every GPU kind is
// unsupported; a program built against MPICH that asks before passing
// device pointers then keeps to host buffers. Their PMPIX_ names come from
// mpi/pmpi.py.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"

using namespace mpi;

extern "C" int MPIX_GPU_query_support(int gpu_type, int* is_supported) {
  const ApiCall call("MPIX_GPU_query_support");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  int rc = check_not_null(is_supported, "is_supported");
  if (rc == MPI_SUCCESS && gpu_type != MPIX_GPU_SUPPORT_CUDA && gpu_type != MPIX_GPU_SUPPORT_ZE &&
      gpu_type != MPIX_GPU_SUPPORT_HIP) {
    rc = fail(MPI_ERR_ARG, "gpu_type={} is not an MPIX_GPU_SUPPORT_ kind", gpu_type);
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, call.name(), rc);
  *is_supported = 0;
  return MPI_SUCCESS;
}

// These return the answer itself, not an error code (as in MPICH).
extern "C" int MPIX_Query_cuda_support(void) { return 0; }
extern "C" int MPIX_Query_ze_support(void) { return 0; }
extern "C" int MPIX_Query_hip_support(void) { return 0; }

