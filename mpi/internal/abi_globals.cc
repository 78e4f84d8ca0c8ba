// Objects MPICH's mpi.h declares `extern`, so a program compiled against it
// references them by name; the library must define each one (with MPICH's
// types) for such a program to load. The addresses are the sentinels: the
// library compares pointers against them, never reads through them.
#include "mpi.h"

namespace {
int g_unweighted_sentinel;
int g_weights_empty_sentinel;
}  // namespace

extern "C" {

int* const MPI_UNWEIGHTED = &g_unweighted_sentinel;
int* const MPI_WEIGHTS_EMPTY = &g_weights_empty_sentinel;

// MPI_F_STATUS(ES)_IGNORE: the Fortran common blocks' addresses, defined
// with them in fortran_commons.c.

// The mpi_f08 module's sentinels (MPICH names; its mpi.h declares them for
// the C side of the Fortran 2008 bindings).
MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status* MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status* MPI_F08_STATUSES_IGNORE = &MPIR_F08_MPI_STATUSES_IGNORE_OBJ[0];

// MPI_T_PVAR_ALL_HANDLES is defined with the tools interface (api/tool_info.cc).

}  // extern "C"
