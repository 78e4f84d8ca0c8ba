/* MPI_SIZEOF as MPICH's modules implement it (module procedures of its
 * `mpi_sizeofs` and `mpi_f08_types` modules, one per type and kind, each
 * storing a constant): a program compiled against MPICH's `mpi` or
 * `mpi_f08` module calls these names, which MPICH's libmpifort exports.
 * Lapis' own modules have their generic in Fortran (gen_fortran.py). The
 * buffer argument is never read; `ierror` is OPTIONAL in mpi_f08. */
#include <stddef.h>

#include "mpi.h"

#define LAPIS_SIZEOF(module, name, bytes)                                       \
  void __##module##_MOD_mpi_sizeof_##name(void *x, MPI_Fint *size, MPI_Fint *ierror); \
  void __##module##_MOD_mpi_sizeof_##name(void *x, MPI_Fint *size, MPI_Fint *ierror) { \
    (void)x;                                                                    \
    *size = bytes;                                                              \
    if (ierror != NULL) *ierror = MPI_SUCCESS;                                  \
  }

/* `mpi`: a scalar and a vector (v) form each; ch(aracter) counts one byte. */
LAPIS_SIZEOF(mpi_sizeofs, ch, 1)
LAPIS_SIZEOF(mpi_sizeofs, chv, 1)
LAPIS_SIZEOF(mpi_sizeofs, cx, 8)
LAPIS_SIZEOF(mpi_sizeofs, cxv, 8)
LAPIS_SIZEOF(mpi_sizeofs, d, 8)
LAPIS_SIZEOF(mpi_sizeofs, dv, 8)
LAPIS_SIZEOF(mpi_sizeofs, i, 4)
LAPIS_SIZEOF(mpi_sizeofs, iv, 4)
LAPIS_SIZEOF(mpi_sizeofs, i1, 1)
LAPIS_SIZEOF(mpi_sizeofs, i1v, 1)
LAPIS_SIZEOF(mpi_sizeofs, i2, 2)
LAPIS_SIZEOF(mpi_sizeofs, i2v, 2)
LAPIS_SIZEOF(mpi_sizeofs, i8, 8)
LAPIS_SIZEOF(mpi_sizeofs, i8v, 8)
LAPIS_SIZEOF(mpi_sizeofs, l, 4)
LAPIS_SIZEOF(mpi_sizeofs, lv, 4)
LAPIS_SIZEOF(mpi_sizeofs, r, 4)
LAPIS_SIZEOF(mpi_sizeofs, rv, 4)

/* `mpi_f08`: any rank. */
LAPIS_SIZEOF(mpi_f08_types, character, 1)
LAPIS_SIZEOF(mpi_f08_types, logical, 4)
LAPIS_SIZEOF(mpi_f08_types, xcomplex32, 8)
LAPIS_SIZEOF(mpi_f08_types, xcomplex64, 16)
LAPIS_SIZEOF(mpi_f08_types, xcomplex128, 32)
LAPIS_SIZEOF(mpi_f08_types, xint8, 1)
LAPIS_SIZEOF(mpi_f08_types, xint16, 2)
LAPIS_SIZEOF(mpi_f08_types, xint32, 4)
LAPIS_SIZEOF(mpi_f08_types, xint64, 8)
LAPIS_SIZEOF(mpi_f08_types, xreal32, 4)
LAPIS_SIZEOF(mpi_f08_types, xreal64, 8)
LAPIS_SIZEOF(mpi_f08_types, xreal128, 16)
