/* Shared pieces of the plain MPI benchmark programs (mpi_latency, mpi_bw,
 * mpi_bibw, mpi_msgrate, mpi_interrupt_latency, mpi_flood): options,
 * buffers, timing, /proc helpers, and the windowed stream that mpi_bw and
 * mpi_msgrate both time.
 *
 * Everything here is standard C11 + POSIX + MPI 3.1 point-to-point, so the
 * programs build unchanged with Lapis' mpi.h, Open MPI's mpicc and MPICH's
 * mpicc (benchmarks/compare_mpi does exactly that).
 *
 * Common command line (each program accepts the subset it names in `accept`):
 *   --sizes LIST   comma list of sizes (suffix K, M) and power-of-two ranges
 *                  LO:HI, e.g. "8,4K,1M" or "1:4M"
 *   --iters N      timed iterations per size (default: scaled by size)
 *   --warmup N     untimed iterations before them (default: iters/10, >= 2)
 *   --window N     messages in flight per window (bandwidth, message rate)
 *   --timeout S    seconds (interrupt test: per message; flood: whole drain)
 *   --count N      messages per sender (flood)
 *   --threads LIST threads per rank, e.g. "1,2" (multi-threaded programs)
 *   --colls LIST   collectives, e.g. "barrier,allreduce" (mpi_coll)
 *   --impl NAME    label for the "impl" field (default: from
 *                  MPI_Get_library_version: lapis, openmpi, mpich)
 *   --bind         pin each rank's main thread to core (rank % cores) after
 *                  MPI_Init, so every implementation runs with the same
 *                  placement (launch the others with binding off)
 *   --alloc-mem    buffers from MPI_Alloc_mem instead of page-aligned malloc
 *   --json         one JSON object per line instead of the table
 *   --help
 */
#ifndef LAPIS_BENCHMARKS_MPI_BENCH_UTIL_H
#define LAPIS_BENCHMARKS_MPI_BENCH_UTIL_H

#include <stddef.h>

#include <mpi.h>

enum {
  BENCH_MAX_SIZES = 64,
  BENCH_MAX_SIZE = 64 << 20 /* bytes */
};

/* Which options a program takes (bit mask for BenchSpec.accept). */
enum {
  BENCH_OPT_SIZES = 1 << 0,
  BENCH_OPT_ITERS = 1 << 1,
  BENCH_OPT_WINDOW = 1 << 2,
  BENCH_OPT_TIMEOUT = 1 << 3,
  BENCH_OPT_COUNT = 1 << 4,
  BENCH_OPT_BIND = 1 << 5,
  BENCH_OPT_ALLOC_MEM = 1 << 6,
  BENCH_OPT_NONBLOCKING = 1 << 7,
  BENCH_OPT_THREADS = 1 << 8,
  BENCH_OPT_COLLS = 1 << 9,
  BENCH_OPT_WIN = 1 << 10,
  BENCH_OPT_PHASES = 1 << 11,
  /* What the windowed programs (mpi_bw, mpi_bibw, mpi_msgrate) take. */
  BENCH_OPTS_WINDOWED = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_WINDOW | BENCH_OPT_BIND |
                        BENCH_OPT_ALLOC_MEM
};

typedef struct {
  size_t sizes[BENCH_MAX_SIZES];
  int nsizes;
  long iters;  /* 0: automatic */
  long warmup; /* -1: automatic */
  int window;
  double timeout_s;
  long count;
  int bind;
  int alloc_mem;
  int nonblocking;
  int win_create; /* --win create: MPI_Win_create on bench_alloc memory (BENCH_OPT_WIN) */
  int threads[8]; /* --threads LIST: threads per rank (BENCH_OPT_THREADS) */
  int nthreads;
  unsigned colls; /* --colls LIST: bit (1 << BenchColl) per collective (BENCH_OPT_COLLS) */
  int phases;     /* --phases: time each phase of a round too (BENCH_OPT_PHASES) */
  int json;
  int help;
  char impl[32];
} BenchOptions;

/* Defaults a program gives before parsing. */
typedef struct {
  const char* name;        /* "mpi_latency" */
  const char* description; /* one line for --help */
  unsigned accept;         /* BENCH_OPT_* */
  const char* sizes;       /* default --sizes */
  int window;
  double timeout_s;
  long count;
  const char* threads; /* default --threads (BENCH_OPT_THREADS) */
  const char* colls;   /* default --colls (BENCH_OPT_COLLS) */
  /* 0: MPI_Init; else MPI_Init_thread at this level (e.g. MPI_THREAD_MULTIPLE),
   * and a level below it provided ends the job with a message. */
  int thread_level;
} BenchSpec;

