/* The MPI-LAPI paper's interrupt-mode latency test. Rank 1 posts MPI_Irecv
 * and then watches the receive buffer WITHOUT calling MPI (volatile reads of
 * its first and last byte, which the sender sets to a value that changes
 * every round) until the data is there; only then does it complete the
 * request (MPI_Wait, which finds it done), post the next MPI_Irecv and send
 * the reply. Rank 0 sends and receives the reply with ordinary blocking
 * calls. One-way latency = round trip / 2.
 *
 * An MPI that moves data only inside MPI calls never fills the buffer: after
 * --timeout seconds of watching, rank 1 gives up, completes the receive with
 * MPI_Wait and answers with tag 2 ("no progress"); both ranks then move on
 * to the next size, which is reported as progress 0.
 *
 * Lapis progresses without calls only in interrupt mode, so unless
 * LAPIS_MODE is already set this program sets LAPIS_MODE=interrupt before
 * MPI_Init (other MPIs ignore it). Exactly 2 ranks. Plain MPI 3.1 + POSIX.
 *
 * --phases also says where a round trip's time goes, as medians: both
 * ranks read CLOCK_MONOTONIC (one clock for all processes of a host) at
 * the steps of each round, and rank 1 sends its readings to rank 0 after
 * the size's last round. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer builds only (Lapis' --config=tsan): the library's progress
 * thread writes the message into the buffer that this program watches with
 * plain loads -- the situation under test; the ordering comes from the data
 * itself, which TSan cannot see. */
const char* __tsan_default_suppressions(void);
const char* __tsan_default_suppressions(void) { return "race:watch_buffer_without_mpi\n"; }
#endif

enum { kTagData = 1, kTagReply = 1, kTagNoProgress = 2, kTagPhases = 3 };

/* --phases: the clock readings of a round. Rank 1: when it saw the data,
 * when MPI_Wait returned, when the next MPI_Irecv returned (its reply's
 * MPI_Send begins), when that MPI_Send returned. Rank 0: when its MPI_Send
 * began and returned, when its MPI_Recv of the reply returned. */
enum { kSeen, kWaited, kPosted, kReplied, kReceiverStamps };
enum { kSendBegan, kSent, kBack, kSenderStamps };

/* The marker of round i: never 0 (the value a fresh buffer holds), and
 * different from the previous round's. */
static unsigned char marker(long i) { return (unsigned char)(i % 251 + 1); }

/* Spins on the first and last byte of buf until both hold `want`; 0 if the
 * deadline passed first. Reads the clock only every 4096 spins. */
static int watch_buffer_without_mpi(const void* buf, size_t size, unsigned char want,
                                    double timeout_s) {
  const volatile unsigned char* p = (const volatile unsigned char*)buf;
  const double deadline = bench_now() + timeout_s;
  for (unsigned long spins = 1;; ++spins) {
    if (p[0] == want && p[size - 1] == want) return 1;
    if (spins % 4096 == 0 && bench_now() > deadline) return 0;
  }
}

/* Where a round trip goes (--phases), medians in us: rank 0's MPI_Send;
 * from its start to rank 1 seeing the data; rank 1's MPI_Wait, its next
 * MPI_Irecv and its reply's MPI_Send; from that MPI_Send's start to rank
 * 0's MPI_Recv returning. */
typedef struct {
  double send_us, seen_us, wait_us, irecv_us, reply_send_us, reply_us;
} Phases;

typedef struct {
  long completed; /* rounds finished before a timeout (all of them if none) */
  int progress;   /* 1: every round finished without MPI calls at rank 1 */
  double mean_us, p50_us, p90_us, p99_us, max_us;
  int phased; /* phases below measured */
  Phases phases;
} Result;

static int compare_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Rank 1: the watching receiver; stops after the first round that timed
 * out. With `stamps` (kReceiverStamps per round) it reads the clock at each
 * step and, when every round arrived, sends the readings to rank 0. */
static void receiver(void* rbuf, void* sbuf, size_t size, long rounds, double timeout_s,
                     double* stamps) {
  const int count = (int)size;
  MPI_Request req;
  bench_check(MPI_Irecv(rbuf, count, MPI_BYTE, 0, kTagData, MPI_COMM_WORLD, &req), "MPI_Irecv");
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); /* receive posted before round 0 */
  for (long i = 0; i < rounds; ++i) {
    double* t = stamps != NULL ? stamps + i * kReceiverStamps : NULL;
    const int arrived = watch_buffer_without_mpi(rbuf, size, marker(i), timeout_s);
    if (t) t[kSeen] = bench_now();
    bench_check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    if (t) t[kWaited] = bench_now();
    const int last = !arrived || i + 1 == rounds;
    if (!last) {
      bench_check(MPI_Irecv(rbuf, count, MPI_BYTE, 0, kTagData, MPI_COMM_WORLD, &req), "MPI_Irecv");
    }
    if (t) t[kPosted] = bench_now();
    bench_check(
        MPI_Send(sbuf, count, MPI_BYTE, 0, arrived ? kTagReply : kTagNoProgress, MPI_COMM_WORLD),
        "MPI_Send");
    if (t) t[kReplied] = bench_now();
    if (!arrived) return;
  }
  if (stamps != NULL) {
    bench_check(MPI_Send(stamps, (int)(rounds * kReceiverStamps), MPI_DOUBLE, 0, kTagPhases,
                         MPI_COMM_WORLD),
                "MPI_Send");
  }
}

