/* Options, buffers, timing and /proc helpers of the MPI benchmarks, and
 * the window stream shared by mpi_bw and mpi_msgrate. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */

#include "bench_util.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char* g_name = "mpi_bench";
static int g_rank = -1;

void bench_fail(const char* fmt, ...) {
  char text[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  fprintf(stderr, "%s: rank %d: error: %s\n", g_name, g_rank, text);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1); /* MPI_Abort does not return; this keeps compilers quiet */
}

void bench_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", rc);
  bench_fail("%s failed: %s", what, text);
}

/* --- parsing --------------------------------------------------------- */

/* "64", "4K", "1M" -> bytes in 1..BENCH_MAX_SIZE. */
static int parse_size(const char* text, size_t len, size_t* out) {
  char buf[32];
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, text, len);
  buf[len] = '\0';
  size_t scale = 1;
  char last = buf[len - 1];
  if (last == 'K' || last == 'k') scale = 1024;
  if (last == 'M' || last == 'm') scale = 1024 * 1024;
  if (scale != 1) buf[--len] = '\0';
  if (len == 0 || buf[0] < '0' || buf[0] > '9') return 0;
  errno = 0;
  char* end = NULL;
  unsigned long long v = strtoull(buf, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0 || v > BENCH_MAX_SIZE / scale) return 0;
  *out = (size_t)v * scale;
  return 1;
}

static int add_size(BenchOptions* o, size_t size) {
  if (o->nsizes >= BENCH_MAX_SIZES) return 0;
  o->sizes[o->nsizes++] = size;
  return 1;
}

/* Appends one item ("4K" or "1:4M") to o->sizes; on error writes a message
 * to `err`. */
static int parse_size_item(const char* p, size_t len, BenchOptions* o, char* err, size_t errlen) {
  const char* colon = memchr(p, ':', len);
  size_t lo = 0, hi = 0;
  if (colon == NULL) {
    if (!parse_size(p, len, &lo)) {
      snprintf(err, errlen, "--sizes: '%.*s' is not a size in 1..64M (suffix K or M allowed)",
               (int)len, p);
      return 0;
    }
    hi = lo;
  } else if (!parse_size(p, (size_t)(colon - p), &lo) ||
             !parse_size(colon + 1, len - (size_t)(colon - p) - 1, &hi) || lo > hi) {
    snprintf(err, errlen, "--sizes: '%.*s' is not a range LO:HI with 1 <= LO <= HI <= 64M",
             (int)len, p);
    return 0;
  }
  for (size_t s = lo; s <= hi; s *= 2) {
    if (!add_size(o, s)) {
      snprintf(err, errlen, "--sizes: more than %d sizes", BENCH_MAX_SIZES);
      return 0;
    }
  }
  return 1;
}

/* Fills o->sizes from "8,4K,1:4M". */
static int parse_sizes(const char* text, BenchOptions* o, char* err, size_t errlen) {
  o->nsizes = 0;
  const char* p = text;
  for (;;) {
    const char* comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (!parse_size_item(p, len, o, err, errlen)) return 0;
    if (comma == NULL) return 1;
    p = comma + 1;
  }
}

static int parse_long(const char* text, long lo, long hi, long* out) {
  if (text == NULL || *text == '\0') return 0;
  errno = 0;
  char* end = NULL;
  long v = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

const char* const bench_coll_names[BENCH_COLL_COUNT] = {"barrier",   "bcast",     "reduce",
                                                         "allreduce", "allgather", "alltoall",
                                                         "alltoallv"};

static int parse_colls(const char* text, BenchOptions* o) {
  o->colls = 0;
  if (text == NULL || *text == '\0') return 0;
  for (const char* p = text;;) {
    const char* end = strchr(p, ',');
    const size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    int found = 0;
    for (int c = 0; c < BENCH_COLL_COUNT; ++c) {
      if (strlen(bench_coll_names[c]) == len && strncmp(p, bench_coll_names[c], len) == 0) {
        o->colls |= 1u << c;
        found = 1;
      }
    }
    if (!found) return 0;
    if (end == NULL) return 1;
    p = end + 1;
  }
}

static int parse_threads(const char* text, BenchOptions* o) {
  o->nthreads = 0;
  if (text == NULL || *text == '\0') return 0;
  for (const char* p = text;;) {
    char* end = NULL;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 64 || o->nthreads >= 8) return 0;
    o->threads[o->nthreads++] = (int)v;
    if (*end == '\0') return 1;
    if (*end != ',') return 0;
    p = end + 1;
  }
}

