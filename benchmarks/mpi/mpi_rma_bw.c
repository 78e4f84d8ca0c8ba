/* One-sided bandwidth, as OSU's osu_put_bw and osu_get_bw measure it with
 * lock/flush synchronisation: inside one MPI_Win_lock_all epoch, rank 0
 * issues a window of `window` MPI_Put (or MPI_Get) of `size` bytes to the
 * same place in rank 1's window, then MPI_Win_flush; rank 1 makes no MPI
 * call meanwhile (passive target). MB/s = 10^6 bytes per second, timed on
 * rank 0. Exactly 2 ranks. Plain MPI-3: builds with any mpicc. */
#include <stdio.h>

#include "bench_util.h"

typedef enum { OP_PUT, OP_GET, OP_COUNT } Op;
static const char* const kOpName[] = {"put", "get"};

static double run(Op op, MPI_Win win, void* buf, size_t size, int window, long warmup,
                  long iters) {
  const int count = (int)size;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    for (int k = 0; k < window; ++k) {
      if (op == OP_PUT) {
        bench_check(MPI_Put(buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, win), "MPI_Put");
      } else {
        bench_check(MPI_Get(buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, win), "MPI_Get");
      }
    }
    bench_check(MPI_Win_flush(1, win), "MPI_Win_flush");
  }
  return MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_rma_bw",
      .description = "MPI_Put/MPI_Get streaming bandwidth in MB/s: a window of accesses, then "
                     "MPI_Win_flush (lock_all epoch).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_WINDOW | BENCH_OPT_BIND | BENCH_OPT_WIN,
      .sizes = "8:1M",
      .window = 64,
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  MPI_Win win;
  void* buf = bench_rma_setup(&o, rank, &win);
  if (rank == 0) {
    if (!o.json) {
      printf("# %s (%s, %s window): window of %d, then MPI_Win_flush; MB/s = 10^6 B/s\n"
             "%6s %8s %10s %12s\n",
             spec.name, o.impl, bench_win_name(&o), o.window, "op", "size", "windows", "MBps");
    }
    bench_check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    for (int op = OP_PUT; op < OP_COUNT; ++op) {
      for (int s = 0; s < o.nsizes; ++s) {
        const size_t size = o.sizes[s];
        const long iters = bench_iters_window(&o, size);
        const double seconds =
            run((Op)op, win, buf, size, o.window, bench_warmup(&o, iters), iters);
        const double mbps = (double)size * o.window * (double)iters / seconds / 1e6;
        if (o.json) {
          printf("{\"bench\":\"mpi_rma_bw\",\"impl\":\"%s\",\"win\":\"%s\",\"op\":\"%s\","
                 "\"size\":%zu,\"iters\":%ld,\"MBps\":%.2f}\n",
                 o.impl, bench_win_name(&o), kOpName[op], size, iters, mbps);
        } else {
          char label[16];
          printf("%6s %8s %10ld %12.0f\n", kOpName[op], bench_size_label(size, label), iters, mbps);
        }
        fflush(stdout);
      }
    }
    bench_check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_rma_free(&o, &win);
  bench_free(&o, buf);
  return bench_finish(0);
}
