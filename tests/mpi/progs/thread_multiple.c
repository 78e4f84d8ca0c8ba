/* MPI_THREAD_MULTIPLE (2 ranks, 4 threads per rank; argv[1] = messages per
 * thread, argv[2] = which phases, default all of "tsmcgbr"):
 *  t  distinct tags: thread t exchanges N messages with the peer's thread t
 *     on tag t (windows of Irecv + Send + Waitall); content and order checked.
 *  s  shared tag + MPI_ANY_SOURCE: every thread sends N messages on one tag
 *     and receives N from any source; each message is received exactly once
 *     and, per receiving thread, the messages of one sending thread arrive
 *     in send order (non-overtaking).
 *  m  MPI_Mprobe/MPI_Mrecv from every thread at once on one tag, sizes from
 *     0 to 48 KiB and a few rendezvous-size ones; content and, per receiving
 *     thread, per-sending-thread order checked.
 *  c  each thread creates a communicator from its own parent at the same
 *     time (MPI_Comm_dup, then MPI_Comm_split), then runs collectives
 *     (Allreduce, Bcast, Barrier, Iallreduce) on it; results checked.
 *  g  every thread calls MPI_Comm_create_group on MPI_COMM_WORLD at once,
 *     each with its own tag; and a dup of MPI_COMM_SELF while a dup across
 *     the ranks waits for the peer (see groups_and_self).
 *  b  one thread blocks in MPI_Recv from itself while another thread
 *     ping-pongs with the peer and then sends to itself; and one thread
 *     blocks in MPI_Recv from the peer while the other sends to the peer.
 *  r  threads in pairs: one starts a generalized request and calls MPI_Test
 *     on it in a tight loop, the other then completes it with
 *     MPI_Grequest_complete (it must get into the library past the loop);
 *     200 rounds, the query function's status checked.
 * Also: provided == MPI_THREAD_MULTIPLE, MPI_Query_thread, and an invalid
 * call from one thread (MPI_ERR_RANK through MPI_ERRORS_RETURN) while the
 * others communicate. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define kThreads 4
#define kWindow 64
#define kSharedTag 1000
#define kMprobeTag 1001

static int g_rank, g_peer, g_n;

typedef struct {
  int32_t rank, thread, seq, check;
} Msg;

static int32_t mix(int32_t rank, int32_t thread, int32_t seq) {
  return (int32_t)((uint32_t)rank * 2654435761u ^ (uint32_t)thread * 40503u ^ (uint32_t)seq * 97u);
}

static void run_threads(void* (*fn)(void*)) {
  pthread_t th[kThreads];
  int ids[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    ids[t] = t;
    CHECK(pthread_create(&th[t], NULL, fn, &ids[t]) == 0);
  }
  for (int t = 0; t < kThreads; ++t) CHECK(pthread_join(th[t], NULL) == 0);
}

/* ---- t: distinct tags ---------------------------------------------------- */
static void* distinct_tags(void* arg) {
  const int t = *(int*)arg;
  Msg out[kWindow], in[kWindow];
  MPI_Request reqs[kWindow];
  if (t == 0) {
    /* Bad input from one thread while the others communicate. */
    int v = 0;
    MPI_Comm c;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int rc = MPI_Send(&v, 1, MPI_INT, 5, 0, c);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK);
    CHECK_OK(MPI_Comm_free(&c));
  }
  for (int base = 0; base < g_n; base += kWindow) {
    const int w = g_n - base < kWindow ? g_n - base : kWindow;
    for (int i = 0; i < w; ++i)
      CHECK_OK(MPI_Irecv(&in[i], 4, MPI_INT, g_peer, t, MPI_COMM_WORLD, &reqs[i]));
    for (int i = 0; i < w; ++i) {
      out[i] = (Msg){g_rank, t, base + i, mix(g_rank, t, base + i)};
      CHECK_OK(MPI_Send(&out[i], 4, MPI_INT, g_peer, t, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < w; ++i) {
      CHECK(in[i].rank == g_peer && in[i].thread == t && in[i].seq == base + i);
      CHECK(in[i].check == mix(g_peer, t, base + i));
    }
  }
  return NULL;
}

/* ---- s: shared tag, any source ------------------------------------------ */
static pthread_mutex_t g_seen_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned char* g_seen[kThreads]; /* [sender thread][seq] */

static void* shared_tag(void* arg) {
  const int t = *(int*)arg;
  Msg out[kWindow], in[kWindow];
  MPI_Request reqs[kWindow];
  MPI_Status st[kWindow];
  int last[kThreads];
  for (int s = 0; s < kThreads; ++s) last[s] = -1;
  for (int base = 0; base < g_n; base += kWindow) {
    const int w = g_n - base < kWindow ? g_n - base : kWindow;
    for (int i = 0; i < w; ++i)
      CHECK_OK(MPI_Irecv(&in[i], 4, MPI_INT, MPI_ANY_SOURCE, kSharedTag, MPI_COMM_WORLD, &reqs[i]));
    for (int i = 0; i < w; ++i) {
      out[i] = (Msg){g_rank, t, base + i, mix(g_rank, t, base + i)};
      CHECK_OK(MPI_Send(&out[i], 4, MPI_INT, g_peer, kSharedTag, MPI_COMM_WORLD));
    }
    CHECK_OK(MPI_Waitall(w, reqs, st));
    for (int i = 0; i < w; ++i) {
      const Msg m = in[i];
      CHECK(st[i].MPI_SOURCE == g_peer && st[i].MPI_TAG == kSharedTag);
      CHECK(m.rank == g_peer && m.thread >= 0 && m.thread < kThreads);
      CHECK(m.seq >= 0 && m.seq < g_n && m.check == mix(g_peer, m.thread, m.seq));
      /* Receives this thread posted earlier got earlier messages. */
      CHECK(m.seq > last[m.thread]);
      last[m.thread] = m.seq;
      pthread_mutex_lock(&g_seen_mu);
      CHECK(g_seen[m.thread][m.seq] == 0);
      g_seen[m.thread][m.seq] = 1;
      pthread_mutex_unlock(&g_seen_mu);
    }
  }
  return NULL;
}

/* ---- m: Mprobe / Mrecv ---------------------------------------------------- */
static int mprobe_count(void) { return g_n / 10 > 20 ? g_n / 10 : 20; }

/* Elements of message (thread, seq): mostly small, some 48 KiB, and every
 * 97th larger than the eager limit (rendezvous). */
static int mprobe_len(int thread, int seq) {
  if (seq % 97 == 50) return 40000 + thread;
  if (seq % 13 == 5) return 12288;
  return (seq * 7 + thread) % 64;
}

static void* mprobe_mrecv(void* arg) {
  const int t = *(int*)arg;
  const int n = mprobe_count();
  int last[kThreads];
  for (int s = 0; s < kThreads; ++s) last[s] = -1;
  int32_t* buf = malloc(sizeof(int32_t) * 2 * (40000 + kThreads));
  CHECK(buf != NULL);
  for (int i = 0; i < n; ++i) {
    const int len = 2 + mprobe_len(t, i);
    buf[0] = t;
    buf[1] = i;
    for (int k = 2; k < len; ++k) buf[k] = mix(g_rank, t, i) + k;
    /* Nonblocking: a rendezvous-size send completes only once a peer
     * thread probed it, and every peer thread may be sending one too. */
    MPI_Request sreq;
    CHECK_OK(MPI_Isend(buf, len, MPI_INT, g_peer, kMprobeTag, MPI_COMM_WORLD, &sreq));
    MPI_Message msg;
    MPI_Status st;
    CHECK_OK(MPI_Mprobe(MPI_ANY_SOURCE, kMprobeTag, MPI_COMM_WORLD, &msg, &st));
    int count = -1;
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == g_peer && count >= 2);
    int32_t* in = malloc(sizeof(int32_t) * (size_t)count);
    CHECK(in != NULL);
    CHECK_OK(MPI_Mrecv(in, count, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL);
    const int s = in[0], seq = in[1];
    CHECK(s >= 0 && s < kThreads && seq >= 0 && seq < n);
    CHECK(count == 2 + mprobe_len(s, seq));
    CHECK(seq > last[s]);
    last[s] = seq;
    for (int k = 2; k < count; ++k) CHECK(in[k] == mix(g_peer, s, seq) + k);
    free(in);
    CHECK_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  }
  free(buf);
  return NULL;
}

static MPI_Comm g_parent[kThreads]; /* phases c and g: one parent per thread */

/* ---- g: MPI_Comm_create_group and dups of MPI_COMM_SELF at once ---------- */
static pthread_mutex_t g_go_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_go_cv = PTHREAD_COND_INITIALIZER;
static int g_go;

static void* groups_and_self(void* arg) {
  const int t = *(int*)arg;
  MPI_Group world, self;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_OK(MPI_Comm_group(MPI_COMM_SELF, &self));
  /* Every thread on the same parent, each with its own tag (the standard
   * allows it; their agreements were matched to each other's). */
  for (int i = 0; i < 10; ++i) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, i % 2 ? self : world, t, &c));
    int size = 0, sum = 0, one = 1;
    CHECK_OK(MPI_Comm_size(c, &size));
    CHECK(size == (i % 2 ? 1 : 2));
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size);
    CHECK_OK(MPI_Comm_free(&c));
  }
  CHECK_OK(MPI_Group_free(&self));
  CHECK_OK(MPI_Group_free(&world));
  /* Threads 0 and 1: on rank r, thread 1 - r dups parent 1 - r (its peer's
   * other thread takes that part later) and tells thread r, which dups
   * MPI_COMM_SELF while that agreement waits, then dups parent r. The
   * SELF dup waited for the slots the pending agreement offered, whose
   * peer waited for this rank's parent r dup: a deadlock. */
  if (t > 1) return NULL;
  const int first = t == 1 - g_rank;
  MPI_Comm dup;
  if (first) {
    pthread_mutex_lock(&g_go_mu);
    g_go = 1;
    pthread_cond_signal(&g_go_cv);
    pthread_mutex_unlock(&g_go_mu);
  } else {
    pthread_mutex_lock(&g_go_mu);
    while (!g_go) pthread_cond_wait(&g_go_cv, &g_go_mu);
    pthread_mutex_unlock(&g_go_mu);
    CHECK_OK(MPI_Comm_dup(MPI_COMM_SELF, &dup));
    CHECK_OK(MPI_Comm_free(&dup));
  }
  CHECK_OK(MPI_Comm_dup(g_parent[t], &dup));
  CHECK_OK(MPI_Comm_free(&dup));
  return NULL;
}

