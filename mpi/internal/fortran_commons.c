/* The common blocks behind mpif.h's and the Fortran modules' MPI_BOTTOM,
 * MPI_IN_PLACE, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (gfortran names
 * a common block's symbol with a trailing underscore), and the C names of
 * the Fortran status-ignore addresses (MPI_F_STATUS_IGNORE ...).
 *
 * In libmpi.so, not in the Fortran glue, so C code handed Fortran statuses
 * can compare with MPI_F_STATUS_IGNORE without the Fortran library. Built
 * without -fno-semantic-interposition: a Fortran program may allocate the
 * common blocks itself, and the library must then use the program's copies
 * (through the GOT). gfortran aligns common blocks to 16 bytes. */
#include "mpi.h"
#include "mpi/internal/fortran_commons.h"

#define COMMON_BLOCK __attribute__((aligned(16)))
/* MPICH's names and layout (its mpif.h), so that programs built against
 * MPICH's Fortran headers name this storage too:
 *   /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
 *   /MPIPRIV2/ MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1), MPI_ERRCODES_IGNORE(1)
 *   /MPIPRIVC/ MPI_ARGVS_NULL(1,1), MPI_ARGV_NULL(1)   (CHARACTER*1) */
COMMON_BLOCK MPI_Fint mpipriv1_[LAPIS_MPIPRIV1_INTS];
COMMON_BLOCK MPI_Fint mpipriv2_[LAPIS_MPIPRIV2_INTS];
COMMON_BLOCK char mpiprivc_[2];

MPI_Fint *MPI_F_STATUS_IGNORE = mpipriv1_ + 2;
MPI_Fint *MPI_F_STATUSES_IGNORE = mpipriv2_;
