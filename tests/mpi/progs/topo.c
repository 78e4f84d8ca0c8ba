/* Virtual topologies and neighbourhood collectives against references the
 * program computes itself: MPI_Dims_create, Cartesian grids (coordinates,
 * ranks, shifts at the edges periodic or not, sub-grids, more ranks than
 * grid points), graphs, distributed graphs with weights, MPI_Topo_test and
 * MPI_Comm_dup; every neighbourhood collective, blocking and nonblocking,
 * on each kind of topology (topo_neighbors.c); bad arguments (error
 * classes). With the
 * argument "fatal": one bad call under MPI_ERRORS_ARE_FATAL. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "topo_common.h"

int rank, size;

/* The most balanced factorisation (smallest largest-minus-smallest; of
 * equally spread ones the largest smallest dim, then the next ...), in
 * non-increasing order. Expected values are what MPICH 4.0 answers (its
 * test/mpi/topo/dims5.c checks the same rule); a largest-prime-first greedy
 * gets 72 in 2 dims wrong (12 x 6). */
static void balanced_dims(void) {
  static const struct {
    int nnodes, ndims, want[5];
  } cases[] = {
      {12, 2, {4, 3}},          {16, 3, {4, 2, 2}},     {30, 3, {5, 3, 2}},
      {64, 3, {4, 4, 4}},       {7, 2, {7, 1}},         {36, 2, {6, 6}},
      {72, 2, {9, 8}},          {180, 2, {15, 12}},     {360, 3, {10, 6, 6}},
      {3696, 3, {22, 14, 12}},  {5040, 3, {21, 16, 15}}, {20, 4, {5, 2, 2, 1}},
      {168, 4, {7, 4, 3, 2}},   {6000, 5, {8, 6, 5, 5, 5}}, {1, 3, {1, 1, 1}},
      {432, 3, {9, 8, 6}},         {1800, 4, {9, 8, 5, 5}},
      {1000000000, 3, {1000, 1000, 1000}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int d[5] = {0, 0, 0, 0, 0};
    CHECK_OK(MPI_Dims_create(cases[i].nnodes, cases[i].ndims, d));
    for (int k = 0; k < cases[i].ndims; ++k) {
      if (d[k] != cases[i].want[k]) {
        fprintf(stderr, "FAILED MPI_Dims_create(%d, %d): dims[%d]=%d, want %d\n",
                cases[i].nnodes, cases[i].ndims, k, d[k], cases[i].want[k]);
        exit(3);
      }
    }
  }
  /* Fixed dims stay; the free ones share the rest, non-increasing. */
  int f1[3] = {0, 2, 0};
  CHECK_OK(MPI_Dims_create(144, 3, f1));
  CHECK(f1[0] == 9 && f1[1] == 2 && f1[2] == 8);
  int f2[4] = {0, 0, 5, 0};
  CHECK_OK(MPI_Dims_create(360, 4, f2));
  CHECK(f2[0] == 6 && f2[1] == 4 && f2[2] == 5 && f2[3] == 3);
  /* More dims than prime factors: the rest are 1. */
  int many[12] = {0};
  CHECK_OK(MPI_Dims_create(1024, 12, many));
  for (int k = 0; k < 12; ++k) CHECK(many[k] == (k < 10 ? 2 : 1));
}

static void dims_create(void) {
  int d2[2] = {0, 0};
  CHECK_OK(MPI_Dims_create(6, 2, d2));
  CHECK(d2[0] == 3 && d2[1] == 2);
  int d3[3] = {0, 0, 0};
  CHECK_OK(MPI_Dims_create(24, 3, d3));
  CHECK(d3[0] == 4 && d3[1] == 3 && d3[2] == 2);
  memset(d3, 0, sizeof d3);
  CHECK_OK(MPI_Dims_create(16, 3, d3));
  CHECK(d3[0] == 4 && d3[1] == 2 && d3[2] == 2);
  int fixed[3] = {0, 3, 0};
  CHECK_OK(MPI_Dims_create(12, 3, fixed));
  CHECK(fixed[0] == 2 && fixed[1] == 3 && fixed[2] == 2);
  int prime[2] = {0, 0};
  CHECK_OK(MPI_Dims_create(7, 2, prime));
  CHECK(prime[0] == 7 && prime[1] == 1);
  int all_fixed[2] = {2, 3};
  CHECK_OK(MPI_Dims_create(6, 2, all_fixed));
  CHECK(all_fixed[0] == 2 && all_fixed[1] == 3);
  CHECK_OK(MPI_Dims_create(1, 0, NULL));
  CHECK_CLASS(MPI_Dims_create(5, 0, NULL), MPI_ERR_DIMS);
  /* No grid of positive dims has 0 nodes: an error, dims left alone (MPICH
   * 4.0 loops for ever on it with a free dim). */
  int zero_fixed[2] = {2, 0};
  CHECK_CLASS(MPI_Dims_create(0, 2, zero_fixed), MPI_ERR_ARG);
  CHECK(zero_fixed[0] == 2 && zero_fixed[1] == 0);
  int indivisible[2] = {0, 3};
  CHECK_CLASS(MPI_Dims_create(7, 2, indivisible), MPI_ERR_DIMS);
  balanced_dims();
}

/* Rank of (row, col) in a dims[0] x dims[1] grid, -1 off a non-periodic edge. */
static int grid_rank(const int* dims, const int* periods, int r, int c) {
  if (r < 0 || r >= dims[0]) {
    if (!periods[0]) return MPI_PROC_NULL;
    r = ((r % dims[0]) + dims[0]) % dims[0];
  }
  if (c < 0 || c >= dims[1]) {
    if (!periods[1]) return MPI_PROC_NULL;
    c = ((c % dims[1]) + dims[1]) % dims[1];
  }
  return r * dims[1] + c;
}

static void cart(void) {
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  CHECK_OK(MPI_Dims_create(size, 2, dims));
  MPI_Comm grid;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
  int status, ndims, grank;
  CHECK_OK(MPI_Topo_test(grid, &status));
  CHECK(status == MPI_CART);
  CHECK_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED);
  CHECK_OK(MPI_Cartdim_get(grid, &ndims));
  CHECK(ndims == 2);
  CHECK_OK(MPI_Comm_rank(grid, &grank));
  CHECK(grank == rank);
  int gd[2], gp[2], gc[2];
  CHECK_OK(MPI_Cart_get(grid, 2, gd, gp, gc));
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0);
  CHECK(gc[0] == rank / dims[1] && gc[1] == rank % dims[1]);
  for (int r = 0; r < size; ++r) {
    int c[2], back;
    CHECK_OK(MPI_Cart_coords(grid, r, 2, c));
    CHECK(c[0] == r / dims[1] && c[1] == r % dims[1]);
    CHECK_OK(MPI_Cart_rank(grid, c, &back));
    CHECK(back == r);
  }
  /* Periodic dimension 0 wraps coordinates; dimension 1 does not. */
  int wrap[2] = {-1, 0}, w;
  CHECK_OK(MPI_Cart_rank(grid, wrap, &w));
  CHECK(w == (dims[0] - 1) * dims[1]);
  for (int disp = -3; disp <= 3; ++disp) {
    for (int dir = 0; dir < 2; ++dir) {
      int src, dst;
      CHECK_OK(MPI_Cart_shift(grid, dir, disp, &src, &dst));
      int r = gc[0], c = gc[1];
      int want_dst =
          dir == 0 ? grid_rank(dims, periods, r + disp, c) : grid_rank(dims, periods, r, c + disp);
      int want_src =
          dir == 0 ? grid_rank(dims, periods, r - disp, c) : grid_rank(dims, periods, r, c - disp);
      CHECK(src == want_src && dst == want_dst);
    }
  }
  /* Sub-grids: the rows (keep dimension 1) and the columns (keep 0). */
  for (int keep = 0; keep < 2; ++keep) {
    int remain[2] = {keep == 0, keep == 1};
    MPI_Comm sub;
    CHECK_OK(MPI_Cart_sub(grid, remain, &sub));
    int ssize, srank, sd, sdims[1], sper[1], scoords[1];
    CHECK_OK(MPI_Comm_size(sub, &ssize));
    CHECK_OK(MPI_Comm_rank(sub, &srank));
    CHECK(ssize == dims[keep]);
    CHECK(srank == gc[keep]);
    CHECK_OK(MPI_Cartdim_get(sub, &sd));
    CHECK(sd == 1);
    CHECK_OK(MPI_Cart_get(sub, 1, sdims, sper, scoords));
    CHECK(sdims[0] == dims[keep] && sper[0] == periods[keep] && scoords[0] == gc[keep]);
    /* Members: the world ranks that share my other coordinate. */
    int sum = 0, want = 0;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub));
    for (int i = 0; i < dims[keep]; ++i) {
      want += keep == 0 ? i * dims[1] + gc[1] : gc[0] * dims[1] + i;
    }
    CHECK(sum == want);
    CHECK_OK(MPI_Comm_free(&sub));
  }
  /* Dropping every dimension leaves a zero-dimensional grid of one rank. */
  int none[2] = {0, 0};
  MPI_Comm point;
  CHECK_OK(MPI_Cart_sub(grid, none, &point));
  int psize;
  CHECK_OK(MPI_Comm_size(point, &psize));
  CHECK_OK(MPI_Cartdim_get(point, &ndims));
  CHECK(psize == 1 && ndims == 0);
  CHECK_OK(MPI_Comm_free(&point));
  /* A duplicate keeps the topology. */
  MPI_Comm dup;
  CHECK_OK(MPI_Comm_dup(grid, &dup));
  CHECK_OK(MPI_Topo_test(dup, &status));
  CHECK(status == MPI_CART);
  int dd[2], dp[2], dc[2];
  CHECK_OK(MPI_Cart_get(dup, 2, dd, dp, dc));
  CHECK(dd[0] == dims[0] && dp[0] == 1 && dc[1] == gc[1]);
  CHECK_OK(MPI_Comm_free(&dup));
  CHECK_OK(MPI_Comm_free(&grid));
  /* A grid smaller than the communicator: the others get MPI_COMM_NULL. */
  int small = size > 1 ? size - 1 : 1, per = 0;
  MPI_Comm line;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &small, &per, 1, &line));
  CHECK((rank < small) == (line != MPI_COMM_NULL));
  int newrank;
  CHECK_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, &small, &per, &newrank));
  CHECK(newrank == (rank < small ? rank : MPI_UNDEFINED));
  if (line != MPI_COMM_NULL) {
    int src, dst;
    CHECK_OK(MPI_Cart_shift(line, 0, 1, &src, &dst));
    CHECK(src == (rank == 0 ? MPI_PROC_NULL : rank - 1));
    CHECK(dst == (rank == small - 1 ? MPI_PROC_NULL : rank + 1));
    CHECK_OK(MPI_Comm_free(&line));
  }
}

