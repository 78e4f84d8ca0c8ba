// MPI_Type_create_f90_real / _complex / _integer: the type of the Fortran
// kind SELECTED_REAL_KIND(p, r) / SELECTED_INT_KIND(r) selects with gfortran
// (the only Fortran compiler Lapis binds for).
//
// As the standard has it (MPI 3.1, 17.1.9), each (p, r) gets a type of its
// own, made once and returned every time after: the named type's typemap
// with combiner MPI_COMBINER_F90_REAL / _COMPLEX / _INTEGER and (p, r) as
// its contents. It is predefined: committed, usable in reductions as the
// named type, and MPI_Type_free refuses it.
#include "mpi.h"
#include "mpi/internal/api_call.hpp"
#include "mpi/internal/checks.hpp"
#include "mpi/internal/datatype.hpp"
#include "mpi/internal/errors.hpp"
#include "mpi/internal/state.hpp"

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

// The cached type of (combiner, ints) over the named type `named`.
int f90_type(int combiner, std::vector<int> ints, MPI_Datatype named, MPI_Datatype* out) {
  State& s = state();
  const std::array<int, 3> key{combiner, ints[0], ints.size() > 1 ? ints[1] : 0};
  if (auto it = s.f90_types.find(key); it != s.f90_types.end()) {
    *out = it->second;
    return MPI_SUCCESS;
  }
  const Datatype* base = nullptr;
  if (int rc = lookup_type(named, base, false)) return rc;
  TypePtr* base_ptr = s.types.find(named);
  auto made = std::const_pointer_cast<Datatype>(Datatype::dup(*base_ptr));
  if (made == nullptr) return fail(MPI_ERR_INTERN, "cannot copy {}", base->name);
  made->commit();
  auto envelope = std::make_shared<Envelope>();
  envelope->combiner = combiner;
  envelope->ints = std::move(ints);
  made->envelope = std::move(envelope);
  made->name = base->name;
  const MPI_Datatype handle = s.types.insert(std::move(made));
  if (handle == MPI_DATATYPE_NULL) return fail(MPI_ERR_INTERN, "no datatype handle left");
  s.f90_types.emplace(key, handle);
  *out = handle;
  return MPI_SUCCESS;
}

int select_real(const char* fn, int p, int r, bool complex, MPI_Datatype* newtype) {
  int rc = check_not_null(newtype, "newtype");
  if (rc == MPI_SUCCESS && p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
    rc = fail(MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
  }
  if (rc != MPI_SUCCESS) return raise(nullptr, fn, rc);
  for (const RealKind& k : kRealKinds) {
    if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) {
      return raise(nullptr, fn,
                   f90_type(complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, {p, r},
                            complex ? k.complex : k.real, newtype));
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
    if (r <= k.range) return raise(nullptr, kFn, f90_type(MPI_COMBINER_F90_INTEGER, {r}, k.type, newtype));
  }
  return raise(nullptr, kFn,
               fail(MPI_ERR_ARG, "no INTEGER kind with an MPI type has range r={} (at most 18)", r));
}
