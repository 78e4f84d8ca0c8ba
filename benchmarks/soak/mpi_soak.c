/* Soak: mixed point-to-point traffic for a fixed time, every byte checked.
 *
 *   mpi_soak [--seconds S] [--max-size BYTES] [--seed N] [--json]
 *
 * Rounds until --seconds have passed (rank 0 decides, tells the others).
 * In round r every rank draws the same plan from (seed, r): a partner
 * distance k, so rank i exchanges with rank i ^ k (pairs: the lower rank
 * sends first, so even synchronous and rendezvous sends cannot deadlock;
 * ranks whose partner does not exist sit the round out), and a number of
 * messages each way. Each message has a random size from 0 B to
 * --max-size (log-uniform, so small and large both occur), a random send
 * mode (standard, synchronous, buffered, ready, nonblocking standard) and a
 * random way to be received (wildcard MPI_Recv, MPI_Probe + MPI_Recv,
 * MPI_Mprobe + MPI_Mrecv, MPI_Irecv + MPI_Test loop). Ready sends are made
 * safe by a zero-byte "posted" message from the receiver. Every round also
 * posts and cancels a receive nobody matches. The payload is a function of
 * (sender, round, message, byte), so the receiver checks every byte.
 *
 * Memory: VmRSS after the first 10% of the time (warm-up) and at the end;
 * open file descriptors likewise. Rank 0 prints one line per rank (JSON with
 * --json) and a total; exit status 1 on any error (wrong byte, wrong size,
 * wrong source or tag, a cancel that did not cancel, an MPI error).
 * Plain MPI 3.1 point-to-point: builds with any mpicc. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kTagPosted = 1, kTagStop = 3, kTagStats = 4, kTagNever = 5 };
/* Data tags carry the round (mod 4096), so a wildcard receive can never
 * take a message of a neighbouring round. */
static int data_tag(long round) { return 16 + (int)(round % 4096); }
enum { kModes = 5, kRecvWays = 4, kMaxPerRound = 8 };

typedef struct {
  long long messages, bytes, errors, cancels;
  long rss_warm_kib, rss_end_kib, fds_warm, fds_end;
} Stats;

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static unsigned char pattern(int src, long round, int msg, size_t i) {
  return (unsigned char)(mix(((uint64_t)src << 48) ^ ((uint64_t)round << 8) ^ (uint64_t)msg) + i * 131);
}

static long status_kib(const char* field) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  size_t n = strlen(field);
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, field, n) == 0 && line[n] == ':') v = strtol(line + n + 1, NULL, 10);
  }
  if (f != NULL) fclose(f);
  return v;
}

static long open_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  long n = 0;
  if (d == NULL) return -1;
  while (readdir(d) != NULL) ++n;
  closedir(d);
  return n - 3; /* ".", "..", and the directory itself */
}

/* The plan of one round, the same on every rank. */
typedef struct {
  int distance, count;
  size_t size[kMaxPerRound];
  int mode[kMaxPerRound], way[kMaxPerRound];
} Plan;

static Plan make_plan(uint64_t seed, long round, int n, size_t max_size) {
  Plan p;
  uint64_t r = mix(seed ^ (uint64_t)round * 0x100000001b3ULL);
  int pow2 = 1;
  while (pow2 < n) pow2 *= 2;
  p.distance = pow2 > 1 ? 1 + (int)(r % (uint64_t)(pow2 - 1)) : 0;
  p.count = 1 + (int)(mix(r + 1) % kMaxPerRound);
  for (int m = 0; m < p.count; ++m) {
    uint64_t x = mix(r + 100 + (uint64_t)m);
    /* log-uniform size: 2^(0..log2 max) scaled, plus exact 0 now and then */
    int bits = 0;
    while (((size_t)1 << bits) < max_size) ++bits;
    size_t size = (x % 16 == 0) ? 0 : (size_t)(mix(x) % (((size_t)1 << (x >> 8) % (bits + 1)) + 1));
    p.size[m] = size > max_size ? max_size : size;
    p.mode[m] = (int)((x >> 20) % kModes);
    p.way[m] = (int)((x >> 30) % kRecvWays);
  }
  return p;
}

static void fill(unsigned char* buf, size_t size, int src, long round, int msg) {
  for (size_t i = 0; i < size; ++i) buf[i] = pattern(src, round, msg, i);
}

static long long check_bytes(const unsigned char* buf, size_t size, int src, long round, int msg) {
  for (size_t i = 0; i < size; ++i) {
    if (buf[i] != pattern(src, round, msg, i)) {
      fprintf(stderr, "soak: round %ld message %d from %d: byte %zu wrong\n", round, msg, src, i);
      return 1;
    }
  }
  return 0;
}

static int g_rank;