static int parse_seconds(const char* text, double* out) {
  if (text == NULL || *text == '\0') return 0;
  char* end = NULL;
  double v = strtod(text, &end);
  if (*end != '\0' || !(v > 0) || v > 86400) return 0;
  *out = v;
  return 1;
}

static void print_usage(const BenchSpec* spec) {
  printf("usage: %s [options]   (start it with mpirun or lapirun)\n%s\n", spec->name,
         spec->description);
  if (spec->accept & BENCH_OPT_SIZES)
    printf("  --sizes LIST   sizes: 8,4K,1M and ranges LO:HI (default %s)\n", spec->sizes);
  if (spec->accept & BENCH_OPT_ITERS) {
    printf("  --iters N      timed iterations per size (default: scaled by size)\n");
    printf("  --warmup N     untimed iterations first (default: iters/10, at least 2)\n");
  }
  if (spec->accept & BENCH_OPT_WINDOW)
    printf("  --window N     messages in flight per window (default %d)\n", spec->window);
  if (spec->accept & BENCH_OPT_TIMEOUT)
    printf("  --timeout S    seconds before giving up (default %g)\n", spec->timeout_s);
  if (spec->accept & BENCH_OPT_COUNT)
    printf("  --count N      messages per sender (default %ld)\n", spec->count);
  if (spec->accept & BENCH_OPT_THREADS)
    printf("  --threads LIST threads per rank, comma list of 1..64 (default %s)\n", spec->threads);
  if (spec->accept & BENCH_OPT_COLLS)
    printf("  --colls LIST   collectives, comma list of barrier,bcast,reduce,allreduce,allgather,"
           "alltoall, alltoallv (default %s)\n", spec->colls);
  if (spec->accept & BENCH_OPT_BIND)
    printf("  --bind         pin each rank's main thread to one core after MPI_Init\n");
  if (spec->accept & BENCH_OPT_ALLOC_MEM)
    printf("  --alloc-mem    buffers from MPI_Alloc_mem instead of malloc\n");
  if (spec->accept & BENCH_OPT_WIN)
    printf("  --win KIND     window from MPI_Win_allocate (allocate, default) or MPI_Win_create\n"
           "                 on malloc'd memory (create)\n");
  if (spec->accept & BENCH_OPT_PHASES)
    printf("  --phases       also time each phase of a round trip on both ranks (a few clock\n"
           "                 reads per round: slightly slower rounds)\n");
  if (spec->accept & BENCH_OPT_NONBLOCKING)
    printf("  --nonblocking  receive with MPI_Irecv + an MPI_Test loop instead of MPI_Recv\n");
  printf("  --impl NAME    label of the implementation (default: detected)\n");
  printf("  --json         one JSON object per line\n");
}

static int accepts(const BenchSpec* spec, unsigned option) { return (spec->accept & option) != 0; }