/* ---- c: communicators and collectives ------------------------------------ */

static void* collectives(void* arg) {
  const int t = *(int*)arg;
  MPI_Comm dup, split;
  /* Creations on four parents at once agree on distinct context slots. */
  for (int i = 0; i < 20; ++i) {
    CHECK_OK(MPI_Comm_dup(g_parent[t], &dup));
    CHECK_OK(MPI_Comm_free(&dup));
  }
  CHECK_OK(MPI_Comm_dup(g_parent[t], &dup));
  CHECK_OK(MPI_Comm_split(dup, 0, -g_rank, &split)); /* reversed ranks */
  int size = 0, srank = -1;
  CHECK_OK(MPI_Comm_size(split, &size));
  CHECK_OK(MPI_Comm_rank(split, &srank));
  CHECK(srank == size - 1 - g_rank);
  const int iters = g_n / 100 > 10 ? g_n / 100 : 10;
  for (int i = 0; i < iters; ++i) {
    MPI_Comm c = i % 2 ? dup : split;
    long v[3] = {g_rank + t, i, 1}, sum[3] = {0, 0, 0};
    CHECK_OK(MPI_Allreduce(v, sum, 3, MPI_LONG, MPI_SUM, c));
    CHECK(sum[0] == (long)size * (size - 1) / 2 + (long)size * t);
    CHECK(sum[1] == (long)size * i && sum[2] == size);
    int b[2] = {0, 0};
    if (srank == 0 || c == dup) b[0] = 1000 * t + i, b[1] = -i;
    CHECK_OK(MPI_Bcast(b, 2, MPI_INT, 0, c));
    CHECK(b[0] == 1000 * t + i && b[1] == -i);
    CHECK_OK(MPI_Barrier(c));
    MPI_Request r;
    int x = t + i, y = 0;
    CHECK_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, c, &r));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(y == t + i);
  }
  CHECK_OK(MPI_Comm_free(&split));
  CHECK_OK(MPI_Comm_free(&dup));
  return NULL;
}

