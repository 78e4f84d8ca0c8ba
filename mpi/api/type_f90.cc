// MPI_Type_create_f90_real / _complex / _integer: the predefined type of
// the Fortran kind SELECTED_REAL_KIND(p, r) / SELECTED_INT_KIND(r) selects
// with gfortran (the only Fortran compiler Lapis binds for).
//
// The handle returned is the named type itself (MPI_REAL8 ...), so it is
// predefined: MPI_Type_free refuses it, and MPI_Type_get_envelope reports
// MPI_COMBINER_NAMED rather than the standard's MPI_COMBINER_F90_* with
// (p, r) — distinct cached handles per (p, r) are not implemented.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/errors.hpp"

using namespace mpi;

namespace {

// gfortran's real kinds on x86-64 (PRECISION, RANGE). Its REAL(10) (x87
// extended, p 18, r 4931) has no MPI named type; it occupies 16 bytes like
// REAL(16), so a request only it would satisfy gets the 16-byte type: data
// move correctly (Lapis does not reduce REAL*16 at all).
struct RealKind {
  int precision, range;
  MPI_Datatype real, complex;
};
constexpr RealKind kRealKinds[] = {
    {6, 37, MPI_REAL4, MPI_COMPLEX8},
    {15, 307, MPI_REAL8, MPI_COMPLEX16},
    {33, 4931, MPI_REAL16, MPI_COMPLEX32},
};

int select_real(const char* fn, int p, int r, bool complex, MPI_Datatype* newtype) {
  int rc = check_not_null(newtype, "newtype");
  if (rc == MPI_SUCCESS && p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
    rc = fail(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  for (const RealKind& k : kRealKinds) {
    if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) {
      *newtype = complex ? k.complex : k.real;
      return MPI_SUCCESS;
    }
  }
  return raise(nullptr, fn,
               fail(MPI_ERR_ARG, "no {} kind has precision p={} and range r={} (at most 33, 4931)",
                    complex ? "COMPLEX" : "REAL", p, r));
}

}  // namespace

extern "C" int MPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_f90_real");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_f90_real";
  if (int rc = check_running(kFn)) return rc;
  return select_real(kFn, p, r, false, newtype);
}

extern "C" int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_f90_complex");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_f90_complex";
  if (int rc = check_running(kFn)) return rc;
  return select_real(kFn, p, r, true, newtype);
}

// SELECTED_INT_KIND(r): the smallest integer holding -10^r < n < 10^r.
// INTEGER(16) (r <= 38) has no MPI type here (MPI_INTEGER16 is
// MPI_DATATYPE_NULL, as in MPICH's ABI): MPI_ERR_ARG.
extern "C" int MPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  const ApiCall call("MPI_Type_create_f90_integer");
  if (call.overlaps()) [[unlikely]] return call.refuse();
  constexpr const char* kFn = "MPI_Type_create_f90_integer";
  if (int rc = check_running(kFn)) return rc;
  struct IntKind {
    int range;
    MPI_Datatype type;
  };
  static constexpr IntKind kIntKinds[] = {
      {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}};
  int rc = check_not_null(newtype, "newtype");
  if (rc == MPI_SUCCESS && r == MPI_UNDEFINED) rc = fail(MPI_ERR_ARG, "r is MPI_UNDEFINED");
  if (rc != MPI_SUCCESS) return raise(nullptr, kFn, rc);
  for (const IntKind& k : kIntKinds) {
    if (r <= k.range) {
      *newtype = k.type;
      return MPI_SUCCESS;
    }
  }
  return raise(nullptr, kFn,
               fail(MPI_ERR_ARG, "no INTEGER kind with an MPI type has range r={} (at most 18)", r));
}