/* Needs the argument after argv[*i]; advances *i. */
static const char* take_value(int argc, char** argv, int* i) {
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

static int parse_args(int argc, char** argv, const BenchSpec* spec, BenchOptions* o, char* err,
                      size_t errlen) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = NULL;
    long n = 0;
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = 1;
    } else if (strcmp(a, "--bind") == 0 && accepts(spec, BENCH_OPT_BIND)) {
      o->bind = 1;
    } else if (strcmp(a, "--alloc-mem") == 0 && accepts(spec, BENCH_OPT_ALLOC_MEM)) {
      o->alloc_mem = 1;
    } else if (strcmp(a, "--phases") == 0 && accepts(spec, BENCH_OPT_PHASES)) {
      o->phases = 1;
    } else if (strcmp(a, "--nonblocking") == 0 && accepts(spec, BENCH_OPT_NONBLOCKING)) {
      o->nonblocking = 1;
    } else if (strcmp(a, "--win") == 0 && accepts(spec, BENCH_OPT_WIN)) {
      v = take_value(argc, argv, &i);
      if (v == NULL || (strcmp(v, "allocate") != 0 && strcmp(v, "create") != 0)) {
        snprintf(err, errlen, "--win: needs allocate or create");
        return 0;
      }
      o->win_create = strcmp(v, "create") == 0;
    } else if (strcmp(a, "--impl") == 0) {
      if ((v = take_value(argc, argv, &i)) == NULL || *v == '\0' || strlen(v) >= sizeof o->impl ||
          strpbrk(v, "\"\\ ") != NULL) {
        snprintf(err, errlen, "--impl: needs a short name without quotes or spaces");
        return 0;
      }
      strcpy(o->impl, v);
    } else if (strcmp(a, "--sizes") == 0 && accepts(spec, BENCH_OPT_SIZES)) {
      if ((v = take_value(argc, argv, &i)) == NULL) {
        snprintf(err, errlen, "--sizes: missing value");
        return 0;
      }
      if (!parse_sizes(v, o, err, errlen)) return 0;
    } else if (strcmp(a, "--iters") == 0 && accepts(spec, BENCH_OPT_ITERS)) {
      if (!parse_long(take_value(argc, argv, &i), 1, 100000000, &n)) {
        snprintf(err, errlen, "--iters: needs a whole number in 1..100000000");
        return 0;
      }
      o->iters = n;
    } else if (strcmp(a, "--warmup") == 0 && accepts(spec, BENCH_OPT_ITERS)) {
      if (!parse_long(take_value(argc, argv, &i), 0, 100000000, &n)) {
        snprintf(err, errlen, "--warmup: needs a whole number in 0..100000000");
        return 0;
      }
      o->warmup = n;
    } else if (strcmp(a, "--window") == 0 && accepts(spec, BENCH_OPT_WINDOW)) {
      if (!parse_long(take_value(argc, argv, &i), 1, 4096, &n)) {
        snprintf(err, errlen, "--window: needs a whole number in 1..4096");
        return 0;
      }
      o->window = (int)n;
    } else if (strcmp(a, "--timeout") == 0 && accepts(spec, BENCH_OPT_TIMEOUT)) {
      if (!parse_seconds(take_value(argc, argv, &i), &o->timeout_s)) {
        snprintf(err, errlen, "--timeout: needs seconds > 0 (at most 86400)");
        return 0;
      }
    } else if (strcmp(a, "--colls") == 0 && accepts(spec, BENCH_OPT_COLLS)) {
      if (!parse_colls(take_value(argc, argv, &i), o)) {
        snprintf(err, errlen, "--colls: needs a comma list of barrier, bcast, reduce, allreduce, "
                 "allgather, alltoall, alltoallv");
        return 0;
      }
    } else if (strcmp(a, "--threads") == 0 && accepts(spec, BENCH_OPT_THREADS)) {
      if (!parse_threads(take_value(argc, argv, &i), o)) {
        snprintf(err, errlen, "--threads: needs a comma list of at most 8 numbers in 1..64");
        return 0;
      }
    } else if (strcmp(a, "--count") == 0 && accepts(spec, BENCH_OPT_COUNT)) {
      if (!parse_long(take_value(argc, argv, &i), 1, 1L << 40, &n)) {
        snprintf(err, errlen, "--count: needs a whole number >= 1");
        return 0;
      }
      o->count = n;
    } else {
      snprintf(err, errlen, "%s: unknown option for %s (see --help)", a, spec->name);
      return 0;
    }
  }
  return 1;
}

/* --- init ------------------------------------------------------------ */

static void detect_impl(char* out, size_t len) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  const char* name = "unknown";
  if (MPI_Get_library_version(version, &n) == MPI_SUCCESS) {
    version[n < (int)sizeof version ? n : (int)sizeof version - 1] = '\0';
    if (strstr(version, "Lapis") != NULL) {
      name = "lapis";
    } else if (strstr(version, "Open MPI") != NULL) {
      name = "openmpi";
    } else if (strstr(version, "MPICH") != NULL) {
      name = "mpich";
    }
  }
  snprintf(out, len, "%s", name);
}

/* Pins the calling thread to the (rank % n)-th CPU this process may use.
 * Done after MPI_Init, so threads the library started keep floating. */
static void bind_to_core(int rank) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  int n = CPU_COUNT(&allowed);
  if (n <= 0) return;
  int want = rank % n;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (want-- == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0)
        bench_fail("--bind: sched_setaffinity failed");
      return;
    }
  }
}

