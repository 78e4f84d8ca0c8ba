/* One-sided communication: many ranks on one target's window at once,
 * checked against exact totals (rma_concurrent WHAT, any number of ranks):
 *   contention   N ranks x K fetch-and-adds on one location (exact total,
 *                every old value seen once) and a compare-and-swap lock
 *   bulk         every rank at once: vector accumulates, fetch-and-ops
 *                and strided get-accumulates on the same elements of
 *                rank 0's window, every flavour (exact totals: no
 *                update lost between the bulk and one-element paths)
 *   passive      the target does not call MPI while the others access
 *                its window (Put under locks; with "acc": accumulates;
 *                with "create": Put into an MPI_Win_create window)
 *   poll sync|flush|flush_all
 *                rank 0 polls its own window with MPI_Win_sync (or a
 *                flush to itself, or flush_all) in a lock_all(NOCHECK)
 *                epoch while the others accumulate into it under
 *                exclusive locks (OpenCoarrays' event post/wait)
 *   nocheck      locks asserted MPI_MODE_NOCHECK mixed with checked
 *                ones: a checked lock taken after (or beside) a NOCHECK
 *                one is released, so a later exclusive lock gets in
 *   char         MPI_Accumulate / Get_accumulate / Fetch_and_op of
 *                MPI_CHAR with MPI_SUM (the OSU benchmarks' pattern;
 *                MPICH and Open MPI reduce MPI_CHAR as an integer) */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { K = 64 }; /* ints per rank slot */

static int rank, size;

static void contention(void) {
  enum { ADDS = 200 };
  long long* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
  memset(base, 0, 4 * sizeof(long long));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* N x K fetch-and-adds on rank 0's word 0 */
  long long* seen = malloc(ADDS * sizeof(long long));
  CHECK_OK(MPI_Win_lock_all(0, win));
  const long long one = 1;
  for (int k = 0; k < ADDS; ++k) {
    CHECK_OK(MPI_Fetch_and_op(&one, &seen[k], MPI_LONG_LONG, 0, 0, MPI_SUM, win));
    CHECK_OK(MPI_Win_flush(0, win));
  }
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(base[0] == (long long)size * ADDS);
  /* every old value 0..N*K-1 was fetched exactly once */
  long long* all = rank == 0 ? malloc((size_t)size * ADDS * sizeof(long long)) : NULL;
  CHECK_OK(MPI_Gather(seen, ADDS, MPI_LONG_LONG, all, ADDS, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    char* hit = calloc((size_t)size * ADDS, 1);
    for (int i = 0; i < size * ADDS; ++i) {
      CHECK(all[i] >= 0 && all[i] < (long long)size * ADDS && !hit[all[i]]);
      hit[all[i]] = 1;
    }
    free(hit);
    free(all);
  }
  free(seen);
  /* Accumulates (run by rank 0's handlers) and fetch-and-ops (the core's
   * atomics where it can) on one word from every rank at once: none lost. */
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) base[0] = 0;
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < ADDS; ++k) {
    long long old = -1;
    if (k % 2) {
      CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, MPI_SUM, win));
    } else {
      CHECK_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
    }
    CHECK_OK(MPI_Win_flush(0, win));
  }
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(base[0] == (long long)size * ADDS);
  /* A spin lock from compare-and-swap on rank 0's word 1 guarding a
   * non-atomic read-modify-write (Get, +1, Put) of word 2. */
  enum { ROUNDS = 50 };
  CHECK_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < ROUNDS; ++k) {
    const long long unlocked = 0, me = rank + 1;
    long long prev = -1;
    do {
      CHECK_OK(MPI_Compare_and_swap(&me, &unlocked, &prev, MPI_LONG_LONG, 0, 1, win));
      CHECK_OK(MPI_Win_flush(0, win));
    } while (prev != 0);
    long long v = -1;
    CHECK_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, win));
    CHECK_OK(MPI_Win_flush(0, win));
    ++v;
    CHECK_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 2, 1, MPI_LONG_LONG, win));
    CHECK_OK(MPI_Win_flush(0, win));
    long long back = 0;
    CHECK_OK(MPI_Compare_and_swap(&unlocked, &me, &back, MPI_LONG_LONG, 0, 1, win));
    CHECK_OK(MPI_Win_flush(0, win));
    CHECK(back == me);
  }
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(base[2] == (long long)size * ROUNDS && base[1] == 0);
  /* exclusive locks serialise the same read-modify-write of word 3 */
  for (int k = 0; k < ROUNDS; ++k) {
    long long v = -1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, 3, 1, MPI_LONG_LONG, win));
    CHECK_OK(MPI_Win_flush(0, win));
    ++v;
    CHECK_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, 3, 1, MPI_LONG_LONG, win));
    CHECK_OK(MPI_Win_unlock(0, win));
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(base[3] == (long long)size * ROUNDS);
  CHECK_OK(MPI_Win_free(&win));
}

