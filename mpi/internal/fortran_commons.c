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

#define COMMON_BLOCK __attribute__((aligned(16)))
COMMON_BLOCK MPI_Fint lapis_mpif_bottom_;
COMMON_BLOCK MPI_Fint lapis_mpif_in_place_;
COMMON_BLOCK MPI_Fint lapis_mpif_status_ignore_[sizeof(MPI_Status) / sizeof(MPI_Fint)];
COMMON_BLOCK MPI_Fint lapis_mpif_statuses_ignore_[sizeof(MPI_Status) / sizeof(MPI_Fint)];

MPI_Fint *MPI_F_STATUS_IGNORE = lapis_mpif_status_ignore_;
MPI_Fint *MPI_F_STATUSES_IGNORE = lapis_mpif_statuses_ignore_;