int bench_init(int* argc, char*** argv, const BenchSpec* spec, int ranks, BenchOptions* o) {
  g_name = spec->name;
  if (spec->thread_level != 0) {
    int provided = -1;
    bench_check(MPI_Init_thread(argc, argv, spec->thread_level, &provided), "MPI_Init_thread");
    if (provided < spec->thread_level)
      bench_fail("MPI_Init_thread: asked for thread level %d, provided %d", spec->thread_level,
                 provided);
  } else {
    bench_check(MPI_Init(argc, argv), "MPI_Init");
  }
  int size = 0;
  bench_check(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank), "MPI_Comm_rank");
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");

  memset(o, 0, sizeof *o);
  o->warmup = -1;
  o->window = spec->window;
  o->timeout_s = spec->timeout_s;
  o->count = spec->count;
  char err[256] = "";
  int ok = 1;
  if (spec->sizes != NULL) ok = parse_sizes(spec->sizes, o, err, sizeof err);
  if (ok && spec->threads != NULL) ok = parse_threads(spec->threads, o);
  if (ok && spec->colls != NULL) ok = parse_colls(spec->colls, o);
  if (ok) ok = parse_args(*argc, *argv, spec, o, err, sizeof err);
  if (!ok || o->help) {
    if (g_rank == 0) {
      if (!ok) fprintf(stderr, "%s: %s\n", spec->name, err);
      if (o->help) print_usage(spec);
      fflush(stdout);
      fflush(stderr);
    }
    MPI_Finalize();
    exit(ok ? 0 : 2);
  }
  if ((ranks > 0 && size != ranks) || size < 2) {
    if (g_rank == 0) {
      if (ranks > 0) {
        fprintf(stderr, "%s: needs exactly %d ranks, got %d\n", spec->name, ranks, size);
      } else {
        fprintf(stderr, "%s: needs at least 2 ranks, got %d\n", spec->name, size);
      }
    }
    MPI_Finalize();
    exit(1);
  }
  if (o->impl[0] == '\0') detect_impl(o->impl, sizeof o->impl);
  if (o->bind) bind_to_core(g_rank);
  return g_rank;
}

int bench_finish(int status) {
  fflush(stdout);
  bench_check(MPI_Finalize(), "MPI_Finalize");
  return status;
}

/* --- buffers, iterations, labels ------------------------------------ */

static void* g_created_base; /* bench_rma_setup's memory under --win create */

void* bench_rma_setup(const BenchOptions* opts, int rank, MPI_Win* win) {
  const size_t max = bench_max_size(opts) < 8 ? 8 : bench_max_size(opts);
  void* base = NULL;
  if (opts->win_create) {
    base = g_created_base = bench_alloc(opts, max, 0);
    bench_check(MPI_Win_create(base, (MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win),
                "MPI_Win_create");
  } else {
    bench_check(MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, win),
                "MPI_Win_allocate");
  }
  memset(base, 0, max);
  void* buf = bench_alloc(opts, max, 'a' + rank);
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return buf;
}

void bench_rma_free(const BenchOptions* opts, MPI_Win* win) {
  bench_check(MPI_Win_free(win), "MPI_Win_free");
  if (g_created_base != NULL) bench_free(opts, g_created_base);
  g_created_base = NULL;
}

const char* bench_win_name(const BenchOptions* opts) {
  return opts->win_create ? "create" : "allocate";
}

void* bench_alloc(const BenchOptions* opts, size_t bytes, int fill) {
  if (bytes == 0) bytes = 1;
  void* p = NULL;
  if (opts->alloc_mem) {
    bench_check(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p), "MPI_Alloc_mem");
  } else {
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes) != 0) p = NULL;
  }
  if (p == NULL) bench_fail("cannot allocate %zu bytes", bytes);
  memset(p, fill, bytes);
  return p;
}

void bench_free(const BenchOptions* opts, void* buf) {
  if (buf == NULL) return;
  if (opts->alloc_mem) {
    MPI_Free_mem(buf);
  } else {
    free(buf);
  }
}

MPI_Request* bench_alloc_requests(int n) {
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)n);
  if (reqs == NULL) bench_fail("cannot allocate %d requests", n);
  return reqs;
}

/* Round trips: 10000 up to 4 KiB, then fewer so a size costs about the
 * same bytes, never below 20. */
