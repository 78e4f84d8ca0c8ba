/* The objects behind MPI_IN_PLACE, MPI_BOTTOM and MPI_STATUS(ES)_IGNORE in
 * MPICH's mpi_f08 module (BIND(C) names MPIR_F08_*), translated to Lapis'
 * own for the mpi_f08 entry points (gen_f08_impl.py, f08_choice.c). A program
 * compiled against MPICH's module allocates these objects itself and its
 * copies interpose libmpi's (reached through the GOT), as with the mpif.h
 * common blocks. */
#include "mpi.h"
#include "mpi/internal/fortran_commons.h"

/* Defined in libmpi (mpi/internal/abi_globals.cc: MPICH's mpi.h names
 * them too); a program compiled against MPICH's module brings its own. */
extern MPI_Fint MPIR_F08_MPI_IN_PLACE;
extern MPI_Fint MPIR_F08_MPI_BOTTOM;
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];

void *lapis_f08_choice(void *p) {
  if (p == (void *)&MPIR_F08_MPI_IN_PLACE) return &mpipriv1_[1];
  if (p == (void *)&MPIR_F08_MPI_BOTTOM) return &mpipriv1_[0];
  return p;
}

void *lapis_f08_status(void *p) {
  if (p == (void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ) return MPI_F_STATUS_IGNORE;
  if (p == (void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ) return MPI_F_STATUSES_IGNORE;
  return p;
}