/* A reading: record `at` of `stride` doubles per round, reading `which`. */
typedef struct {
  const double* at;
  int stride, which;
} Reading;

/* The median over rounds [from, from + n) of b - a, in us (tmp: room for n). */
static double median_gap(Reading a, Reading b, long from, long n, double* tmp) {
  for (long i = from; i < from + n; ++i) {
    tmp[i - from] = b.at[i * b.stride + b.which] - a.at[i * a.stride + a.which];
  }
  qsort(tmp, (size_t)n, sizeof *tmp, compare_double);
  return tmp[n / 2] * 1e6;
}

static Phases phases_of(const double* mine, const double* theirs, long warmup, long iters,
                        double* tmp) {
  const Reading began = {mine, kSenderStamps, kSendBegan}, sent = {mine, kSenderStamps, kSent},
                back = {mine, kSenderStamps, kBack}, seen = {theirs, kReceiverStamps, kSeen},
                waited = {theirs, kReceiverStamps, kWaited},
                posted = {theirs, kReceiverStamps, kPosted},
                replied = {theirs, kReceiverStamps, kReplied};
  Phases p;
  p.send_us = median_gap(began, sent, warmup, iters, tmp);
  p.seen_us = median_gap(began, seen, warmup, iters, tmp);
  p.wait_us = median_gap(seen, waited, warmup, iters, tmp);
  p.irecv_us = median_gap(waited, posted, warmup, iters, tmp);
  p.reply_send_us = median_gap(posted, replied, warmup, iters, tmp);
  p.reply_us = median_gap(posted, back, warmup, iters, tmp);
  return p;
}

/* Rank 0: sends round i with its marker, times each round trip. With
 * `mine` (kSenderStamps per round), `theirs` (rank 1's readings) and
 * `tmp` (iters doubles) it also times the phases. */