long bench_iters_latency(const BenchOptions* opts, size_t size) {
  if (opts->iters > 0) return opts->iters;
  if (size <= 4096) return 10000;
  long n = (long)(10000.0 * 4096.0 / (double)size);
  return n < 20 ? 20 : n;
}

/* Windows: about 256 MiB per size, 10..1000 windows. */
long bench_iters_window(const BenchOptions* opts, size_t size) {
  if (opts->iters > 0) return opts->iters;
  double per_window = (double)size * (double)opts->window;
  long n = (long)((256.0 * 1024 * 1024) / per_window);
  if (n > 1000) n = 1000;
  return n < 10 ? 10 : n;
}

long bench_warmup(const BenchOptions* opts, long iters) {
  if (opts->warmup >= 0) return opts->warmup;
  long n = iters / 10;
  return n < 2 ? 2 : n;
}

size_t bench_max_size(const BenchOptions* opts) {
  size_t m = 1;
  for (int i = 0; i < opts->nsizes; ++i) {
    if (opts->sizes[i] > m) m = opts->sizes[i];
  }
  return m;
}

const char* bench_size_label(size_t size, char* out) {
  if (size >= (1u << 20) && size % (1u << 20) == 0) {
    sprintf(out, "%zuM", size >> 20);
  } else if (size >= 1024 && size % 1024 == 0) {
    sprintf(out, "%zuK", size >> 10);
  } else {
    sprintf(out, "%zu", size);
  }
  return out;
}

void bench_report_mbps(const BenchOptions* opts, const char* bench, size_t size, long iters,
                       double mbps) {
  if (opts->json) {
    printf(
        "{\"bench\":\"%s\",\"impl\":\"%s\",\"size\":%zu,\"window\":%d,\"iters\":%ld,"
        "\"MBps\":%.6g}\n",
        bench, opts->impl, size, opts->window, iters, mbps);
  } else {
    char label[16];
    printf("%8s %10ld %12.1f\n", bench_size_label(size, label), iters, mbps);
  }
  fflush(stdout);
}

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long bench_status_kib(const char* field) {
  FILE* f = fopen("/proc/self/status", "r");
  if (f == NULL) return -1;
  char line[256];
  size_t flen = strlen(field);
  long kib = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, field, flen) == 0 && line[flen] == ':') {
      kib = strtol(line + flen + 1, NULL, 10);
      break;
    }
  }
  fclose(f);
  return kib;
}

int bench_reset_peak_rss(void) {
  FILE* f = fopen("/proc/self/clear_refs", "w");
  if (f == NULL) return -1;
  int ok = fputs("5", f) >= 0;
  ok = (fclose(f) == 0) && ok;
  return ok ? 0 : -1;
}

/* --- window stream (mpi_bw, mpi_msgrate) ---------------------------- */

void bench_stream_init(int* argc, char*** argv, const BenchSpec* spec, BenchStream* stream) {
  stream->rank = bench_init(argc, argv, spec, 2, &stream->opts);
  stream->buf = bench_alloc(&stream->opts, bench_max_size(&stream->opts), 'a' + stream->rank);
  stream->reqs = bench_alloc_requests(stream->opts.window);
}

/* One window: rank 0 sends, rank 1 receives and acknowledges. */
static void stream_window(const BenchStream* stream, int count) {
  const int window = stream->opts.window;
  int ack = 0;
  if (stream->rank == 0) {
    for (int w = 0; w < window; ++w) {
      bench_check(MPI_Isend(stream->buf, count, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &stream->reqs[w]),
                  "MPI_Isend");
    }
    bench_check(MPI_Waitall(window, stream->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
    bench_check(MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  } else {
    for (int w = 0; w < window; ++w) {
      bench_check(MPI_Irecv(stream->buf, count, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &stream->reqs[w]),
                  "MPI_Irecv");
    }
    bench_check(MPI_Waitall(window, stream->reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
    bench_check(MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD), "MPI_Send");
  }
}

double bench_stream_time(BenchStream* stream, size_t size, long iters) {
  const long warmup = bench_warmup(&stream->opts, iters);
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) start = MPI_Wtime();
    stream_window(stream, (int)size);
  }
  return MPI_Wtime() - start;
}

int bench_stream_finish(BenchStream* stream) {
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  free(stream->reqs);
  bench_free(&stream->opts, stream->buf);
  return bench_finish(0);
}
