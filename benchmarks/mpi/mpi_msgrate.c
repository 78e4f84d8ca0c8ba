/* Message rate of small messages (default 8 bytes): per window, rank 0
 * posts `window` MPI_Isend and waits for them, rank 1 posts as many
 * MPI_Irecv, waits, and acknowledges with a 4-byte message. Rate = messages
 * per second, timed on rank 0 (one sender, one receiver). Exactly 2 ranks.
 * Plain MPI 3.1: builds with any mpicc. */
#include <stdio.h>

#include "bench_util.h"

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_msgrate",
      .description = "Small-message rate, one sender and one receiver (window of Isend/Irecv).",
      .accept = BENCH_OPTS_WINDOWED,
      .sizes = "8",
      .window = 64,
  };
  BenchStream stream;
  bench_stream_init(&argc, &argv, &spec, &stream);
  const BenchOptions* o = &stream.opts;

  if (stream.rank == 0 && !o->json) {
    printf("# %s (%s): window of %d\n%8s %10s %14s %12s\n", spec.name, o->impl, o->window, "size",
           "windows", "Mmsgs/s", "us/msg");
  }
  for (int s = 0; s < o->nsizes; ++s) {
    const size_t size = o->sizes[s];
    /* Enough messages (about 320k by default) that one run is not a blip. */
    const long iters = o->iters > 0 ? o->iters : 320000 / o->window + 1;
    const double seconds = bench_stream_time(&stream, size, iters);
    const double messages = (double)o->window * (double)iters;
    const double rate = messages / seconds;
    if (stream.rank != 0) continue;
    if (o->json) {
      printf(
          "{\"bench\":\"mpi_msgrate\",\"impl\":\"%s\",\"size\":%zu,\"window\":%d,"
          "\"messages\":%.0f,\"msgs_per_s\":%.0f,\"us\":%.5f}\n",
          o->impl, size, o->window, messages, rate, 1e6 / rate);
    } else {
      char label[16];
      printf("%8s %10ld %14.3f %12.4f\n", bench_size_label(size, label), iters, rate / 1e6,
             1e6 / rate);
    }
    fflush(stdout);
  }
  return bench_stream_finish(&stream);
}
