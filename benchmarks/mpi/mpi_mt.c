/* Multi-threaded latency and message rate under MPI_THREAD_MULTIPLE, 2 ranks,
 * T threads per rank (--threads, default 1,2):
 *  - latency (osu_latency_mt pattern): thread t of rank 0 ping-pongs with
 *    thread t of rank 1 on tag t (MPI_Send / MPI_Recv), all pairs at once;
 *    one-way latency = round trip / 2, averaged over the threads;
 *  - message rate: thread t of rank 0 streams windows of `window` MPI_Isend
 *    to thread t of rank 1 (MPI_Irecv window, then a 4-byte acknowledgement),
 *    all pairs at once; per-thread rate = messages / that thread's time,
 *    reported as the mean over threads, with the sum beside it.
 * Plain MPI 3.1 + pthreads: builds with any mpicc (-pthread). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

enum { kMaxThreads = 64, kAckTagBase = 1000 };

typedef struct {
  const BenchOptions* o;
  int rank, thread;
  size_t size;
  long iters, warmup;
  int rate; /* 0: latency, 1: message rate */
  pthread_barrier_t* start;
  double seconds;
} Job;

static void ping_pong(Job* j, char* buf, long n) {
  const int peer = 1 - j->rank;
  for (long i = 0; i < n; ++i) {
    if (j->rank == 0) {
      bench_check(MPI_Send(buf, (int)j->size, MPI_BYTE, peer, j->thread, MPI_COMM_WORLD), "MPI_Send");
      bench_check(MPI_Recv(buf, (int)j->size, MPI_BYTE, peer, j->thread, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "MPI_Recv");
    } else {
      bench_check(MPI_Recv(buf, (int)j->size, MPI_BYTE, peer, j->thread, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "MPI_Recv");
      bench_check(MPI_Send(buf, (int)j->size, MPI_BYTE, peer, j->thread, MPI_COMM_WORLD), "MPI_Send");
    }
  }
}

static void windows(Job* j, char* buf, MPI_Request* reqs, long n) {
  const int peer = 1 - j->rank, w = j->o->window;
  int ack = 0;
  for (long i = 0; i < n; ++i) {
    if (j->rank == 0) {
      for (int k = 0; k < w; ++k)
        bench_check(MPI_Isend(buf, (int)j->size, MPI_BYTE, peer, j->thread, MPI_COMM_WORLD, &reqs[k]),
                    "MPI_Isend");
      bench_check(MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
      bench_check(MPI_Recv(&ack, 1, MPI_INT, peer, kAckTagBase + j->thread, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "MPI_Recv");
    } else {
      for (int k = 0; k < w; ++k)
        bench_check(MPI_Irecv(buf, (int)j->size, MPI_BYTE, peer, j->thread, MPI_COMM_WORLD, &reqs[k]),
                    "MPI_Irecv");
      bench_check(MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
      bench_check(MPI_Send(&ack, 1, MPI_INT, peer, kAckTagBase + j->thread, MPI_COMM_WORLD), "MPI_Send");
    }
  }
}

static void* run(void* arg) {
  Job* j = arg;
  char* buf = bench_alloc(j->o, j->size > 0 ? j->size : 1, 'a' + j->rank);
  MPI_Request* reqs = bench_alloc_requests(j->o->window);
  /* Warm-up, then every thread of this rank starts the timed part together
   * (the ranks are lined up by the warm-up exchange itself). */
  if (j->rate) {
    windows(j, buf, reqs, j->warmup);
  } else {
    ping_pong(j, buf, j->warmup);
  }
  pthread_barrier_wait(j->start);
  const double t0 = MPI_Wtime();
  if (j->rate) {
    windows(j, buf, reqs, j->iters);
  } else {
    ping_pong(j, buf, j->iters);
  }
  j->seconds = MPI_Wtime() - t0;
  free(reqs);
  bench_free(j->o, buf);
  return NULL;
}

/* Runs `threads` jobs at once; returns each thread's seconds in `secs`. */
static void run_threads(const BenchOptions* o, int rank, int threads, size_t size, long iters,
                        int rate, double* secs) {
  pthread_t th[kMaxThreads];
  Job jobs[kMaxThreads];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  bench_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  for (int t = 0; t < threads; ++t) {
    jobs[t] = (Job){o, rank, t, size, iters, bench_warmup(o, iters), rate, &start, 0};
    if (pthread_create(&th[t], NULL, run, &jobs[t]) != 0) bench_fail("pthread_create failed");
  }
  for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
  pthread_barrier_destroy(&start);
  for (int t = 0; t < threads; ++t) secs[t] = jobs[t].seconds;
}

int main(int argc, char** argv) {
  const BenchSpec spec = {
      .name = "mpi_mt",
      .description = "Multi-threaded latency and per-thread message rate (MPI_THREAD_MULTIPLE).",
      .accept = BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_WINDOW | BENCH_OPT_THREADS |
                BENCH_OPT_ALLOC_MEM,
      .sizes = "8",
      .window = 64,
      .threads = "1,2",
      .thread_level = MPI_THREAD_MULTIPLE,
  };
  BenchOptions opts;
  const int rank = bench_init(&argc, &argv, &spec, 2, &opts);
  const BenchOptions* o = &opts;
  if (rank == 0 && !o->json) {
    printf("# %s (%s): window of %d\n%8s %8s %12s %16s %16s\n", spec.name, o->impl, o->window,
           "threads", "size", "latency_us", "Mmsgs/s/thread", "Mmsgs/s total");
  }
  for (int ti = 0; ti < o->nthreads; ++ti) {
    const int threads = o->threads[ti];
    for (int s = 0; s < o->nsizes; ++s) {
      const size_t size = o->sizes[s];
      double secs[kMaxThreads];
      const long lat_iters = o->iters > 0 ? o->iters : bench_iters_latency(o, size);
      run_threads(o, rank, threads, size, lat_iters, 0, secs);
      double lat = 0;
      for (int t = 0; t < threads; ++t) lat += secs[t] * 1e6 / (2.0 * (double)lat_iters);
      lat /= threads;
      const long windows_n = o->iters > 0 ? o->iters : 160000 / o->window + 1;
      run_threads(o, rank, threads, size, windows_n, 1, secs);
      const double msgs = (double)o->window * (double)windows_n;
      double per = 0, total = 0;
      for (int t = 0; t < threads; ++t) {
        per += msgs / secs[t];
        total += msgs / secs[t];
      }
      per /= threads;
      if (rank != 0) continue;
      if (o->json) {
        printf("{\"bench\":\"mpi_latency_mt\",\"impl\":\"%s\",\"threads\":%d,\"size\":%zu,"
               "\"iters\":%ld,\"us\":%.4f}\n",
               o->impl, threads, size, lat_iters, lat);
        printf("{\"bench\":\"mpi_msgrate_mt\",\"impl\":\"%s\",\"threads\":%d,\"size\":%zu,"
               "\"window\":%d,\"messages_per_thread\":%.0f,\"msgs_per_s_per_thread\":%.0f,"
               "\"msgs_per_s_total\":%.0f}\n",
               o->impl, threads, size, o->window, msgs, per, total);
      } else {
        char label[16];
        printf("%8d %8s %12.3f %16.3f %16.3f\n", threads, bench_size_label(size, label), lat,
               per / 1e6, total / 1e6);
      }
      fflush(stdout);
    }
  }
  return bench_finish(0);
}
