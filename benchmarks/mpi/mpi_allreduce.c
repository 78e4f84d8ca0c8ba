/* MPI_Allreduce latency (OSU's osu_allreduce pattern): every rank runs
 * MPI_Allreduce of `size` bytes (MPI_FLOAT, MPI_SUM) in a loop; the figure is
 * the mean time per call, averaged over ranks (and the slowest rank's).
 * Any number of ranks >= 2. Plain MPI 3.1: builds with any mpicc. */
#include <stdio.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_allreduce",
      .description = "MPI_Allreduce (MPI_FLOAT, MPI_SUM) latency in us per call.",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_BIND,
      .sizes = "8,64K",
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 0, &o);
  int ranks = 0;
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  const size_t max = bench_max_size(&o);
  void* sbuf = bench_alloc(&o, max, 0);
  void* rbuf = bench_alloc(&o, max, 0);
  if (rank == 0 && !o.json) {
    printf("# %s (%s), %d ranks\n%8s %10s %12s %12s\n", spec.name, o.impl, ranks, "size",
           "iters", "avg_us", "max_us");
  }
  for (int s = 0; s < o.nsizes; ++s) {
    const size_t size = o.sizes[s];
    const int count = (int)(size / sizeof(float));
    const long iters = bench_iters_latency(&o, size);
    const long warmup = bench_warmup(&o, iters);
    double start = 0;
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    for (long i = 0; i < warmup + iters; ++i) {
      if (i == warmup) start = MPI_Wtime();
      bench_check(MPI_Allreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
                  "MPI_Allreduce");
    }
    const double us = (MPI_Wtime() - start) / (double)iters * 1e6;
    double sum = 0, slowest = 0;
    bench_check(MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
    bench_check(MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD),
                "MPI_Reduce");
    if (rank != 0) continue;
    if (o.json) {
      printf("{\"bench\":\"mpi_allreduce\",\"impl\":\"%s\",\"ranks\":%d,\"size\":%zu,"
             "\"iters\":%ld,\"us\":%.4f,\"max_us\":%.4f}\n",
             o.impl, ranks, size, iters, sum / ranks, slowest);
    } else {
      char label[16];
      printf("%8s %10ld %12.3f %12.3f\n", bench_size_label(size, label), iters, sum / ranks,
             slowest);
    }
    fflush(stdout);
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_free(&o, sbuf);
  bench_free(&o, rbuf);
  return bench_finish(0);
}
