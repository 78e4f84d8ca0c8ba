/* What topo.c and topo_neighbors.c share: the ranks, and the graphs both
 * build. */
#ifndef LAPIS_TESTS_MPI_PROGS_TOPO_COMMON_H
#define LAPIS_TESTS_MPI_PROGS_TOPO_COMMON_H

#include <mpi.h>

extern int rank, size;

/* A ring as a graph: node i linked to i-1 and i+1 (one node: a self-loop).
 * The caller frees *index_out and *edges_out. */
void make_ring_graph(MPI_Comm* graph, int** index_out, int** edges_out);

/* The distributed graph the tests use: rank i has edges to i+1 (weight
 * 10*i + 1) and i+3 (weight 10*i + 3), modulo size; duplicates kept.
 * dist_out(r, k): rank r's k-th out-edge (k = 0, 1). */
int dist_out(int r, int k);

/* topo_neighbors.c: every neighbourhood collective, blocking and
 * nonblocking, on each kind of topology. */
void neighbors(void);

#endif