void make_ring_graph(MPI_Comm* graph, int** index_out, int** edges_out) {
  int* index = malloc(sizeof(int) * size);
  int* edges = malloc(sizeof(int) * 2 * size);
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  CHECK_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, graph));
  *index_out = index;
  *edges_out = edges;
}

static void graph(void) {
  MPI_Comm g;
  int *index, *edges;
  make_ring_graph(&g, &index, &edges);
  int status, nnodes, nedges, count;
  CHECK_OK(MPI_Topo_test(g, &status));
  CHECK(status == MPI_GRAPH);
  CHECK_OK(MPI_Graphdims_get(g, &nnodes, &nedges));
  CHECK(nnodes == size && nedges == 2 * size);
  int* gi = malloc(sizeof(int) * size);
  int* ge = malloc(sizeof(int) * 2 * size);
  CHECK_OK(MPI_Graph_get(g, size, 2 * size, gi, ge));
  CHECK(memcmp(gi, index, sizeof(int) * size) == 0);
  CHECK(memcmp(ge, edges, sizeof(int) * 2 * size) == 0);
  for (int r = 0; r < size; ++r) {
    int nb[2];
    CHECK_OK(MPI_Graph_neighbors_count(g, r, &count));
    CHECK(count == 2);
    CHECK_OK(MPI_Graph_neighbors(g, r, 2, nb));
    CHECK(nb[0] == (r + size - 1) % size && nb[1] == (r + 1) % size);
  }
  int newrank;
  CHECK_OK(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
  CHECK(newrank == rank);
  free(gi), free(ge), free(index), free(edges);
  CHECK_OK(MPI_Comm_free(&g));
}

/* The distributed graph of topo_common.h, and its weights. */
int dist_out(int r, int k) { return (r + (k == 0 ? 1 : 3)) % size; }
static int dist_weight(int r, int k) { return 10 * r + (k == 0 ? 1 : 3); }

static void dist_graph(void) {
  /* The same graph made two ways: each rank gives its own out-edges
   * (adjacent form, with in-edges listed by hand), and rank 0 gives all
   * edges (general form). */
  int sources[2], sw[2], dests[2], dw[2];
  for (int k = 0; k < 2; ++k) {
    dests[k] = dist_out(rank, k);
    dw[k] = dist_weight(rank, k);
  }
  sources[0] = (rank - 1 + size) % size, sw[0] = dist_weight(sources[0], 0);
  sources[1] = ((rank - 3) % size + size) % size, sw[1] = dist_weight(sources[1], 1);
  MPI_Comm adj, gen;
  CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sw, 2, dests, dw,
                                          MPI_INFO_NULL, 0, &adj));
  int n = rank == 0 ? size : 0;
  int* srcs = malloc(sizeof(int) * (size + 1));
  int* degrees = malloc(sizeof(int) * (size + 1));
  int* all_dests = malloc(sizeof(int) * (2 * size + 1));
  int* weights = malloc(sizeof(int) * (2 * size + 1));
  for (int r = 0; r < size; ++r) {
    srcs[r] = r;
    degrees[r] = 2;
    for (int k = 0; k < 2; ++k) {
      all_dests[2 * r + k] = dist_out(r, k);
      weights[2 * r + k] = dist_weight(r, k);
    }
  }
  CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degrees, all_dests,
                                 rank == 0 ? weights : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &gen));
  free(srcs), free(degrees), free(all_dests), free(weights);
  MPI_Comm both[2] = {adj, gen};
  for (int i = 0; i < 2; ++i) {
    int status, indeg, outdeg, weighted;
    CHECK_OK(MPI_Topo_test(both[i], &status));
    CHECK(status == MPI_DIST_GRAPH);
    CHECK_OK(MPI_Dist_graph_neighbors_count(both[i], &indeg, &outdeg, &weighted));
    CHECK(indeg == 2 && outdeg == 2 && weighted);
    int s[2], w1[2], d[2], w2[2];
    CHECK_OK(MPI_Dist_graph_neighbors(both[i], 2, s, w1, 2, d, w2));
    /* The general form lists in-edges by source rank: sort both to compare. */
    int order = (s[0] == sources[0] && w1[0] == sw[0]) ? 0 : 1;
    CHECK(s[order] == sources[0] && w1[order] == sw[0]);
    CHECK(s[1 - order] == sources[1] && w1[1 - order] == sw[1]);
    CHECK(d[0] == dests[0] && w2[0] == dw[0] && d[1] == dests[1] && w2[1] == dw[1]);
  }
  CHECK_OK(MPI_Comm_free(&adj));
  CHECK_OK(MPI_Comm_free(&gen));
  /* Unweighted: a star into rank 0 (rank 0 has no out-edges, the others
   * no in-edges). */
  MPI_Comm u;
  int deg = rank == 0 ? 0 : 1, peer = 0, indeg_want = rank == 0 ? size - 1 : 0;
  int* others = malloc(sizeof(int) * size);
  for (int r = 1; r < size; ++r) others[r - 1] = r;
  CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg_want, others, MPI_UNWEIGHTED, deg,
                                          &peer, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &u));
  free(others);
  int indeg, outdeg, weighted;
  CHECK_OK(MPI_Dist_graph_neighbors_count(u, &indeg, &outdeg, &weighted));
  CHECK(indeg == indeg_want && outdeg == deg && !weighted);
  /* Everyone sends its rank to rank 0. */
  int got[8] = {0}, mine = rank;
  CHECK_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, u));
  for (int r = 1; r < size && rank == 0; ++r) CHECK(got[r - 1] == r);
  CHECK_OK(MPI_Comm_free(&u));
}

