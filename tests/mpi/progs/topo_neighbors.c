/* Neighbourhood collectives (part of the topo program, see topo.c): every
 * one, blocking, nonblocking and persistent, with derived types, on a
 * Cartesian grid, periodic and open rings, a graph and a distributed graph,
 * against the blocks each neighbour must have sent. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "topo_common.h"

/* ---- neighbourhood collectives ------------------------------------------- */

/* A topology's neighbour lists (what MPI_..._neighbors would say), and for
 * each source the index of the sender's block that reaches me. */
struct Hood {
  MPI_Comm comm;
  int nin, nout;
  int in[8], out[8];
  int from_block[8]; /* sender's block index received in my block i */
};

static int cart_hood(struct Hood* h, int ndims, const int* dims, const int* periods) {
  CHECK_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &h->comm));
  if (h->comm == MPI_COMM_NULL) return 0;
  h->nin = h->nout = 2 * ndims;
  for (int d = 0; d < ndims; ++d) {
    CHECK_OK(MPI_Cart_shift(h->comm, d, 1, &h->in[2 * d], &h->in[2 * d + 1]));
    h->out[2 * d] = h->in[2 * d], h->out[2 * d + 1] = h->in[2 * d + 1];
    h->from_block[2 * d] = 2 * d + 1; /* the -1 neighbour sent it in its +1 block */
    h->from_block[2 * d + 1] = 2 * d;
  }
  return 1;
}

/* Graph and dist graph: my m-th edge from s pairs with s's m-th edge to me. */
static void match_blocks(struct Hood* h, void (*outs_of)(int r, int* out, int* n)) {
  for (int i = 0; i < h->nin; ++i) {
    int s = h->in[i], m = 0;
    for (int j = 0; j < i; ++j) m += h->in[j] == s;
    int out[8], n;
    outs_of(s, out, &n);
    h->from_block[i] = -1;
    for (int j = 0; j < n; ++j) {
      if (out[j] == rank && m-- == 0) {
        h->from_block[i] = j;
        break;
      }
    }
    CHECK(h->from_block[i] >= 0);
  }
}

static void ring_outs(int r, int* out, int* n) {
  out[0] = (r + size - 1) % size, out[1] = (r + 1) % size, *n = 2;
}
static void dist_outs(int r, int* out, int* n) {
  out[0] = dist_out(r, 0), out[1] = dist_out(r, 1), *n = 2;
}

static void graph_hood(struct Hood* h) {
  int *index, *edges;
  make_ring_graph(&h->comm, &index, &edges);
  free(index), free(edges);
  h->nin = h->nout = 2;
  ring_outs(rank, h->in, &h->nin);
  ring_outs(rank, h->out, &h->nout);
  match_blocks(h, ring_outs);
}

static void dist_hood(struct Hood* h) {
  int dests[2] = {dist_out(rank, 0), dist_out(rank, 1)};
  int sources[3], nin = 0;
  for (int r = 0; r < size; ++r) {
    for (int k = 0; k < 2; ++k) {
      if (dist_out(r, k) == rank) sources[nin++] = r;
    }
  }
  CHECK(nin == 2);
  CHECK_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests,
                                          MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &h->comm));
  h->nin = h->nout = 2;
  memcpy(h->in, sources, sizeof sources[0] * 2);
  memcpy(h->out, dests, sizeof dests);
  match_blocks(h, dist_outs);
}

/* Elements of the block sender s sends to receiver d (v-forms). */
static int vcount(int s, int d) { return 1 + (s + 2 * d) % 3; }
static int value(int s, int block, int e) { return s * 1000 + block * 10 + e; }
#define SENTINEL (-7)
#define MAXE 3

/* Checks one received block: from source `src` (MPI_PROC_NULL: untouched). */
static void check_block(const int* got, int n, int src, int block) {
  for (int e = 0; e < n; ++e) {
    CHECK(got[e] == (src == MPI_PROC_NULL ? SENTINEL : value(src, block, e)));
  }
}

/* Runs every neighbourhood collective on h; nonblocking (1): all at once;
 * 2: as persistent requests, started together three times. */
