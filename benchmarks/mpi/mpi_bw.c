/* Uni-directional bandwidth: per window, rank 0 posts `window` MPI_Isend of
 * `size` bytes and waits for them; rank 1 posts as many MPI_Irecv, waits,
 * and answers with a 4-byte acknowledgement that rank 0 receives before the
 * next window (as OSU's osu_bw does; all receives of a window share one
 * buffer). MB/s = 10^6 bytes per second, timed on rank 0. Exactly 2 ranks.
 * Plain MPI 3.1: builds with any mpicc. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

static double stream(int rank, void* buf, MPI_Request* reqs, size_t size, int window, long warmup,
                     long iters) {
  const int count = (int)size;
  int ack = 0;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    if (rank == 0) {
      for (int w = 0; w < window; ++w) {
        bench_check(MPI_Isend(buf, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[w]), "MPI_Isend");
      }
      bench_check(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
      bench_check(MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    } else {
      for (int w = 0; w < window; ++w) {
        bench_check(MPI_Irecv(buf, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[w]), "MPI_Irecv");
      }
      bench_check(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
      bench_check(MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD), "MPI_Send");
    }
  }
  return MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_bw",
      .description = "Uni-directional streaming bandwidth in MB/s (window of MPI_Isend/Irecv).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_WINDOW | BENCH_OPT_BIND |
                BENCH_OPT_ALLOC_MEM,
      .sizes = "1:4M",
      .window = 64,
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  void* buf = bench_alloc(&o, bench_max_size(&o), 'a' + rank);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
  if (reqs == NULL) bench_fail("cannot allocate %d requests", o.window);

  if (rank == 0 && !o.json) {
    printf("# %s (%s): window of %d, MB/s = 10^6 B/s\n%8s %10s %12s\n", spec.name, o.impl, o.window,
           "size", "windows", "MBps");
  }
  for (int s = 0; s < o.nsizes; ++s) {
    const size_t size = o.sizes[s];
    const long iters = bench_iters_window(&o, size);
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const double seconds = stream(rank, buf, reqs, size, o.window, bench_warmup(&o, iters), iters);
    const double mbps = (double)size * o.window * (double)iters / seconds / 1e6;
    if (rank != 0) continue;
    if (o.json) {
      printf(
          "{\"bench\":\"mpi_bw\",\"impl\":\"%s\",\"size\":%zu,\"window\":%d,\"iters\":%ld,"
          "\"MBps\":%.6g}\n",
          o.impl, size, o.window, iters, mbps);
    } else {
      char label[16];
      printf("%8s %10ld %12.1f\n", bench_size_label(size, label), iters, mbps);
    }
    fflush(stdout);
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  free(reqs);
  bench_free(&o, buf);
  return bench_finish(0);
}
