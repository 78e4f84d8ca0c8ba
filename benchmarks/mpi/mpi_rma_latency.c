/* One-sided latency, as OSU's osu_put_latency, osu_get_latency,
 * osu_acc_latency, osu_fop_latency and osu_cas_latency measure it, with two
 * synchronisations:
 *   flush: rank 0 accesses rank 1's window inside one MPI_Win_lock_all
 *          epoch; each timed iteration is one access and MPI_Win_flush
 *          (complete at the target). Rank 1 waits in MPI_Barrier meanwhile
 *          (passive target).
 *   fence: each iteration is one access by rank 0 and MPI_Win_fence on both
 *          ranks (active target).
 * Accumulate is MPI_SUM on MPI_INT (sizes that are a multiple of 4);
 * Fetch_and_op (MPI_SUM) and Compare_and_swap use one 8-byte integer.
 * Exactly 2 ranks. Plain MPI-3: builds with any mpicc. */
#include <stdio.h>

#include "bench_util.h"

typedef enum { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS, OP_COUNT } Op;
static const char* const kOpName[] = {"put", "get", "accumulate", "fetch_and_op",
                                      "compare_and_swap"};
typedef enum { SYNC_FLUSH, SYNC_FENCE } Sync;
static const char* const kSyncName[] = {"flush", "fence"};

static void access_once(Op op, MPI_Win win, void* buf, size_t size, long long* cmp) {
  const int count = (int)size;
  long long one = 1, result = 0;
  switch (op) {
    case OP_PUT:
      bench_check(MPI_Put(buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, win), "MPI_Put");
      break;
    case OP_GET:
      bench_check(MPI_Get(buf, count, MPI_BYTE, 1, 0, count, MPI_BYTE, win), "MPI_Get");
      break;
    case OP_ACC:
      bench_check(MPI_Accumulate(buf, count / 4, MPI_INT, 1, 0, count / 4, MPI_INT, MPI_SUM, win),
                  "MPI_Accumulate");
      break;
    case OP_FOP:
      bench_check(MPI_Fetch_and_op(&one, &result, MPI_LONG_LONG, 1, 0, MPI_SUM, win),
                  "MPI_Fetch_and_op");
      break;
    case OP_CAS:
      bench_check(MPI_Compare_and_swap(&one, cmp, &result, MPI_LONG_LONG, 1, 0, win),
                  "MPI_Compare_and_swap");
      *cmp = result;
      break;
    default:
      break;
  }
}

/* Seconds for `iters` timed iterations after `warmup`; every rank calls it
 * in fence mode, rank 0 alone in flush mode. */
static double run(Op op, Sync sync, int rank, MPI_Win win, void* buf, size_t size, long warmup,
                  long iters) {
  long long cmp = 0;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    if (rank == 0) access_once(op, win, buf, size, &cmp);
    if (sync == SYNC_FLUSH) {
      bench_check(MPI_Win_flush(1, win), "MPI_Win_flush");
    } else {
      bench_check(MPI_Win_fence(0, win), "MPI_Win_fence");
    }
  }
  return MPI_Wtime() - start;
}

/* Whether `op` runs at `size` (the atomics at 8 bytes only, accumulate on whole ints). */
static int runs_at(Op op, size_t size) {
  if (op == OP_FOP || op == OP_CAS) return size == 8;
  if (op == OP_ACC) return size >= 4 && size % 4 == 0;
  return 1;
}

static void sweep(Sync sync, int rank, MPI_Win win, void* buf, const BenchOptions* o) {
  for (int op = OP_PUT; op < OP_COUNT; ++op) {
    for (int s = 0; s < o->nsizes; ++s) {
      const size_t size = o->sizes[s];
      if (!runs_at((Op)op, size)) continue;
      const long iters = bench_iters_latency(o, size);
      const double us =
          run((Op)op, sync, rank, win, buf, size, bench_warmup(o, iters), iters) / (double)iters * 1e6;
      if (rank != 0) continue;
      if (o->json) {
        printf("{\"bench\":\"mpi_rma_latency\",\"impl\":\"%s\",\"win\":\"%s\",\"op\":\"%s\","
               "\"sync\":\"%s\",\"size\":%zu,\"iters\":%ld,\"us\":%.4f}\n",
               o->impl, bench_win_name(o), kOpName[op], kSyncName[sync], size, iters, us);
      } else {
        char label[16];
        printf("%18s %6s %8s %10ld %12.3f\n", kOpName[op], kSyncName[sync],
               bench_size_label(size, label), iters, us);
      }
      fflush(stdout);
    }
  }
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_rma_latency",
      .description = "MPI_Put/Get/Accumulate/Fetch_and_op/Compare_and_swap latency in us, "
                     "with MPI_Win_flush (lock_all epoch) and with MPI_Win_fence.",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_BIND | BENCH_OPT_WIN,
      .sizes = "8:1M",
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  MPI_Win win;
  void* buf = bench_rma_setup(&o, rank, &win);
  if (rank == 0 && !o.json) {
    printf("# %s (%s, %s window): one access then MPI_Win_flush (lock_all) or MPI_Win_fence\n"
           "%18s %6s %8s %10s %12s\n",
           spec.name, o.impl, bench_win_name(&o), "op", "sync", "size", "iters", "us");
  }
  if (rank == 0) {
    bench_check(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    sweep(SYNC_FLUSH, rank, win, buf, &o);
    bench_check(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_check(MPI_Win_fence(0, win), "MPI_Win_fence");
  sweep(SYNC_FENCE, rank, win, buf, &o);
  bench_check(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "MPI_Win_fence");
  bench_rma_free(&o, &win);
  bench_free(&o, buf);
  return bench_finish(0);
}