static void neighbor_colls(const struct Hood* h, int nonblocking) {
  enum { kAllgather, kAllgatherv, kAlltoall, kAlltoallv, kAlltoallw, kCalls };
  int send_ag[MAXE], recv_ag[8 * MAXE], recv_agv[8 * MAXE];
  int send_a2a[8 * MAXE], recv_a2a[8 * MAXE];
  int send_v[8 * MAXE], recv_v[8 * MAXE], send_w[8 * MAXE], recv_w[8 * MAXE];
  int agv_counts[8], agv_displs[8], scounts[8], sdispls[8], rcounts[8], rdispls[8];
  MPI_Aint sbytes[8], rbytes[8];
  MPI_Datatype stypes[8], rtypes[8];
  for (int e = 0; e < MAXE; ++e) send_ag[e] = value(rank, 0, e);
  for (int i = 0; i < 8 * MAXE; ++i) {
    recv_ag[i] = recv_agv[i] = recv_a2a[i] = recv_v[i] = recv_w[i] = SENTINEL;
  }
  for (int j = 0; j < h->nout; ++j) {
    for (int e = 0; e < MAXE; ++e) send_a2a[j * MAXE + e] = value(rank, j, e);
    /* v-forms: blocks stored last to first. */
    int slot = h->nout - 1 - j;
    scounts[j] = h->out[j] == MPI_PROC_NULL ? 1 : vcount(rank, h->out[j]);
    sdispls[j] = slot * MAXE;
    sbytes[j] = (MPI_Aint)sizeof(int) * slot * MAXE;
    stypes[j] = MPI_INT;
    for (int e = 0; e < MAXE; ++e)
      send_v[slot * MAXE + e] = send_w[slot * MAXE + e] = value(rank, j, e);
  }
  for (int i = 0; i < h->nin; ++i) {
    int slot = h->nin - 1 - i;
    agv_counts[i] = 1;
    agv_displs[i] = slot * MAXE;
    rcounts[i] = h->in[i] == MPI_PROC_NULL ? 1 : vcount(h->in[i], rank);
    rdispls[i] = slot * MAXE;
    rbytes[i] = (MPI_Aint)sizeof(int) * slot * MAXE;
    rtypes[i] = MPI_INT;
  }
  MPI_Request reqs[kCalls];
  if (nonblocking == 2) { /* persistent: started three times */
    CHECK_OK(MPI_Neighbor_allgather_init(send_ag, MAXE, MPI_INT, recv_ag, MAXE, MPI_INT, h->comm,
                                         MPI_INFO_NULL, &reqs[0]));
    CHECK_OK(MPI_Neighbor_allgatherv_init(send_ag, 1, MPI_INT, recv_agv, agv_counts, agv_displs,
                                          MPI_INT, h->comm, MPI_INFO_NULL, &reqs[1]));
    CHECK_OK(MPI_Neighbor_alltoall_init(send_a2a, MAXE, MPI_INT, recv_a2a, MAXE, MPI_INT, h->comm,
                                        MPI_INFO_NULL, &reqs[2]));
    CHECK_OK(MPI_Neighbor_alltoallv_init(send_v, scounts, sdispls, MPI_INT, recv_v, rcounts,
                                         rdispls, MPI_INT, h->comm, MPI_INFO_NULL, &reqs[3]));
    CHECK_OK(MPI_Neighbor_alltoallw_init(send_w, scounts, sbytes, stypes, recv_w, rcounts, rbytes,
                                         rtypes, h->comm, MPI_INFO_NULL, &reqs[4]));
    for (int round = 0; round < 3; ++round) {
      CHECK_OK(MPI_Startall(kCalls, reqs));
      CHECK_OK(MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < kCalls; ++i) CHECK_OK(MPI_Request_free(&reqs[i]));
  } else if (nonblocking) {
    CHECK_OK(
        MPI_Ineighbor_allgather(send_ag, MAXE, MPI_INT, recv_ag, MAXE, MPI_INT, h->comm, &reqs[0]));
    CHECK_OK(MPI_Ineighbor_allgatherv(send_ag, 1, MPI_INT, recv_agv, agv_counts, agv_displs,
                                      MPI_INT, h->comm, &reqs[1]));
    CHECK_OK(MPI_Ineighbor_alltoall(send_a2a, MAXE, MPI_INT, recv_a2a, MAXE, MPI_INT, h->comm,
                                    &reqs[2]));
    CHECK_OK(MPI_Ineighbor_alltoallv(send_v, scounts, sdispls, MPI_INT, recv_v, rcounts, rdispls,
                                     MPI_INT, h->comm, &reqs[3]));
    CHECK_OK(MPI_Ineighbor_alltoallw(send_w, scounts, sbytes, stypes, recv_w, rcounts, rbytes,
                                     rtypes, h->comm, &reqs[4]));
    CHECK_OK(MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE));
  } else {
    CHECK_OK(MPI_Neighbor_allgather(send_ag, MAXE, MPI_INT, recv_ag, MAXE, MPI_INT, h->comm));
    CHECK_OK(MPI_Neighbor_allgatherv(send_ag, 1, MPI_INT, recv_agv, agv_counts, agv_displs, MPI_INT,
                                     h->comm));
    CHECK_OK(MPI_Neighbor_alltoall(send_a2a, MAXE, MPI_INT, recv_a2a, MAXE, MPI_INT, h->comm));
    CHECK_OK(MPI_Neighbor_alltoallv(send_v, scounts, sdispls, MPI_INT, recv_v, rcounts, rdispls,
                                    MPI_INT, h->comm));
    CHECK_OK(MPI_Neighbor_alltoallw(send_w, scounts, sbytes, stypes, recv_w, rcounts, rbytes,
                                    rtypes, h->comm));
  }
  for (int i = 0; i < h->nin; ++i) {
    const int src = h->in[i], slot = h->nin - 1 - i;
    check_block(recv_ag + i * MAXE, MAXE, src, 0);
    check_block(recv_agv + slot * MAXE, 1, src, 0);
    check_block(recv_a2a + i * MAXE, MAXE, src, h->from_block[i]);
    check_block(recv_v + slot * MAXE, rcounts[i], src, h->from_block[i]);
    check_block(recv_w + slot * MAXE, rcounts[i], src, h->from_block[i]);
    /* Nothing written past the v-blocks. */
    for (int e = rcounts[i]; e < MAXE; ++e) {
      CHECK(recv_v[slot * MAXE + e] == SENTINEL && recv_w[slot * MAXE + e] == SENTINEL);
    }
  }
}

