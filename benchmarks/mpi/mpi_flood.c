/* Early-arrival flood: every rank but 0 sends --count 8-byte messages
 * (default 1,000,000 each; run with 4 ranks for the 3 senders) to
 * rank 0 with blocking MPI_Send, while rank 0 posts no receive for them
 * until every sender has finished sending. Then rank 0 receives them all
 * (MPI_ANY_SOURCE) and checks that none is lost, none is extra and each
 * sender's messages come in send order. It reports the time to send, the
 * time to drain, and its peak RSS growth (VmHWM, reset at the start where
 * the kernel allows, minus VmRSS at the start) in MiB.
 *
 * "All sent" travels on a duplicate of MPI_COMM_WORLD: on the flood's own
 * communicator it would match only after the whole flood ahead of it
 * (non-overtaking), so receiving it would mean draining the flood first.
 *
 * The drain uses plain MPI_Recv (--nonblocking: MPI_Irecv and a loop of
 * MPI_Test, the way an application that overlaps work would); a lost
 * message would leave it waiting, so
 * an alarm at --timeout seconds ends rank 0 with a message saying how many
 * arrived. Exit status 1 if anything was lost, duplicated or out of order.
 * At least 2 ranks. Plain MPI 3.1: builds with any mpicc. */
#define _POSIX_C_SOURCE 200809L /* sigaction, alarm */

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

enum { kTagFlood = 1, kTagDone = 2 };
static const int kSourceShift = 40; /* payload = source << 40 | index */

typedef struct {
  long expected, received, out_of_order, extra;
} DrainResult;

/* Received so far, for the timeout message (a signal handler may read only
 * a volatile sig_atomic_t; --count is capped so the total fits in it). */
static volatile sig_atomic_t g_received = 0;
static volatile sig_atomic_t g_expected = 0;

/* Formats n in decimal into the end of buf; returns the first digit. */
static char* format_count(long n, char* end) {
  *--end = '\0';
  do {
    *--end = (char)('0' + n % 10);
    n /= 10;
  } while (n > 0);
  return end;
}

/* SIGALRM at --timeout during the drain: a message was lost (or the drain
 * is stuck). Async-signal-safe: write(2) and _exit(2) only. */
static void on_drain_timeout(int signo) {
  (void)signo;
  char a[24], b[24];
  const char* parts[] = {
      "mpi_flood: rank 0: gave up at --timeout: received ", format_count(g_received, a + sizeof a),
      " of ", format_count(g_expected, b + sizeof b), " messages (lost or stuck)\nFAILED\n"};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) {
    ssize_t unused = write(STDERR_FILENO, parts[i], strlen(parts[i]));
    (void)unused;
  }
  _exit(1);
}

/* One flood message from any source, blocking or by testing. */
static void receive_one(uint64_t* payload, int nonblocking, MPI_Status* st) {
  if (!nonblocking) {
    bench_check(MPI_Recv(payload, 1, MPI_UINT64_T, MPI_ANY_SOURCE, kTagFlood, MPI_COMM_WORLD, st),
                "MPI_Recv");
    return;
  }
  MPI_Request req;
  bench_check(MPI_Irecv(payload, 1, MPI_UINT64_T, MPI_ANY_SOURCE, kTagFlood, MPI_COMM_WORLD, &req),
              "MPI_Irecv");
  int flag = 0;
  while (!flag) bench_check(MPI_Test(&req, &flag, st), "MPI_Test");
}

/* Receives the whole flood (MPI_ANY_SOURCE), the way an application would;
 * an alarm turns a lost message into a clear failure instead of a hang. */
