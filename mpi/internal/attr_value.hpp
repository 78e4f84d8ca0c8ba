#pragma once
// An attribute's value and the language that set it (MPI 4.0 20.3.7). C sets a pointer,
// Fortran an address-sized integer. Callbacks and Fortran readers get the value as it was
// stored (a Fortran integer as that integer, a C pointer as its address); a C reader of a
// value Fortran set gets a pointer to the integer, as MPICH and Open MPI give it (MPICH's
// f90/attr fandcattrf90 and attrlangf90 dereference it).
#include "mpi.h"

namespace mpi {

enum class AttrLang : bool { c, fortran };

struct AttrValue {
  void* value = nullptr;
  AttrLang set_by = AttrLang::c;
  MPI_Aint integer = 0;  // Fortran's value, at an address that lasts as long as the attribute

  AttrValue() = default;
  AttrValue(void* v, AttrLang lang) : value(v), set_by(lang), integer(reinterpret_cast<MPI_Aint>(v)) {}
  // What MPI_*_get_attr hands a reader written in `reader`.
  void* read_by(AttrLang reader) { return set_by == AttrLang::fortran && reader == AttrLang::c ? &integer : value; }
};

}  // namespace mpi
