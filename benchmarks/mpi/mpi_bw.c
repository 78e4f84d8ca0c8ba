/* Uni-directional bandwidth: per window, rank 0 posts `window` MPI_Isend of
 * `size` bytes and waits for them; rank 1 posts as many MPI_Irecv, waits,
 * and answers with a 4-byte acknowledgement that rank 0 receives before the
 * next window (as OSU's osu_bw does; all receives of a window share one
 * buffer). MB/s = 10^6 bytes per second, timed on rank 0. Exactly 2 ranks.
 * Plain MPI 3.1: builds with any mpicc. */
#include <stdio.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_bw",
      .description = "Uni-directional streaming bandwidth in MB/s (window of MPI_Isend/Irecv).",
      .accept = BENCH_OPTS_WINDOWED,
      .sizes = "1:4M",
      .window = 64,
  };
  BenchStream stream;
  bench_stream_init(&argc, &argv, &spec, &stream);
  const BenchOptions* o = &stream.opts;

  if (stream.rank == 0 && !o->json) {
    printf("# %s (%s): window of %d, MB/s = 10^6 B/s\n%8s %10s %12s\n", spec.name, o->impl,
           o->window, "size", "windows", "MBps");
  }
  for (int s = 0; s < o->nsizes; ++s) {
    const size_t size = o->sizes[s];
    const long iters = bench_iters_window(o, size);
    const double seconds = bench_stream_time(&stream, size, iters);
    const double mbps = (double)size * o->window * (double)iters / seconds / 1e6;
    if (stream.rank == 0) bench_report_mbps(o, spec.name, size, iters, mbps);
  }
  return bench_stream_finish(&stream);
}
