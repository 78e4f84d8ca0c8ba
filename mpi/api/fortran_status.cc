// MPI_Status_c2f / MPI_Status_f2c: a C status to and from a Fortran
// INTEGER(MPI_STATUS_SIZE) array, which holds the same bytes; and the
// MPI 4.0 conversions to and from mpi_f08's TYPE(MPI_Status) (the same
// bytes again, MPI_F08_status).
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

// An f08 status that is null or one of the "ignore" values (Lapis' module
// names Fortran's MPI_STATUS_IGNORE, MPICH's its MPIR_F08_ object).
bool ignored_f08(const MPI_F08_status* s) {
  const void* p = s;
  return p == nullptr || p == MPI_F08_STATUS_IGNORE || p == MPI_F08_STATUSES_IGNORE ||
         p == MPI_F_STATUS_IGNORE || p == MPI_F_STATUSES_IGNORE || p == MPI_STATUS_IGNORE;
}

// One conversion between two layouts of the same bytes, inside the MPI
// call `fn`: refused when either side is null or "ignore".
template <typename From, typename To>
int convert(const char* fn, const From* from, To* to, bool from_ignored, bool to_ignored) {
  if (from_ignored) {
    return raise(nullptr, fn, fail(MPI_ERR_ARG, "the status to convert is NULL or \"ignore\""));
  }
  if (to_ignored) {
    return raise(nullptr, fn, fail(MPI_ERR_ARG, "the status to write is NULL or \"ignore\""));
  }
  static_assert(sizeof(MPI_Status) == sizeof(MPI_F08_status));
  std::memcpy(static_cast<void*>(to), static_cast<const void*>(from), sizeof(MPI_Status));
  return MPI_SUCCESS;
}

bool ignored_c(const MPI_Status* s) {
  return s == nullptr || s == MPI_STATUS_IGNORE || s == MPI_STATUSES_IGNORE;
}
bool ignored_f(const MPI_Fint* s) {
  return s == nullptr || s == MPI_F_STATUS_IGNORE || s == MPI_F_STATUSES_IGNORE;
}

}  // namespace

extern "C" int MPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  const ApiCall call("MPI_Status_f082c");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return convert("MPI_Status_f082c", f08_status, c_status, ignored_f08(f08_status),
                 ignored_c(c_status));
}

extern "C" int MPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  const ApiCall call("MPI_Status_c2f08");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return convert("MPI_Status_c2f08", c_status, f08_status, ignored_c(c_status),
                 ignored_f08(f08_status));
}

extern "C" int MPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  const ApiCall call("MPI_Status_f082f");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return convert("MPI_Status_f082f", f08_status, f_status, ignored_f08(f08_status),
                 ignored_f(f_status));
}

extern "C" int MPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  const ApiCall call("MPI_Status_f2f08");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  return convert("MPI_Status_f2f08", f_status, f08_status, ignored_f(f_status),
                 ignored_f08(f08_status));
}

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