/* Vector accumulates, fetch-and-ops and strided get-accumulates from every
 * rank onto the same elements of rank 0's window, all at once. A window
 * whose every target is mapped runs them all under one accumulate lock; the
 * others run element-wise atomics at the target: either way no update may
 * be lost. */
static void bulk_flavor(int flavor) {
  enum { N = 1024, ROUNDS = 60 };
  int* base = NULL;
  MPI_Win win;
  const MPI_Aint bytes = rank == 0 ? N * sizeof(int) : 0;
  if (flavor == MPI_WIN_FLAVOR_SHARED) {
    CHECK_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    CHECK_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  } else {
    base = malloc(N * sizeof(int));
    CHECK_OK(MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  if (rank == 0) memset(base, 0, N * sizeof(int));
  MPI_Datatype evens;
  CHECK_OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &evens));
  CHECK_OK(MPI_Type_commit(&evens));
  int ones[N], fetched[N / 2];
  for (int i = 0; i < N; ++i) ones[i] = 1;
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < ROUNDS; ++k) {
    CHECK_OK(MPI_Accumulate(ones, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win));
    int old = -1;
    CHECK_OK(MPI_Fetch_and_op(&ones[0], &old, MPI_INT, 0, k, MPI_SUM, win));
    CHECK_OK(MPI_Get_accumulate(ones, N / 2, MPI_INT, fetched, N / 2, MPI_INT, 0, 0, 1, evens,
                                MPI_SUM, win));
    CHECK_OK(MPI_Win_flush(0, win));
    /* element 2i had seen this rank's k+1 vector and k strided sums at least */
    CHECK(old >= k + 1 && fetched[N / 2 - 1] >= 2 * k + 1);
  }
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    int wrong = 0;
    for (int i = 0; i < N; ++i) {
      const int expect = size * (ROUNDS + (i < ROUNDS) + (i % 2 == 0 ? ROUNDS : 0));
      if (base[i] != expect && wrong++ < 5) fprintf(stderr, "element %d: %d, expected %d\n", i, base[i], expect);
    }
    CHECK(wrong == 0);
  }
  CHECK_OK(MPI_Type_free(&evens));
  CHECK_OK(MPI_Win_free(&win));
  if (flavor == MPI_WIN_FLAVOR_CREATE) free(base);
}

static void bulk(void) {
  bulk_flavor(MPI_WIN_FLAVOR_ALLOCATE);
  bulk_flavor(MPI_WIN_FLAVOR_CREATE);
  bulk_flavor(MPI_WIN_FLAVOR_SHARED);
}

/* Rank 0 makes no MPI call while the others write into its window; it
 * watches its own memory until every rank has marked itself done. */
static void passive(int with_accumulates, int created) {
  const int n = 2 * size + 1;
  int* base = NULL;
  MPI_Win win;
  if (created) { /* the program's own memory, which the library does not map */
    CHECK((base = malloc((size_t)n * sizeof(int))) != NULL);
    CHECK_OK(MPI_Win_create(base, (MPI_Aint)n * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
  } else {
    CHECK_OK(MPI_Win_allocate((MPI_Aint)n * sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &base, &win));
  }
  memset(base, 0, (size_t)n * sizeof(int));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      while (__atomic_load_n(&base[size + r], __ATOMIC_ACQUIRE) == 0) {
      }
    }
    /* everyone is done: MPI again (orders what handlers wrote here) */
    CHECK_OK(MPI_Win_sync(win));
    for (int r = 1; r < size; ++r) CHECK(base[r] == 100 + r);
    if (with_accumulates) CHECK(base[2 * size] == 3 * (size - 1));
  } else {
    const int v = 100 + rank, done = 1, three = 3;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_OK(MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win));
    if (with_accumulates) {
      int old = -1;
      CHECK_OK(MPI_Fetch_and_op(&three, &old, MPI_INT, 0, 2 * size, MPI_SUM, win));
      CHECK_OK(MPI_Win_flush(0, win));
      CHECK(old >= 0 && old % 3 == 0);
    }
    CHECK_OK(MPI_Win_unlock(0, win));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_OK(MPI_Put(&done, 1, MPI_INT, 0, size + rank, 1, MPI_INT, win));
    CHECK_OK(MPI_Win_unlock(0, win));
  }
  CHECK_OK(MPI_Win_free(&win));
  if (created) free(base);
}