/* MPI_Dist_graph_neighbors_count's `weighted`: false only when
 * MPI_UNWEIGHTED was given; a graph without edges made with weights, with
 * MPI_WEIGHTS_EMPTY or with NULL is weighted (MPI 3.1 7.5.5; MPICH's
 * test/mpi/topo/distgraph1.c expects the same). */
static int weighted_flag(MPI_Comm c) {
  int indeg = -1, outdeg = -1, weighted = -1;
  CHECK_OK(MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted));
  CHECK(indeg == 0 && outdeg == 0);
  MPI_Comm_free(&c);
  return weighted;
}

static void weighted_flags(void) {
  int w[1] = {7}, none[1] = {0};
  MPI_Comm c;
  const int* kinds[3] = {w, MPI_WEIGHTS_EMPTY, NULL};
  for (int k = 0; k < 3; ++k) {
    CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, none, none, none, kinds[k], MPI_INFO_NULL,
                                   0, &c));
    if (weighted_flag(c) != 1) {
      fprintf(stderr, "FAILED rank %d: no-edge MPI_Dist_graph_create with weights kind %d is "
              "not weighted\n", rank, k);
      exit(3);
    }
    CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, none, kinds[k], 0, none, kinds[k],
                                            MPI_INFO_NULL, 0, &c));
    CHECK(weighted_flag(c) == 1);
  }
  CHECK_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &c));
  CHECK(weighted_flag(c) == 0);
  CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
  CHECK(weighted_flag(c) == 0);
}

