/* What typedecode.c and typedecode_external32.c share. */
#ifndef LAPIS_TESTS_MPI_PROGS_TYPEDECODE_COMMON_H
#define LAPIS_TESTS_MPI_PROGS_TYPEDECODE_COMMON_H

extern int rank, size;

/* typedecode_external32.c: MPI_Pack_external and friends against byte
 * images written by hand, and at 2 ranks as MPI_PACKED from rank 0 to 1. */
void external32(void);

#endif
