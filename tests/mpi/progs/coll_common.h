/* What coll.c and coll_exchange.c share: the ranks, the derived types
 * coll.c sets up, counts, reference values, and the exchange families'
 * entry points. */
#ifndef LAPIS_TESTS_MPI_PROGS_COLL_COMMON_H
#define LAPIS_TESTS_MPI_PROGS_COLL_COMMON_H

#include <mpi.h>
#include <stdlib.h>

#include "check.h"

extern int rank, size;
extern MPI_Datatype vec_t; /* 2 ints at 0 and 2 of 3: gaps between */
extern MPI_Datatype mix_t; /* struct { int a; double d; } */

/* Per-rank counts across allgather's 64 KiB total and alltoall's 32 KiB
 * per peer. */
static const int kBlockCounts[] = {0, 1, 7, 2000, 9000, 40000}; /* 40000: 160 KB, in chunks */
#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static inline int ival(int r, int i) { return r * 1000003 + i * 7 + 1; }

static inline void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  CHECK(p != NULL);
  return p;
}

/* Element e of a vec_t buffer (2 elements per instance, 3 ints apart). */
static inline int* vec_elem(int* base, int e) { return &base[3 * (e / 2) + 2 * (e % 2)]; }

/* coll_exchange.c */
void test_gather_scatter(MPI_Comm comm, int me, int n);
void test_allgather(MPI_Comm comm, int me, int n);
void test_alltoall(MPI_Comm comm, int me, int n);

#endif