static Result sender(void* sbuf, void* rbuf, size_t size, long warmup, long iters, double* trips,
                     double* mine, double* theirs, double* tmp) {
  const int count = (int)size;
  unsigned char* s = sbuf;
  Result r = {0, 1, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  for (long i = 0; i < warmup + iters; ++i) {
    double* t = mine != NULL ? mine + i * kSenderStamps : NULL;
    s[0] = s[size - 1] = marker(i);
    const double t0 = MPI_Wtime();
    if (t) t[kSendBegan] = bench_now();
    bench_check(MPI_Send(sbuf, count, MPI_BYTE, 1, kTagData, MPI_COMM_WORLD), "MPI_Send");
    if (t) t[kSent] = bench_now();
    MPI_Status st;
    bench_check(MPI_Recv(rbuf, count, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Recv");
    if (t) t[kBack] = bench_now();
    if (st.MPI_TAG == kTagNoProgress) {
      r.progress = 0;
      r.completed = i;
      return r;
    }
    if (i >= warmup) trips[i - warmup] = MPI_Wtime() - t0;
  }
  r.completed = warmup + iters;
  if (mine != NULL) {
    bench_check(MPI_Recv(theirs, (int)((warmup + iters) * kReceiverStamps), MPI_DOUBLE, 1,
                         kTagPhases, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv");
    r.phased = 1;
    r.phases = phases_of(mine, theirs, warmup, iters, tmp);
  }
  double sum = 0;
  for (long i = 0; i < iters; ++i) sum += trips[i];
  qsort(trips, (size_t)iters, sizeof *trips, compare_double);
  r.mean_us = sum / (double)iters / 2 * 1e6;
  r.p50_us = trips[iters / 2] / 2 * 1e6;
  /* The tail apart from the median: wake-ups and preemptions land there. */
  r.p90_us = trips[iters * 9 / 10] / 2 * 1e6;
  r.p99_us = trips[iters * 99 / 100] / 2 * 1e6;
  r.max_us = trips[iters - 1] / 2 * 1e6;
  return r;
}

static void report(const BenchOptions* o, size_t size, long iters, const Result* r) {
  if (o->json) {
    if (r->progress) {
      printf(
          "{\"bench\":\"mpi_interrupt_latency\",\"impl\":\"%s\",\"size\":%zu,\"iters\":%ld,"
          "\"progress\":1,\"us\":%.4f,\"p50_us\":%.4f,\"p90_us\":%.4f,\"p99_us\":%.4f,"
          "\"max_us\":%.4f",
          o->impl, size, iters, r->mean_us, r->p50_us, r->p90_us, r->p99_us, r->max_us);
      const Phases* p = &r->phases;
      if (r->phased) {
        printf(",\"send_us\":%.4f,\"seen_us\":%.4f,\"wait_us\":%.4f,\"irecv_us\":%.4f,"
               "\"reply_send_us\":%.4f,\"reply_us\":%.4f",
               p->send_us, p->seen_us, p->wait_us, p->irecv_us, p->reply_send_us, p->reply_us);
      }
      printf("}\n");
    } else {
      printf(
          "{\"bench\":\"mpi_interrupt_latency\",\"impl\":\"%s\",\"size\":%zu,\"iters\":%ld,"
          "\"progress\":0,\"completed\":%ld,\"timeout_s\":%g}\n",
          o->impl, size, iters, r->completed, o->timeout_s);
    }
  } else {
    char label[16];
    if (r->progress) {
      printf("%8s %8ld %12.3f %12.3f %12.3f %12.3f %12.3f\n", bench_size_label(size, label), iters,
             r->mean_us, r->p50_us, r->p90_us, r->p99_us, r->max_us);
      const Phases* p = &r->phases;
      if (r->phased) {
        printf("#   medians (us): rank 0's send %.3f; the data seen %.3f after it began; rank 1's "
               "wait %.3f, next irecv %.3f, reply send %.3f; the reply back %.3f after it began\n",
               p->send_us, p->seen_us, p->wait_us, p->irecv_us, p->reply_send_us, p->reply_us);
      }
    } else {
      printf(
          "%8s %8ld   no progress: the data did not arrive within %g s without MPI calls "
          "(after %ld rounds)\n",
          bench_size_label(size, label), iters, o->timeout_s, r->completed);
    }
  }
  fflush(stdout);
}

int main(int argc, char** argv) {
  setenv("LAPIS_MODE", "interrupt", /*overwrite=*/0);
  const BenchSpec spec = {
      .name = "mpi_interrupt_latency",
      .description =
          "Interrupt-mode latency: the receiver watches its MPI_Irecv buffer without calling MPI.",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_TIMEOUT | BENCH_OPT_BIND |
                BENCH_OPT_ALLOC_MEM | BENCH_OPT_PHASES,
      .sizes = "8,1K,16K,64K,1M",
      .timeout_s = 2.0,
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 2, &o);
  const size_t max = bench_max_size(&o);
  void* sbuf = bench_alloc(&o, max, 0);
  void* rbuf = bench_alloc(&o, max, 0);

  if (rank == 0 && !o.json) {
    printf(
        "# %s (%s): one-way latency in us, the receiver polls its buffer, not MPI%s%s%s\n"
        "%8s %8s %12s %12s %12s %12s %12s\n",
        spec.name, o.impl, strcmp(o.impl, "lapis") == 0 ? " (LAPIS_MODE=" : "",
        strcmp(o.impl, "lapis") == 0 ? getenv("LAPIS_MODE") : "",
        strcmp(o.impl, "lapis") == 0 ? ")" : "", "size", "iters", "mean_us", "p50_us", "p90_us",
        "p99_us", "max_us");
  }
  for (int s = 0; s < o.nsizes; ++s) {
    const size_t size = o.sizes[s];
    /* As many round trips as the polling test, and at least 1000: the mean
     * of a few dozen is hostage to one preemption of the watching rank (at
     * 64 KiB, 63 round trips of ~13 us, one of 300 us added 5 us to it). */
    const long scaled = bench_iters_latency(&o, size);
    const long iters = o.iters > 0 ? o.iters : scaled < 1000 ? 1000 : scaled;
    const long warmup = bench_warmup(&o, iters);
    bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    memset(rbuf, 0, size);
    const long rounds = warmup + iters;
    if (rank == 1) {
      double* stamps = o.phases ? malloc(sizeof(double) * kReceiverStamps * (size_t)rounds) : NULL;
      if (o.phases && stamps == NULL) bench_fail("cannot allocate %ld rounds' readings", rounds);
      receiver(rbuf, sbuf, size, rounds, o.timeout_s, stamps);
      free(stamps);
    } else {
      double* trips = malloc(sizeof(double) * (size_t)iters);
      double *mine = NULL, *theirs = NULL, *tmp = NULL;
      if (o.phases) {
        mine = malloc(sizeof(double) * kSenderStamps * (size_t)rounds);
        theirs = malloc(sizeof(double) * kReceiverStamps * (size_t)rounds);
        tmp = malloc(sizeof(double) * (size_t)iters);
      }
      if (trips == NULL || (o.phases && (mine == NULL || theirs == NULL || tmp == NULL)))
        bench_fail("cannot allocate %ld rounds' timings", rounds);
      const Result r = sender(sbuf, rbuf, size, warmup, iters, trips, mine, theirs, tmp);
      free(trips);
      free(mine);
      free(theirs);
      free(tmp);
      report(&o, size, iters, &r);
    }
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_free(&o, sbuf);
  bench_free(&o, rbuf);
  return bench_finish(0);
}
