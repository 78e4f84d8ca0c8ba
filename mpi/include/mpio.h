/* ROMIO's header name: MPI-IO is part of mpi.h (mpi_proto_io.h), as in
 * MPICH, whose mpi.h includes mpio.h. Programs that include mpio.h get the
 * same declarations. */
#ifndef LAPIS_MPIO_H_
#define LAPIS_MPIO_H_
#include "mpi.h"
#endif /* LAPIS_MPIO_H_ */
