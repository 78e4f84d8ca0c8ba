// MPI_Status_c2f / MPI_Status_f2c: a C status to and from a Fortran
// INTEGER(MPI_STATUS_SIZE) array, which holds the same bytes.
#include <cstring>

#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"

using namespace mpi;

namespace {

// Neither side may be null or one of the "ignore" values: there is nothing
// to convert from or to.
int check_statuses(const void* c_status, const MPI_Fint* f_status) {
  if (c_status == MPI_STATUS_IGNORE || c_status == nullptr) {
    return fail(MPI_ERR_ARG, "c_status is NULL or MPI_STATUS_IGNORE");
  }
  if (f_status == nullptr || f_status == MPI_F_STATUS_IGNORE ||
      f_status == MPI_F_STATUSES_IGNORE) {
    return fail(MPI_ERR_ARG, "f_status is NULL or MPI_F_STATUS_IGNORE");
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  const ApiCall call("MPI_Status_c2f");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_statuses(c_status, f_status)) return raise(nullptr, "MPI_Status_c2f", rc);
  std::memcpy(f_status, c_status, sizeof *c_status);
  return MPI_SUCCESS;
}

extern "C" int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  const ApiCall call("MPI_Status_f2c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  if (int rc = check_statuses(c_status, f_status)) return raise(nullptr, "MPI_Status_f2c", rc);
  std::memcpy(c_status, f_status, sizeof *c_status);
  return MPI_SUCCESS;
}