/* ---- b: blocking receives while other threads send ----------------------- */
static void* blocked_recv(void* arg) {
  const int t = *(int*)arg;
  int v = -1;
  if (t == 0) { /* from myself; thread 1 sends it after talking to the peer */
    CHECK_OK(MPI_Recv(&v, 1, MPI_INT, g_rank, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == 111);
  } else if (t == 1) {
    for (int i = 0; i < 100; ++i) {
      int p = i, q = -1;
      CHECK_OK(MPI_Sendrecv(&p, 1, MPI_INT, g_peer, 12, &q, 1, MPI_INT, g_peer, 12, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
      CHECK(q == i);
    }
    v = 111;
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, g_rank, 11, MPI_COMM_WORLD));
  } else if (t == 2) { /* from the peer's thread 3 */
    CHECK_OK(MPI_Recv(&v, 1, MPI_INT, g_peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == 300 + g_peer);
  } else {
    MPI_Status st;
    int flag = 0;
    /* Probe something that never comes, then send. */
    CHECK_OK(MPI_Iprobe(g_peer, 99, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 0);
    v = 300 + g_rank;
    CHECK_OK(MPI_Ssend(&v, 1, MPI_INT, g_peer, 13, MPI_COMM_WORLD));
  }
  return NULL;
}

/* ---- r: a generalized request completed past another thread's MPI_Test loop */
#define kGreqRounds 200

typedef struct {
  MPI_Request req; /* the round's request, set before `round` moves */
  atomic_int round; /* the tester's round whose request is being tested */
  atomic_int queried; /* query_fn calls */
} GreqPair;
static GreqPair g_greq[kThreads / 2];

static int greq_query(void* extra, MPI_Status* st) {
  GreqPair* pair = extra;
  atomic_fetch_add(&pair->queried, 1);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = 77;
  MPI_Status_set_cancelled(st, 0);
  MPI_Status_set_elements(st, MPI_BYTE, 5);
  return MPI_SUCCESS;
}
static int greq_free(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int greq_cancel(void* extra, int complete) {
  (void)extra, (void)complete;
  return MPI_SUCCESS;
}

static void* grequest_pairs(void* arg) {
  const int t = *(int*)arg;
  GreqPair* pair = &g_greq[t / 2];
  for (int round = 1; round <= kGreqRounds; ++round) {
    if (t % 2 == 0) {
      MPI_Request req;
      CHECK_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, pair, &req));
      pair->req = req;
      int flag = 0;
      MPI_Status st;
      CHECK_OK(MPI_Test(&req, &flag, &st));
      atomic_store(&pair->round, round); /* the completer may go */
      while (!flag) CHECK_OK(MPI_Test(&req, &flag, &st));
      CHECK(req == MPI_REQUEST_NULL);
      CHECK(st.MPI_TAG == 77);
      int count = -1;
      CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK(count == 5);
    } else {
      while (atomic_load(&pair->round) != round) sched_yield();
      CHECK_OK(MPI_Grequest_complete(pair->req));
    }
  }
  if (t % 2 == 0) CHECK(atomic_load(&pair->queried) == kGreqRounds);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1, size = 0;
  CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  int q = -1, main_flag = 0;
  CHECK_OK(MPI_Query_thread(&q));
  CHECK(q == MPI_THREAD_MULTIPLE);
  CHECK_OK(MPI_Is_thread_main(&main_flag));
  CHECK(main_flag == 1);
  char level[40];
  int flag = 0;
  CHECK_OK(MPI_Info_get(MPI_INFO_ENV, "thread_level", 39, level, &flag));
  CHECK(flag == 1 && strcmp(level, "MPI_THREAD_MULTIPLE") == 0);
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size == 2);
  g_peer = 1 - g_rank;
  g_n = argc > 1 ? atoi(argv[1]) : 100000;
  CHECK(g_n > 0);
  const char* phases = argc > 2 ? argv[2] : "tsmcgbr";
  for (const char* p = phases; *p; ++p) {
    switch (*p) {
      case 't':
        run_threads(distinct_tags);
        break;
      case 's':
        for (int s = 0; s < kThreads; ++s) CHECK((g_seen[s] = calloc((size_t)g_n, 1)) != NULL);
        run_threads(shared_tag);
        for (int s = 0; s < kThreads; ++s) {
          for (int i = 0; i < g_n; ++i) CHECK(g_seen[s][i] == 1);
          free(g_seen[s]);
        }
        break;
      case 'm':
        run_threads(mprobe_mrecv);
        break;
      case 'c':
        for (int t = 0; t < kThreads; ++t) CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &g_parent[t]));
        run_threads(collectives);
        for (int t = 0; t < kThreads; ++t) CHECK_OK(MPI_Comm_free(&g_parent[t]));
        break;
      case 'b':
        run_threads(blocked_recv);
        break;
      case 'r':
        run_threads(grequest_pairs);
        break;
      case 'g':
        for (int t = 0; t < kThreads; ++t) CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &g_parent[t]));
        g_go = 0;
        run_threads(groups_and_self);
        for (int t = 0; t < kThreads; ++t) CHECK_OK(MPI_Comm_free(&g_parent[t]));
        break;
      default:
        CHECK(!"unknown phase");
    }
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  printf("OK\n");
  CHECK_OK(MPI_Finalize());
  return 0;
}
