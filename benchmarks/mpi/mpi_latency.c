/* Ping-pong latency: rank 0 sends `size` bytes with MPI_Send, rank 1
 * receives with MPI_Recv and sends them back. One-way latency = round trip
 * / 2, timed on rank 0 over the timed iterations (after a warm-up).
 * 2 ranks or more: the others stay idle but for the barriers. Plain MPI
 * 3.1: builds with any mpicc. */
#include <stdio.h>

#include "bench_util.h"

static double pingpong(int rank, void* sbuf, void* rbuf, size_t size, long warmup, long iters) {
  const int count = (int)size;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    if (rank == 0) {
      bench_check(MPI_Send(sbuf, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD), "MPI_Send");
      bench_check(MPI_Recv(rbuf, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv");
    } else {
      bench_check(MPI_Recv(rbuf, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                  "MPI_Recv");
      bench_check(MPI_Send(sbuf, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD), "MPI_Send");
    }
  }
  return MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_latency",
      .description = "MPI_Send/MPI_Recv ping-pong, one-way latency in us (round trip / 2).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_BIND | BENCH_OPT_ALLOC_MEM,
      .sizes = "1:4M",
  };
  BenchOptions o;
  /* Ranks beyond 0 and 1 only join the barriers: a job with idle peers
   * elsewhere (benchmarks/hosts_poll runs it across test hosts). */
  const int rank = bench_init(&argc, &argv, &spec, 0, &o);
  const size_t max = bench_max_size(&o);
  void* sbuf = bench_alloc(&o, max, 'a' + rank);
  void* rbuf = bench_alloc(&o, max, 0);

  if (rank == 0 && !o.json) {
    printf("# %s (%s): one-way latency, round trip / 2\n%8s %10s %12s\n", spec.name, o.impl, "size",
           "iters", "us");
  }
  for (int s = 0; s < o.nsizes; ++s) {
    const size_t size = o.sizes[s];
    const long iters = bench_iters_latency(&o, size);
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const double seconds = rank < 2 ? pingpong(rank, sbuf, rbuf, size, bench_warmup(&o, iters), iters) : 0;
    const double us = seconds / (double)iters / 2.0 * 1e6;
    if (rank != 0) continue;
    if (o.json) {
      printf("{\"bench\":\"mpi_latency\",\"impl\":\"%s\",\"size\":%zu,\"iters\":%ld,\"us\":%.4f}\n",
             o.impl, size, iters, us);
    } else {
      char label[16];
      printf("%8s %10ld %12.3f\n", bench_size_label(size, label), iters, us);
    }
    fflush(stdout);
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_free(&o, sbuf);
  bench_free(&o, rbuf);
  return bench_finish(0);
}