/* OpenCoarrays' events: EVENT POST is lock(exclusive) + MPI_Accumulate +
 * unlock at the waiting image; EVENT WAIT spins on its own window memory
 * calling MPI_Win_sync and MPI_Win_flush to itself, then takes the count
 * back with MPI_Fetch_and_op. The accumulates run in rank 0's handlers, so
 * its polling calls must make progress. */
static void poll_own_window(const char* how) {
  enum { ROUNDS = 20 };
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  *base = 0;
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  const int want = (size - 1) * ROUNDS;
  if (rank == 0) {
    CHECK_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (;;) {
      if (strcmp(how, "sync") == 0) {
        CHECK_OK(MPI_Win_sync(win));
      } else if (strcmp(how, "flush") == 0) {
        CHECK_OK(MPI_Win_flush(0, win));
      } else {
        CHECK_OK(MPI_Win_flush_all(win));
      }
      if (__atomic_load_n(base, __ATOMIC_ACQUIRE) >= want) break;
    }
    CHECK_OK(MPI_Win_unlock_all(win));
    const int take = -want;
    int old = -1;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_OK(MPI_Fetch_and_op(&take, &old, MPI_INT, 0, 0, MPI_SUM, win));
    CHECK_OK(MPI_Win_unlock(0, win));
    CHECK(old == want);
  } else {
    const int one = 1;
    for (int i = 0; i < ROUNDS; ++i) {
      CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
      CHECK_OK(MPI_Win_unlock(0, win));
    }
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK(*base == 0);
  CHECK_OK(MPI_Win_free(&win));
}

/* OpenCoarrays again: EVENT WAIT opens lock_all(MPI_MODE_NOCHECK), closes
 * it, then takes a checked shared lock on itself; EVENT POST takes an
 * exclusive lock there. Each unlock must release what its own lock took,
 * whatever assertion an earlier or concurrent epoch carried. */
static void nocheck(void) {
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  *base = -1;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  CHECK_OK(MPI_Win_unlock_all(win));
  int old = 0;
  CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  CHECK_OK(MPI_Fetch_and_op(NULL, &old, MPI_INT, rank, 0, MPI_NO_OP, win));
  CHECK_OK(MPI_Win_unlock(rank, win));
  CHECK(old == -1);
  if (size > 1) {
    /* a NOCHECK lock on one target open beside a checked one on another */
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win));
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    CHECK_OK(MPI_Win_unlock(rank, win));
    CHECK_OK(MPI_Win_unlock(right, win));
  }
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* a lock word left taken would keep these out for ever */
  CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  CHECK_OK(MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win));
  CHECK_OK(MPI_Win_unlock(right, win));
  CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
  CHECK_OK(MPI_Win_unlock(rank, win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(*base == left);
  CHECK_OK(MPI_Win_free(&win));
}

/* Every rank adds its rank + 1 into rank 0's bytes with MPI_CHAR and
 * MPI_SUM, three ways, under a shared lock. */
static void chars(void) {
  enum { N = 16 };
  char* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  memset(base, 0, N);
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  char add[N], old[N];
  memset(add, (char)(rank + 1), N);
  CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_OK(MPI_Accumulate(add, 8, MPI_CHAR, 0, 0, 8, MPI_CHAR, MPI_SUM, win));
  CHECK_OK(MPI_Get_accumulate(add, 4, MPI_CHAR, old, 4, MPI_CHAR, 0, 8, 4, MPI_CHAR, MPI_SUM, win));
  CHECK_OK(MPI_Fetch_and_op(add, old + 4, MPI_CHAR, 0, 12, MPI_SUM, win));
  CHECK_OK(MPI_Win_unlock(0, win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    const char total = (char)(size * (size + 1) / 2);
    for (int i = 0; i < 13; ++i) CHECK(base[i] == total);
    for (int i = 13; i < N; ++i) CHECK(base[i] == 0);
  }
  char in[2] = {3, 4}, inout[2] = {5, 6};
  CHECK_OK(MPI_Reduce_local(in, inout, 2, MPI_CHAR, MPI_SUM));
  CHECK(inout[0] == 8 && inout[1] == 10);
  CHECK_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "contention";
  if (strcmp(what, "contention") == 0) {
    contention();
  } else if (strcmp(what, "bulk") == 0) {
    bulk();
  } else if (strcmp(what, "passive") == 0) {
    passive(argc > 2 && strcmp(argv[2], "acc") == 0, argc > 2 && strcmp(argv[2], "create") == 0);
  } else if (strcmp(what, "poll") == 0) {
    poll_own_window(argc > 2 ? argv[2] : "sync");
  } else if (strcmp(what, "nocheck") == 0) {
    nocheck();
  } else if (strcmp(what, "char") == 0) {
    chars();
  } else {
    CHECK(!"unknown test");
  }
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