/* ---- bad arguments (MPI_ERRORS_RETURN on MPI_COMM_WORLD) ---------------- */

static void errors(void) {
  int dims[2] = {size + 1, 1}, periods[2] = {0, 0}, out[2], x;
  MPI_Comm c = MPI_COMM_WORLD; /* a failed creation leaves MPI_COMM_NULL here */
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_DIMS);
  CHECK(c == MPI_COMM_NULL);
  dims[0] = 0;
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), MPI_ERR_DIMS);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 1, NULL, periods, 0, &c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_create(MPI_COMM_NULL, 1, &size, periods, 0, &c), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &out[0], &out[1]), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &x), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &x), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &x, &x, &x), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Topo_test(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dims_create(0, 1, out), MPI_ERR_ARG);
  out[0] = 0, out[1] = -1;
  CHECK_CLASS(MPI_Dims_create(4, 2, out), MPI_ERR_DIMS);
  out[0] = 3, out[1] = 0;
  CHECK_CLASS(MPI_Dims_create(10, 2, out), MPI_ERR_DIMS);

  int line = size, open = 0;
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &line, &open, 0, &c));
  CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Cart_shift(c, 1, 1, &out[0], &out[1]), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Cart_coords(c, size, 1, out), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Cart_coords(c, 0, 0, out), MPI_ERR_ARG);
  int beyond = size;
  CHECK_CLASS(MPI_Cart_rank(c, &beyond, &x), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Graph_neighbors_count(c, 0, &x), MPI_ERR_TOPOLOGY);
  int counts[2] = {-1, -1}, displs[2] = {0, 0}, buf[4];
  CHECK_CLASS(MPI_Neighbor_alltoallv(buf, counts, displs, MPI_INT, buf, counts, displs, MPI_INT, c),
              MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Neighbor_allgatherv(buf, 1, MPI_INT, buf, NULL, displs, MPI_INT, c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, c), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Neighbor_alltoall(buf, -1, MPI_INT, buf, 1, MPI_INT, c), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Neighbor_alltoall(buf, 1, MPI_DATATYPE_NULL, buf, 1, MPI_INT, c), MPI_ERR_TYPE);
  MPI_Request req;
  CHECK_CLASS(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, c, NULL), MPI_ERR_ARG);
  CHECK_CLASS(
      MPI_Neighbor_alltoall_init(buf, 1, MPI_INT, buf, 1, MPI_INT, c, (MPI_Info)MPI_INT, &req),
      MPI_ERR_INFO);
  CHECK_CLASS(MPI_Neighbor_allgather_init(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD,
                                          MPI_INFO_NULL, &req),
              MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Ineighbor_allgather(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD, &req),
              MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Neighbor_alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, MPI_COMM_WORLD),
              MPI_ERR_TOPOLOGY);
  CHECK_OK(MPI_Comm_free(&c));

  int index[2] = {1, 2}, edges[2] = {1, 5};
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &c), MPI_ERR_ARG);
  index[0] = -1;
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG);
  int bad_rank = size, weight = 1, neg = -1, zero = 0;
  CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad_rank, &weight, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &neg, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, MPI_UNWEIGHTED, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &c),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                             MPI_WEIGHTS_EMPTY, (MPI_Info)MPI_INT, 0, &c),
              MPI_ERR_INFO);
  int one = 1;
  CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, &bad_rank, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &c),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &neg, &zero, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &c),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, &zero, MPI_WEIGHTS_EMPTY,
                                    MPI_INFO_NULL, 0, &c),
              MPI_ERR_ARG);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    int src, dst;
    MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst); /* no topology: ends the job */
    printf("FAILED: MPI_Cart_shift returned\n");
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  dims_create();
  cart();
  graph();
  dist_graph();
  weighted_flags();
  neighbors();
  errors();
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  printf("OK\n");
  MPI_Finalize();
  return 0;
}
