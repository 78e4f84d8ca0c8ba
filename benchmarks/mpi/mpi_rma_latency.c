/* One-sided latency: rank 0 accesses rank 1's window inside one
 * MPI_Win_lock_all epoch; each timed iteration is one access followed by
 * MPI_Win_flush (complete at the target), as OSU's osu_put_latency /
 * osu_get_latency with lock/flush synchronisation do, plus MPI_Fetch_and_op
 * (MPI_SUM on an 8-byte integer, osu_fop_latency) and MPI_Compare_and_swap.
 * Rank 1 makes no MPI call until rank 0 is done (passive target).
 * Exactly 2 ranks. Plain MPI-3: builds with any mpicc. */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

typedef enum { OP_PUT, OP_GET, OP_FOP, OP_CAS } Op;
static const char* const kOpName[] = {"put", "get", "fetch_and_op", "compare_and_swap"};

static double run(Op op, MPI_Win win, void* buf, size_t size, long warmup, long iters) {
  const int count = (int)size;
  long long one = 1, result = 0, cmp = 0;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    switch (op) {
      case OP_PUT:
        bench_check(MPI_Put(buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, win), "MPI_Put");
        break;
      case OP_GET:
        bench_check(MPI_Get(buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, win), "MPI_Get");
        break;
      case OP_FOP:
        bench_check(MPI_Fetch_and_op(&one, &result, MPI_LONG_LONG, 1, 0, MPI_SUM, win),
                    "MPI_Fetch_and_op");
        break;
      case OP_CAS:
        bench_check(MPI_Compare_and_swap(&one, &cmp, &result, MPI_LONG_LONG, 1, 0, win),
                    "MPI_Compare_and_swap");
        cmp = result;
        break;
    }
    bench_check(MPI_Win_flush(1, win), "MPI_Win_flush");
  }
  return MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_rma_latency",
      .description = "MPI_Put/MPI_Get + MPI_Win_flush and MPI_Fetch_and_op/MPI_Compare_and_swap latency in us (lock_all epoch).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_BIND,
      .sizes = "8:1M",
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  const size_t max = bench_max_size(&o);
  void* base = NULL;
  MPI_Win win;
  bench_check(MPI_Win_allocate((MPI_Aint)(max < 8 ? 8 : max), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                               &base, &win),
              "MPI_Win_allocate");
  memset(base, 0, max < 8 ? 8 : max);
  void* buf = bench_alloc(&o, max, 'a' + rank);
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  if (rank == 0) {
    if (!o.json) {
      printf("# %s (%s): access + MPI_Win_flush, lock_all epoch\n%18s %8s %10s %12s\n", spec.name,
             o.impl, "op", "size", "iters", "us");
    }
    bench_check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    for (int op = OP_PUT; op <= OP_CAS; ++op) {
      for (int s = 0; s < o.nsizes; ++s) {
        const size_t size = op >= OP_FOP ? 8 : o.sizes[s];
        if (op >= OP_FOP && s > 0) break;
        const long iters = bench_iters_latency(&o, size);
        const double us = run((Op)op, win, buf, size, bench_warmup(&o, iters), iters) / (double)iters * 1e6;
        if (o.json) {
          printf("{\"bench\":\"mpi_rma_latency\",\"impl\":\"%s\",\"op\":\"%s\",\"size\":%zu,"
                 "\"iters\":%ld,\"us\":%.4f}\n",
                 o.impl, kOpName[op], size, iters, us);
        } else {
          char label[16];
          printf("%18s %8s %10ld %12.3f\n", kOpName[op], bench_size_label(size, label), iters, us);
        }
        fflush(stdout);
      }
    }
    bench_check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_check(MPI_Win_free(&win), "MPI_Win_free");
  bench_free(&o, buf);
  return bench_finish(0);
}
