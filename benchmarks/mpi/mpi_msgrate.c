/* Message rate of small messages (default 8 bytes): per window, rank 0
 * posts `window` MPI_Isend and waits for them, rank 1 posts as many
 * MPI_Irecv, waits, and acknowledges with a 4-byte message. Rate = messages
 * per second, timed on rank 0 (one sender, one receiver). Exactly 2 ranks.
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
      .name = "mpi_msgrate",
      .description = "Small-message rate, one sender and one receiver (window of Isend/Irecv).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_WINDOW | BENCH_OPT_BIND |
                BENCH_OPT_ALLOC_MEM,
      .sizes = "8",
      .window = 64,
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  void* buf = bench_alloc(&o, bench_max_size(&o), 'a' + rank);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
  if (reqs == NULL) bench_fail("cannot allocate %d requests", o.window);

  if (rank == 0 && !o.json) {
    printf("# %s (%s): window of %d\n%8s %10s %14s %12s\n", spec.name, o.impl, o.window, "size",
           "windows", "Mmsgs/s", "us/msg");
  }
  for (int s = 0; s < o.nsizes; ++s) {
    const size_t size = o.sizes[s];
    /* Enough messages (about 320k by default) that one run is not a blip. */
    const long iters = o.iters > 0 ? o.iters : 320000 / o.window + 1;
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const double seconds = stream(rank, buf, reqs, size, o.window, bench_warmup(&o, iters), iters);
    const double messages = (double)o.window * (double)iters;
    const double rate = messages / seconds;
    if (rank != 0) continue;
    if (o.json) {
      printf(
          "{\"bench\":\"mpi_msgrate\",\"impl\":\"%s\",\"size\":%zu,\"window\":%d,"
          "\"messages\":%.0f,\"msgs_per_s\":%.0f,\"us\":%.5f}\n",
          o.impl, size, o.window, messages, rate, 1e6 / rate);
    } else {
      char label[16];
      printf("%8s %10ld %14.3f %12.4f\n", bench_size_label(size, label), iters, rate / 1e6,
             1e6 / rate);
    }
    fflush(stdout);
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  free(reqs);
  bench_free(&o, buf);
  return bench_finish(0);
}
