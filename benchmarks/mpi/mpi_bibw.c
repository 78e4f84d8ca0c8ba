/* Bi-directional bandwidth: per window, both ranks post `window` MPI_Irecv
 * and `window` MPI_Isend of `size` bytes to each other and wait for all of
 * them (OSU's osu_bibw pattern; receives of a window share one buffer).
 * MB/s counts the bytes of both directions (2 * size * window per window),
 * timed on rank 0. Exactly 2 ranks. Plain MPI 3.1: builds with any mpicc. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

static double exchange(int rank, void* sbuf, void* rbuf, MPI_Request* reqs, size_t size, int window,
                       long warmup, long iters) {
  const int count = (int)size;
  const int peer = 1 - rank;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    for (int w = 0; w < window; ++w) {
      bench_check(MPI_Irecv(rbuf, count, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &reqs[w]), "MPI_Irecv");
    }
    for (int w = 0; w < window; ++w) {
      bench_check(MPI_Isend(sbuf, count, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &reqs[window + w]),
                  "MPI_Isend");
    }
    bench_check(MPI_Waitall(2 * window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  return MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_bibw",
      .description = "Bi-directional streaming bandwidth in MB/s, both directions counted.",
      .accept = BENCH_OPTS_WINDOWED,
      .sizes = "1:4M",
      .window = 64,
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  const size_t max = bench_max_size(&o);
  void* sbuf = bench_alloc(&o, max, 'a' + rank);
  void* rbuf = bench_alloc(&o, max, 0);
  MPI_Request* reqs = bench_alloc_requests(2 * o.window);

  if (rank == 0 && !o.json) {
    printf(
        "# %s (%s): window of %d each way, MB/s = 10^6 B/s of both directions\n"
        "%8s %10s %12s\n",
        spec.name, o.impl, o.window, "size", "windows", "MBps");
  }
  for (int s = 0; s < o.nsizes; ++s) {
    const size_t size = o.sizes[s];
    const long iters = bench_iters_window(&o, size);
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const double seconds =
        exchange(rank, sbuf, rbuf, reqs, size, o.window, bench_warmup(&o, iters), iters);
    const double mbps = 2.0 * (double)size * o.window * (double)iters / seconds / 1e6;
    if (rank == 0) bench_report_mbps(&o, spec.name, size, iters, mbps);
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  free(reqs);
  bench_free(&o, sbuf);
  bench_free(&o, rbuf);
  return bench_finish(0);
}
