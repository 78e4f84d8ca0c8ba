#pragma once
/* The common blocks of mpif.h and the Fortran modules (fortran_commons.c):
 * their sizes in MPI_Fint, MPICH's layout. MPI_BOTTOM is mpipriv1_[0] and
 * MPI_IN_PLACE mpipriv1_[1]. */
#include "mpi.h"

#define LAPIS_STATUS_INTS (sizeof(MPI_Status) / sizeof(MPI_Fint))
#define LAPIS_MPIPRIV1_INTS (2 + LAPIS_STATUS_INTS)
#define LAPIS_MPIPRIV2_INTS (LAPIS_STATUS_INTS + 1)

extern MPI_Fint mpipriv1_[LAPIS_MPIPRIV1_INTS];
extern MPI_Fint mpipriv2_[LAPIS_MPIPRIV2_INTS];
/* MPICH's /MPIPRIVC/: CHARACTER*1 MPI_ARGVS_NULL(1,1), MPI_ARGV_NULL(1). */
extern char mpiprivc_[2];