/* A strided send type: every other int of a buffer twice as long. */
static void neighbor_derived(const struct Hood* h) {
  MPI_Datatype strided;
  CHECK_OK(MPI_Type_vector(MAXE, 1, 2, MPI_INT, &strided));
  CHECK_OK(MPI_Type_create_resized(strided, 0, (MPI_Aint)sizeof(int) * 2 * MAXE, &strided));
  CHECK_OK(MPI_Type_commit(&strided));
  int send[8 * 2 * MAXE], recv[8 * MAXE];
  for (int j = 0; j < h->nout; ++j) {
    for (int e = 0; e < MAXE; ++e) {
      send[j * 2 * MAXE + 2 * e] = value(rank, j, e);
      send[j * 2 * MAXE + 2 * e + 1] = -1;
    }
  }
  for (int i = 0; i < 8 * MAXE; ++i) recv[i] = SENTINEL;
  CHECK_OK(MPI_Neighbor_alltoall(send, 1, strided, recv, MAXE, MPI_INT, h->comm));
  for (int i = 0; i < h->nin; ++i) check_block(recv + i * MAXE, MAXE, h->in[i], h->from_block[i]);
  CHECK_OK(MPI_Type_free(&strided));
}

void neighbors(void) {
  struct Hood hoods[5];
  int n = 0;
  int dims2[2] = {0, 0}, per2[2] = {1, 0};
  CHECK_OK(MPI_Dims_create(size, 2, dims2));
  if (cart_hood(&hoods[n], 2, dims2, per2)) ++n;
  int ring = size, periodic = 1, line = size, open = 0;
  if (cart_hood(&hoods[n], 1, &ring, &periodic)) ++n; /* 1 and 2 ranks: same peer twice */
  if (cart_hood(&hoods[n], 1, &line, &open)) ++n;
  graph_hood(&hoods[n++]);
  dist_hood(&hoods[n++]);
  for (int i = 0; i < n; ++i) {
    neighbor_colls(&hoods[i], 0);
    neighbor_colls(&hoods[i], 1);
    neighbor_colls(&hoods[i], 2);
    neighbor_derived(&hoods[i]);
  }
  for (int i = 0; i < n; ++i) CHECK_OK(MPI_Comm_free(&hoods[i].comm));
}

