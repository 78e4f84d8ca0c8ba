/* Collective latency (the OSU collective benchmarks' pattern): every rank
 * runs one collective of `size` bytes in a loop on MPI_COMM_WORLD; the
 * figure is the mean time per call averaged over ranks, beside the slowest
 * rank's. --colls picks from barrier, bcast, reduce, allreduce (MPI_FLOAT,
 * MPI_SUM; root 0), allgather, alltoall and alltoallv (`size` bytes per
 * rank: each rank contributes and receives size bytes from each peer; the v
 * form with equal counts, as NPB IS's exchange of keys). Barrier runs
 * once, at size 0. Any number of ranks >= 2. Plain MPI 3.1: builds with any
 * mpicc. */
#include <stdio.h>

#include "bench_util.h"

/* MPI_Alltoallv's counts and displacements: `bytes` from and to every rank. */
static int* v_counts;
static int* v_displs;

static void set_v_layout(int ranks, int bytes) {
  for (int r = 0; r < ranks; ++r) {
    v_counts[r] = bytes;
    v_displs[r] = r * bytes;
  }
}

static void run_once(BenchColl c, void* sbuf, void* rbuf, int count, int bytes) {
  MPI_Comm w = MPI_COMM_WORLD;
  switch (c) {
    case BENCH_BARRIER:
      bench_check(MPI_Barrier(w), "MPI_Barrier");
      break;
    case BENCH_BCAST:
      bench_check(MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, w), "MPI_Bcast");
      break;
    case BENCH_REDUCE:
      bench_check(MPI_Reduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, 0, w), "MPI_Reduce");
      break;
    case BENCH_ALLREDUCE:
      bench_check(MPI_Allreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, w), "MPI_Allreduce");
      break;
    case BENCH_ALLGATHER:
      bench_check(MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, w), "MPI_Allgather");
      break;
    case BENCH_ALLTOALL:
      bench_check(MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, w), "MPI_Alltoall");
      break;
    case BENCH_ALLTOALLV:
      bench_check(MPI_Alltoallv(sbuf, v_counts, v_displs, MPI_BYTE, rbuf, v_counts, v_displs, MPI_BYTE, w),
                  "MPI_Alltoallv");
      break;
    default:
      break;
  }
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_coll",
      .description = "Collective latency in us per call (barrier, bcast, reduce, allreduce, "
                     "allgather, alltoall, alltoallv).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_BIND | BENCH_OPT_COLLS,
      .sizes = "8,4K,64K,1M",
      .colls = "barrier,bcast,reduce,allreduce,allgather,alltoall",
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 0, &o);
  int ranks = 0;
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  /* allgather/alltoall move size bytes per rank */
  const size_t max = bench_max_size(&o) * (size_t)ranks;
  void* sbuf = bench_alloc(&o, max, 1);
  void* rbuf = bench_alloc(&o, max, 0);
  v_counts = bench_alloc(&o, (size_t)ranks * sizeof(int), 0);
  v_displs = bench_alloc(&o, (size_t)ranks * sizeof(int), 0);
  if (rank == 0 && !o.json) {
    printf("# %s (%s), %d ranks\n%10s %8s %10s %12s %12s\n", spec.name, o.impl, ranks, "coll", "size",
           "iters", "avg_us", "max_us");
  }
  for (int c = 0; c < BENCH_COLL_COUNT; ++c) {
    if (!(o.colls & (1u << c))) continue;
    for (int s = 0; s < o.nsizes; ++s) {
      const size_t size = c == BENCH_BARRIER ? 0 : o.sizes[s];
      if (c == BENCH_BARRIER && s > 0) break;
      const int count = (int)(size / sizeof(float));
      set_v_layout(ranks, (int)size);
      const long iters = bench_iters_latency(&o, size * (c >= BENCH_ALLGATHER ? (size_t)ranks : 1));
      const long warmup = bench_warmup(&o, iters);
      double start = 0;
      bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      for (long i = 0; i < warmup + iters; ++i) {
        if (i == warmup) start = MPI_Wtime();
        run_once((BenchColl)c, sbuf, rbuf, count, (int)size);
      }
      const double us = (MPI_Wtime() - start) / (double)iters * 1e6;
      double sum = 0, slowest = 0;
      bench_check(MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
      bench_check(MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
      if (rank != 0) continue;
      if (o.json) {
        printf("{\"bench\":\"mpi_coll\",\"impl\":\"%s\",\"coll\":\"%s\",\"ranks\":%d,\"size\":%zu,"
               "\"iters\":%ld,\"us\":%.4f,\"max_us\":%.4f}\n",
               o.impl, bench_coll_names[c], ranks, size, iters, sum / ranks, slowest);
      } else {
        char label[16];
        printf("%10s %8s %10ld %12.3f %12.3f\n", bench_coll_names[c], bench_size_label(size, label),
               iters, sum / ranks, slowest);
      }
      fflush(stdout);
    }
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_free(&o, sbuf);
  bench_free(&o, rbuf);
  bench_free(&o, v_counts);
  bench_free(&o, v_displs);
  return bench_finish(0);
}