static void mpi_ok(int rc, const char* what, Stats* s) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fprintf(stderr, "soak: rank %d: %s: %s\n", g_rank, what, text);
  ++s->errors;
}

/* Sends message m of the round to `to` in its planned mode. */
static void send_one(const Plan* p, int m, int to, long round, unsigned char* buf, Stats* s) {
  const int size = (int)p->size[m], kTagData = data_tag(round);
  fill(buf, (size_t)size, g_rank, round, m);
  MPI_Request r;
  switch (p->mode[m]) {
    case 0: mpi_ok(MPI_Send(buf, size, MPI_BYTE, to, kTagData, MPI_COMM_WORLD), "MPI_Send", s); break;
    case 1: mpi_ok(MPI_Ssend(buf, size, MPI_BYTE, to, kTagData, MPI_COMM_WORLD), "MPI_Ssend", s); break;
    case 2: mpi_ok(MPI_Bsend(buf, size, MPI_BYTE, to, kTagData, MPI_COMM_WORLD), "MPI_Bsend", s); break;
    case 3: /* ready: only once the receiver says its receive is posted */
      mpi_ok(MPI_Recv(NULL, 0, MPI_BYTE, to, kTagPosted, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "posted", s);
      mpi_ok(MPI_Rsend(buf, size, MPI_BYTE, to, kTagData, MPI_COMM_WORLD), "MPI_Rsend", s);
      break;
    default:
      mpi_ok(MPI_Isend(buf, size, MPI_BYTE, to, kTagData, MPI_COMM_WORLD, &r), "MPI_Isend", s);
      mpi_ok(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait(isend)", s);
  }
}

/* Receives message m of the round from `from`, the planned way, and checks it. */
static void recv_one(const Plan* p, int m, int from, long round, unsigned char* buf, size_t cap,
                     Stats* s) {
  MPI_Status st;
  MPI_Request r;
  MPI_Message msg;
  int flag = 0, count = -1;
  const int kTagData = data_tag(round);
  if (p->mode[m] == 3) { /* ready send: post first, then say so */
    mpi_ok(MPI_Irecv(buf, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, kTagData, MPI_COMM_WORLD, &r), "Irecv", s);
    mpi_ok(MPI_Send(NULL, 0, MPI_BYTE, from, kTagPosted, MPI_COMM_WORLD), "send posted", s);
    mpi_ok(MPI_Wait(&r, &st), "MPI_Wait(ready)", s);
  } else {
    switch (p->way[m]) {
      case 0:
        mpi_ok(MPI_Recv(buf, (int)cap, MPI_BYTE, MPI_ANY_SOURCE, kTagData, MPI_COMM_WORLD, &st), "Recv", s);
        break;
      case 1:
        mpi_ok(MPI_Probe(MPI_ANY_SOURCE, kTagData, MPI_COMM_WORLD, &st), "Probe", s);
        mpi_ok(MPI_Get_count(&st, MPI_BYTE, &count), "Get_count", s);
        if (count != (int)p->size[m]) ++s->errors;
        mpi_ok(MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, kTagData, MPI_COMM_WORLD, &st), "Recv", s);
        break;
      case 2:
        mpi_ok(MPI_Mprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st), "Mprobe", s);
        mpi_ok(MPI_Mrecv(buf, (int)cap, MPI_BYTE, &msg, &st), "Mrecv", s);
        break;
      default:
        mpi_ok(MPI_Irecv(buf, (int)cap, MPI_BYTE, from, kTagData, MPI_COMM_WORLD, &r), "Irecv", s);
        while (!flag) mpi_ok(MPI_Test(&r, &flag, &st), "Test", s);
    }
  }
  mpi_ok(MPI_Get_count(&st, MPI_BYTE, &count), "Get_count", s);
  if (st.MPI_SOURCE != from || st.MPI_TAG != kTagData || count != (int)p->size[m]) {
    fprintf(stderr, "soak: rank %d round %ld message %d: source %d tag %d count %d, expected %d %d %zu\n",
            g_rank, round, m, st.MPI_SOURCE, st.MPI_TAG, count, from, kTagData, p->size[m]);
    ++s->errors;
    return;
  }
  s->errors += check_bytes(buf, (size_t)count, from, round, m);
  s->messages += 1;
  s->bytes += count;
}

/* A receive nobody will match, cancelled: it must report cancelled. */
static void cancel_one(Stats* s) {
  MPI_Request r;
  MPI_Status st;
  int cancelled = 0, v;
  mpi_ok(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, kTagNever, MPI_COMM_WORLD, &r), "Irecv(never)", s);
  mpi_ok(MPI_Cancel(&r), "Cancel", s);
  mpi_ok(MPI_Wait(&r, &st), "Wait(cancelled)", s);
  mpi_ok(MPI_Test_cancelled(&st, &cancelled), "Test_cancelled", s);
  if (!cancelled) ++s->errors;
  ++s->cancels;
}