/* The collectives --colls names, in the order mpi_coll runs them. */
typedef enum {
  BENCH_BARRIER,
  BENCH_BCAST,
  BENCH_REDUCE,
  BENCH_ALLREDUCE,
  BENCH_ALLGATHER,
  BENCH_ALLTOALL,
  BENCH_ALLTOALLV,
  BENCH_COLL_COUNT
} BenchColl;
extern const char* const bench_coll_names[BENCH_COLL_COUNT];

/* Calls MPI_Init, parses argv into `opts` and checks the rank count
 * (exactly `ranks`, or at least 2 when `ranks` is 0). On bad arguments or a
 * wrong rank count, rank 0 prints a message naming the problem, every rank
 * finalizes, and the process exits (2 for arguments, 1 for ranks). --help
 * prints the usage and exits 0. Returns this rank. */
int bench_init(int* argc, char*** argv, const BenchSpec* spec, int ranks, BenchOptions* opts);

/* MPI_Finalize; returns `status` for main to return. */
int bench_finish(int status);

/* Ends the job with a message naming what failed unless rc is MPI_SUCCESS. */
void bench_check(int rc, const char* what);
/* Ends the job with a message (printf format). */
void bench_fail(const char* fmt, ...);

/* Page-aligned buffer (or MPI_Alloc_mem with --alloc-mem), filled with
 * `fill`. Never returns NULL (ends the job instead). */
void* bench_alloc(const BenchOptions* opts, size_t bytes, int fill);
void bench_free(const BenchOptions* opts, void* buf);

/* `n` request slots (malloc). Never returns NULL (ends the job instead). */
MPI_Request* bench_alloc_requests(int n);

/* The one-sided programs' setup: a window of the largest size (at least 8
 * bytes) from MPI_Win_allocate (--win create: MPI_Win_create on memory
 * from bench_alloc), zeroed, on every rank of MPI_COMM_WORLD; returns this
 * rank's origin buffer (bench_alloc, filled with 'a' + rank) after a
 * barrier. bench_rma_free frees the window and the memory it made. */
void* bench_rma_setup(const BenchOptions* opts, int rank, MPI_Win* win);
void bench_rma_free(const BenchOptions* opts, MPI_Win* win);
/* "allocate" or "create": the window flavour, for the output. */
const char* bench_win_name(const BenchOptions* opts);

/* Latency loops: iterations for one size (--iters or a default that keeps
 * one size short), and warm-up iterations. */
long bench_iters_latency(const BenchOptions* opts, size_t size);
long bench_iters_window(const BenchOptions* opts, size_t size);
long bench_warmup(const BenchOptions* opts, long iters);

/* Largest selected size. */
size_t bench_max_size(const BenchOptions* opts);

/* "8", "4K", "1M" (exact binary suffixes only; else bytes). `out` >= 16. */
const char* bench_size_label(size_t size, char* out);

/* Rank 0's row of a bandwidth program (mpi_bw, mpi_bibw): a JSON line
 * {"bench","impl","size","window","iters","MBps"} with --json, else a table
 * row under the header "size windows MBps". Flushes stdout. */
void bench_report_mbps(const BenchOptions* opts, const char* bench, size_t size, long iters,
                       double mbps);

/* Seconds from a monotonic clock that is not MPI (the interrupt test must
 * not call MPI while it waits). */
double bench_now(void);

/* KiB of a /proc/self/status field ("VmRSS", "VmHWM"); -1 if unknown. */
long bench_status_kib(const char* field);
/* Resets VmHWM to the current RSS (Linux clear_refs 5); 0 on success. */
int bench_reset_peak_rss(void);

/* The one-way window stream of mpi_bw and mpi_msgrate (OSU's osu_bw
 * pattern): per window, rank 0 posts `window` MPI_Isend of `size` bytes and
 * waits for them; rank 1 posts as many MPI_Irecv (all into one buffer),
 * waits, and answers with a 4-byte acknowledgement that rank 0 receives
 * before the next window. The two programs differ only in defaults and in
 * what they compute from the time. */
typedef struct {
  BenchOptions opts;
  int rank;
  void* buf;         /* the largest size, filled with 'a' + rank */
  MPI_Request* reqs; /* opts.window of them */
} BenchStream;

/* bench_init for exactly 2 ranks, then the buffer and the requests. */
void bench_stream_init(int* argc, char*** argv, const BenchSpec* spec, BenchStream* stream);
/* Lines both ranks up (MPI_Barrier), runs the warm-up windows, then `iters`
 * timed windows of `size`-byte messages; returns their seconds. */
double bench_stream_time(BenchStream* stream, size_t size, long iters);
/* Lines both ranks up, frees what bench_stream_init took and finalizes;
 * returns 0 for main to return. */
int bench_stream_finish(BenchStream* stream);

#endif