static DrainResult drain(int nranks, long expected, double timeout_s, int nonblocking) {
  DrainResult r = {expected, 0, 0, 0};
  long* next = calloc((size_t)nranks, sizeof *next);
  if (next == NULL) bench_fail("cannot allocate %d counters", nranks);
  g_expected = (sig_atomic_t)expected;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_drain_timeout;
  sigaction(SIGALRM, &action, NULL);
  alarm((unsigned)(timeout_s + 0.999));
  for (long k = 0; k < expected; ++k) {
    uint64_t payload = 0;
    MPI_Status st;
    receive_one(&payload, nonblocking, &st);
    g_received = (sig_atomic_t)++r.received;
    const int src = (int)(payload >> kSourceShift);
    const long index = (long)(payload & ((UINT64_C(1) << kSourceShift) - 1));
    if (src != st.MPI_SOURCE || src <= 0 || src >= nranks || index != next[src]) {
      ++r.out_of_order;
      if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < nranks) next[st.MPI_SOURCE] = index + 1;
      continue;
    }
    ++next[src];
  }
  /* Everything sent has been accounted for: anything still there is extra. */
  for (;;) {
    int flag = 0;
    bench_check(MPI_Iprobe(MPI_ANY_SOURCE, kTagFlood, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                "MPI_Iprobe");
    if (!flag) break;
    uint64_t payload = 0;
    bench_check(MPI_Recv(&payload, 1, MPI_UINT64_T, MPI_ANY_SOURCE, kTagFlood, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
    ++r.extra;
  }
  alarm(0);
  free(next);
  return r;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_flood",
      .description =
          "8-byte messages from every rank > 0 to rank 0, which receives only after "
          "all were sent;\nchecks nothing is lost or reordered, reports peak RSS growth.",
      .accept = BENCH_OPT_COUNT | BENCH_OPT_TIMEOUT | BENCH_OPT_NONBLOCKING,
      .timeout_s = 600,
      .count = 1000000,
  };
  BenchOptions o;
  const int rank = bench_init(&argc, &argv, &spec, 0, &o);
  int nranks = 0;
  bench_check(MPI_Comm_size(MPI_COMM_WORLD, &nranks), "MPI_Comm_size");
  if ((double)o.count * (nranks - 1) > 2147483647.0) {
    bench_fail("--count %ld x %d senders is more than 2^31-1 messages", o.count, nranks - 1);
  }
  MPI_Comm ctrl;
  bench_check(MPI_Comm_dup(MPI_COMM_WORLD, &ctrl), "MPI_Comm_dup");

  const int hwm_reset = rank == 0 && bench_reset_peak_rss() == 0;
  const long rss_before = rank == 0 ? bench_status_kib("VmRSS") : 0;
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double start = MPI_Wtime();
  int status = 0;
  if (rank != 0) {
    for (long i = 0; i < o.count; ++i) {
      const uint64_t payload = ((uint64_t)rank << kSourceShift) | (uint64_t)i;
      bench_check(MPI_Send(&payload, 1, MPI_UINT64_T, 0, kTagFlood, MPI_COMM_WORLD), "MPI_Send");
    }
    bench_check(MPI_Send(&o.count, 1, MPI_LONG, 0, kTagDone, ctrl), "MPI_Send(all sent)");
  } else {
    long expected = 0;
    for (int s = 1; s < nranks; ++s) {
      long sent = 0;
      bench_check(MPI_Recv(&sent, 1, MPI_LONG, s, kTagDone, ctrl, MPI_STATUS_IGNORE),
                  "MPI_Recv(all sent)");
      expected += sent;
    }
    const double sent_s = MPI_Wtime() - start;
    const DrainResult r = drain(nranks, expected, o.timeout_s, o.nonblocking);
    const double total_s = MPI_Wtime() - start;
    const long hwm = bench_status_kib("VmHWM");
    const double growth_mib = (double)(hwm - rss_before) / 1024.0;
    const long lost = r.expected - r.received;
    const int ok = lost == 0 && r.out_of_order == 0 && r.extra == 0;
    status = ok ? 0 : 1;
    if (o.json) {
      printf(
          "{\"bench\":\"mpi_flood\",\"impl\":\"%s\",\"senders\":%d,\"count\":%ld,\"size\":8,"
          "\"total\":%ld,\"received\":%ld,\"lost\":%ld,\"out_of_order\":%ld,\"extra\":%ld,"
          "\"send_s\":%.3f,\"total_s\":%.3f,\"rss_before_mib\":%.1f,\"rss_growth_mib\":%.1f,"
          "\"hwm_reset\":%d,\"drain\":\"%s\",\"ok\":%d}\n",
          o.impl, nranks - 1, o.count, r.expected, r.received, lost, r.out_of_order, r.extra,
          sent_s, total_s, (double)rss_before / 1024.0, growth_mib, hwm_reset,
          o.nonblocking ? "irecv_test" : "recv", ok);
    } else {
      printf(
          "# %s (%s): %d senders x %ld messages of 8 bytes, received after all were sent\n"
          "total %ld, received %ld, lost %ld, out of order %ld, extra %ld\n"
          "all sent after %.3f s, all received after %.3f s (%.2f M msgs/s overall)\n"
          "receiver RSS %.1f MiB before, peak growth %.1f MiB%s\n%s\n",
          spec.name, o.impl, nranks - 1, o.count, r.expected, r.received, lost, r.out_of_order,
          r.extra, sent_s, total_s, (double)r.received / total_s / 1e6, (double)rss_before / 1024.0,
          growth_mib, hwm_reset ? "" : " (VmHWM could not be reset: includes start-up)",
          ok ? "OK" : "FAILED");
    }
    fflush(stdout);
  }
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  bench_check(MPI_Comm_free(&ctrl), "MPI_Comm_free");
  return bench_finish(status);
}