int main(int argc, char** argv) {
  double seconds = 600;
  size_t max_size = (size_t)4 << 20;
  uint64_t seed = 1;
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = atof(argv[++i]);
    else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) max_size = (size_t)atol(argv[++i]);
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = (uint64_t)atoll(argv[++i]);
    else if (strcmp(argv[i], "--json") == 0) json = 1;
    else {
      fprintf(stderr, "usage: mpi_soak [--seconds S] [--max-size BYTES] [--seed N] [--json]\n");
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  int n;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  unsigned char* out = malloc(max_size + 1);
  unsigned char* in = malloc(max_size + 1);
  /* Buffered sends: room for a round's worth of the largest messages. */
  int attach_size = (int)((max_size + MPI_BSEND_OVERHEAD) * 2);
  void* attached = malloc((size_t)attach_size);
  MPI_Buffer_attach(attached, attach_size);
  Stats s;
  memset(&s, 0, sizeof s);
  const double start = MPI_Wtime();
  int warm = 0, go = 1;
  long round = 0;
  for (; go; ++round) {
    const Plan p = make_plan(seed, round, n, max_size);
    const int partner = g_rank ^ p.distance;
    for (int m = 0; m < p.count && partner < n && partner != g_rank; ++m) {
      if (g_rank < partner) {
        send_one(&p, m, partner, round, out, &s);
        recv_one(&p, m, partner, round, in, max_size, &s);
      } else {
        recv_one(&p, m, partner, round, in, max_size, &s);
        send_one(&p, m, partner, round, out, &s);
      }
    }
    cancel_one(&s);
    if (!warm && MPI_Wtime() - start > seconds / 10) {
      warm = 1;
      s.rss_warm_kib = status_kib("VmRSS");
      s.fds_warm = open_fds();
    }
    /* Rank 0 says whether another round follows. */
    if (g_rank == 0) {
      go = MPI_Wtime() - start < seconds;
      for (int r = 1; r < n; ++r) mpi_ok(MPI_Send(&go, 1, MPI_INT, r, kTagStop, MPI_COMM_WORLD), "send go", &s);
    } else {
      mpi_ok(MPI_Recv(&go, 1, MPI_INT, 0, kTagStop, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "recv go", &s);
    }
  }
  if (!warm) s.rss_warm_kib = status_kib("VmRSS"), s.fds_warm = open_fds();
  s.rss_end_kib = status_kib("VmRSS");
  s.fds_end = open_fds();
  int bsize = 0;
  void* detached = NULL;
  MPI_Buffer_detach(&detached, &bsize);
  free(attached);
  const double elapsed = MPI_Wtime() - start;
  long long total_errors = 0, total_messages = 0, total_bytes = 0;
  for (int r = 0; r < n; ++r) {
    Stats t = s;
    if (r != 0 && g_rank == r) mpi_ok(MPI_Send(&s, sizeof s, MPI_BYTE, 0, kTagStats, MPI_COMM_WORLD), "stats", &s);
    if (g_rank != 0) continue;
    if (r != 0) MPI_Recv(&t, sizeof t, MPI_BYTE, r, kTagStats, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    total_errors += t.errors;
    total_messages += t.messages;
    total_bytes += t.bytes;
    if (json) {
      printf("{\"bench\":\"soak\",\"rank\":%d,\"rounds\":%ld,\"messages\":%lld,\"bytes\":%lld,\"errors\":%lld,"
             "\"cancels\":%lld,\"rss_warm_kib\":%ld,\"rss_end_kib\":%ld,\"rss_growth_kib\":%ld,"
             "\"fds_warm\":%ld,\"fds_end\":%ld}\n",
             r, round, t.messages, t.bytes, t.errors, t.cancels, t.rss_warm_kib, t.rss_end_kib,
             t.rss_end_kib - t.rss_warm_kib, t.fds_warm, t.fds_end);
    } else {
      printf("rank %d: %lld messages, %lld bytes, %lld errors, %lld cancels; RSS %ld -> %ld KiB "
             "(growth %ld KiB after warm-up); fds %ld -> %ld\n",
             r, t.messages, t.bytes, t.errors, t.cancels, t.rss_warm_kib, t.rss_end_kib,
             t.rss_end_kib - t.rss_warm_kib, t.fds_warm, t.fds_end);
    }
  }
  if (g_rank == 0) {
    printf("soak: %d ranks, %.1f s, %ld rounds, %lld messages, %lld bytes (%.1f MB/s), %lld errors\n", n,
           elapsed, round, total_messages, total_bytes, total_bytes / elapsed / 1e6, total_errors);
  }
  free(out);
  free(in);
  MPI_Finalize();
  return g_rank == 0 && total_errors != 0 ? 1 : (s.errors != 0 ? 1 : 0);
}
