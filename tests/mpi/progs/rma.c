/* One-sided communication (MPI-3 windows) checked against serial references.
 *   rma fence        Put/Get/Accumulate/Get_accumulate/Fetch_and_op/
 *                    Compare_and_swap, contiguous and derived types on both
 *                    sides, every window flavour, fence synchronisation
 *   rma lock         the same accesses under lock/unlock, lock_all/flush
 *   rma contention   N ranks x K fetch-and-adds on one location (exact total,
 *                    every old value seen once) and a compare-and-swap lock
 *   rma bulk         every rank at once: vector accumulates, fetch-and-ops
 *                    and strided get-accumulates on the same elements of
 *                    rank 0's window, every flavour (exact totals: no
 *                    update lost between the bulk and one-element paths)
 *   rma passive      the target does not call MPI while the others access
 *                    its window (Put under locks; with "acc": accumulates)
 *   rma poll sync|flush|flush_all
 *                    rank 0 polls its own window with MPI_Win_sync (or a
 *                    flush to itself, or flush_all) in a lock_all(NOCHECK)
 *                    epoch while the others accumulate into it under
 *                    exclusive locks (OpenCoarrays' event post/wait)
 *   rma nocheck      locks asserted MPI_MODE_NOCHECK mixed with checked
 *                    ones: a checked lock taken after (or beside) a NOCHECK
 *                    one is released, so a later exclusive lock gets in
 *   rma char         MPI_Accumulate / Get_accumulate / Fetch_and_op of
 *                    MPI_CHAR with MPI_SUM (the OSU benchmarks' pattern;
 *                    MPICH and Open MPI reduce MPI_CHAR as an integer)
 *   rma shared       MPI_Win_allocate_shared + MPI_Win_shared_query
 *   rma dynamic      MPI_Win_create_dynamic + attach/detach
 *   rma pscw         post/start/complete/wait and MPI_Win_test round a ring
 *   rma requests     MPI_Rput/Rget/Raccumulate/Rget_accumulate
 * Bad arguments are rma_errors.c's. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { K = 64 }; /* ints per rank slot */

static int rank, size;

static MPI_Win make_window(int flavor, int** base, int nints) {
  MPI_Win win;
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    CHECK_OK(MPI_Win_allocate((MPI_Aint)nints * sizeof(int), sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, base, &win));
  } else {
    *base = malloc((size_t)nints * sizeof(int) + 1);
    CHECK_OK(MPI_Win_create(*base, (MPI_Aint)nints * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
  }
  int* f = NULL;
  int flag = 0;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag));
  CHECK(flag && *f == flavor);
  int* model = NULL;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && *model == MPI_WIN_UNIFIED);
  MPI_Aint* sz = NULL;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
  CHECK(flag && *sz == (MPI_Aint)nints * (MPI_Aint)sizeof(int));
  void* b = NULL;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag));
  CHECK(flag && b == *base);
  int* du = NULL;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == (int)sizeof(int));
  return win;
}

static void free_window(int flavor, MPI_Win* win, int* base) {
  CHECK_OK(MPI_Win_free(win));
  CHECK(*win == MPI_WIN_NULL);
  if (flavor != MPI_WIN_FLAVOR_ALLOCATE) free(base);
}

/* Epoch helpers: fence mode or lock mode around one round of accesses. */
static int use_locks;
static void begin(MPI_Win win) {
  if (use_locks) {
    /* everyone has checked the last round's results before anyone writes */
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_OK(MPI_Win_lock_all(0, win));
  } else {
    CHECK_OK(MPI_Win_fence(0, win));
  }
}
static void end(MPI_Win win) {
  if (use_locks) {
    CHECK_OK(MPI_Win_unlock_all(win));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  } else {
    CHECK_OK(MPI_Win_fence(0, win));
  }
}
/* Local stores before others access: they must be done before the epoch. */
static void local_init(MPI_Win win, int* base, int n, int value_base) {
  if (use_locks) CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
  for (int i = 0; i < n; ++i) base[i] = value_base + i;
  if (use_locks) CHECK_OK(MPI_Win_unlock(rank, win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void accesses(int flavor) {
  const int n = (size < 4 ? 4 : size) * K;
  int* base = NULL;
  MPI_Win win = make_window(flavor, &base, n);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* 1. contiguous Put into the right neighbour's slot `rank`. */
  local_init(win, base, n, -1000000);
  int src[K], dst[K];
  for (int i = 0; i < K; ++i) src[i] = rank * 1000 + i;
  begin(win);
  CHECK_OK(MPI_Put(src, K, MPI_INT, right, (MPI_Aint)rank * K, K, MPI_INT, win));
  end(win);
  for (int i = 0; i < K; ++i) CHECK(base[left * K + i] == left * 1000 + i);

  /* 2. contiguous Get back from the right neighbour what 1 put there. */
  begin(win);
  memset(dst, 0, sizeof dst);
  CHECK_OK(MPI_Get(dst, K, MPI_INT, right, (MPI_Aint)rank * K, K, MPI_INT, win));
  end(win);
  for (int i = 0; i < K; ++i) CHECK(dst[i] == rank * 1000 + i);

  /* 3. derived both sides: origin every 2nd int, target every 3rd int. */
  local_init(win, base, n, 0);
  MPI_Datatype every2, every3;
  CHECK_OK(MPI_Type_vector(K / 4, 1, 2, MPI_INT, &every2));
  CHECK_OK(MPI_Type_vector(K / 4, 1, 3, MPI_INT, &every3));
  CHECK_OK(MPI_Type_commit(&every2));
  CHECK_OK(MPI_Type_commit(&every3));
  begin(win);
  CHECK_OK(MPI_Put(src, 1, every2, right, (MPI_Aint)rank * K, 1, every3, win));
  end(win);
  for (int i = 0; i < K; ++i) {
    const int want = (i % 3 == 0 && i / 3 < K / 4) ? left * 1000 + 2 * (i / 3) : left * K + i;
    CHECK(base[left * K + i] == want);
  }
  begin(win);
  for (int i = 0; i < K; ++i) dst[i] = -1;
  CHECK_OK(MPI_Get(dst, 1, every2, right, (MPI_Aint)rank * K, 1, every3, win));
  end(win);
  for (int i = 0; i < K; ++i) CHECK(dst[i] == (i % 2 == 0 && i / 2 < K / 4 ? rank * 1000 + i : -1));
  /* derived origin, contiguous target, and the reverse */
  begin(win);
  CHECK_OK(MPI_Put(src, 1, every2, right, (MPI_Aint)rank * K, K / 4, MPI_INT, win));
  end(win);
  for (int i = 0; i < K / 4; ++i) CHECK(base[left * K + i] == left * 1000 + 2 * i);

  /* 4. accumulates from every rank into every rank's slot 0 area. */
  local_init(win, base, n, 0);
  begin(win);
  for (int t = 0; t < size; ++t) {
    int v[K];
    for (int i = 0; i < K; ++i) v[i] = rank + i;
    CHECK_OK(MPI_Accumulate(v, K, MPI_INT, t, 0, K, MPI_INT, MPI_SUM, win));
    int big = 1000 + rank, small = -1000 - rank;
    CHECK_OK(MPI_Accumulate(&big, 1, MPI_INT, t, K, 1, MPI_INT, MPI_MAX, win));
    CHECK_OK(MPI_Accumulate(&small, 1, MPI_INT, t, K + 1, 1, MPI_INT, MPI_MIN, win));
    int bit = 1 << (rank % 30);
    CHECK_OK(MPI_Accumulate(&bit, 1, MPI_INT, t, K + 2, 1, MPI_INT, MPI_BOR, win));
    /* accumulate through a derived target type: every 3rd int of slot 1 */
    int ones[K / 4];
    for (int i = 0; i < K / 4; ++i) ones[i] = 1;
    CHECK_OK(MPI_Accumulate(ones, K / 4, MPI_INT, t, 2 * K, 1, every3, MPI_SUM, win));
  }
  end(win);
  const int ranksum = size * (size - 1) / 2;
  int bits = 0;
  for (int r = 0; r < size; ++r) bits |= 1 << (r % 30);
  for (int i = 0; i < K; ++i) CHECK(base[i] == i + (ranksum + size * i));
  CHECK(base[K] == 1000 + size - 1);
  CHECK(base[K + 1] == -1000 - (size - 1));
  CHECK(base[K + 2] == ((K + 2) | bits));
  for (int i = 0; i < K; ++i) {
    const int want = 2 * K + i + ((i % 3 == 0 && i / 3 < K / 4) ? size : 0);
    CHECK(base[2 * K + i] == want);
  }
  MPI_Type_free(&every2);
  MPI_Type_free(&every3);

  /* 5. REPLACE, NO_OP, Get_accumulate, Fetch_and_op, Compare_and_swap (at the right). */
  local_init(win, base, n, 0);
  begin(win);
  int rep[4] = {7, 8, 9, 10}, old[4] = {0, 0, 0, 0};
  CHECK_OK(MPI_Accumulate(rep, 4, MPI_INT, right, (MPI_Aint)rank * K, 4, MPI_INT, MPI_REPLACE, win));
  end(win);
  for (int i = 0; i < 4; ++i) CHECK(base[left * K + i] == 7 + i);
  begin(win);
  int add[4] = {1, 1, 1, 1};
  CHECK_OK(MPI_Get_accumulate(add, 4, MPI_INT, old, 4, MPI_INT, right, (MPI_Aint)rank * K, 4,
                              MPI_INT, MPI_SUM, win));
  end(win);
  for (int i = 0; i < 4; ++i) CHECK(old[i] == 7 + i && base[left * K + i] == 8 + i);
  begin(win);
  CHECK_OK(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, old, 4, MPI_INT, right,
                              (MPI_Aint)rank * K, 4, MPI_INT, MPI_NO_OP, win));
  end(win);
  for (int i = 0; i < 4; ++i) CHECK(old[i] == 8 + i && base[left * K + i] == 8 + i);
  begin(win);
  int fetched = -1, five = 5;
  CHECK_OK(MPI_Fetch_and_op(&five, &fetched, MPI_INT, right, (MPI_Aint)rank * K + 4, MPI_PROD, win));
  end(win);
  CHECK(fetched == rank * K + 4 && base[left * K + 4] == 5 * (left * K + 4));
  begin(win);
  int cmp = 5 * (rank * K + 4), nv = -77, res = 0;
  CHECK_OK(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_INT, right, (MPI_Aint)rank * K + 4, win));
  int cmp2 = 12345, res2 = 0;
  CHECK_OK(MPI_Compare_and_swap(&nv, &cmp2, &res2, MPI_INT, right, (MPI_Aint)rank * K + 5, win));
  end(win);
  CHECK(res == 5 * (rank * K + 4) && base[left * K + 4] == -77);
  CHECK(res2 == rank * K + 5 && base[left * K + 5] == left * K + 5);
  /* one target element through origin and result types that place it at
   * byte 8 (MPICH's lock_x_dt: the one-element atomic path read and wrote
   * the buffers' first bytes instead) */
  MPI_Datatype at8;
  const MPI_Aint eight = 8;
  CHECK_OK(MPI_Type_create_hindexed_block(1, 1, &eight, MPI_INT, &at8));
  CHECK_OK(MPI_Type_commit(&at8));
  int orig8[4] = {-1, -1, 4321, -1}, res8[4] = {-1, -1, -1, -1};
  begin(win);
  CHECK_OK(MPI_Get_accumulate(orig8, 1, at8, res8, 1, at8, right, (MPI_Aint)rank * K + 6, 1,
                              MPI_INT, MPI_REPLACE, win));
  end(win);
  CHECK(res8[2] == rank * K + 6 && res8[0] == -1 && base[left * K + 6] == 4321);
  MPI_Type_free(&at8);
  /* doubles and pair types at the target, MINLOC */
  begin(win);
  struct { int v, i; } mine = {rank % 3, rank}, got;
  (void)got;
  CHECK_OK(MPI_Accumulate(&mine, 1, MPI_2INT, 0, 10, 1, MPI_2INT, MPI_MINLOC, win));
  end(win);
  if (rank == 0) {
    /* initial (10, 11): every rank's value is < 10; ties broken by the smaller index */
    CHECK(base[10] == 0 && base[11] == 0);
  }
  /* MPI_PROC_NULL and empty accesses do nothing */
  begin(win);
  CHECK_OK(MPI_Put(src, K, MPI_INT, MPI_PROC_NULL, 0, K, MPI_INT, win));
  CHECK_OK(MPI_Put(src, 0, MPI_INT, right, 0, 0, MPI_INT, win));
  end(win);
  free_window(flavor, &win, base);
}

/* Doubles in a window of doubles, disp_unit 8. */
static void doubles(void) {
  double* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &base, &win));
  CHECK_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < 4; ++i) base[i] = 1.0;
  CHECK_OK(MPI_Win_fence(0, win));
  double two = 2.0, half = 0.5;
  for (int t = 0; t < size; ++t) {
    CHECK_OK(MPI_Accumulate(&two, 1, MPI_DOUBLE, t, 1, 1, MPI_DOUBLE, MPI_PROD, win));
    CHECK_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, t, 2, 1, MPI_DOUBLE, MPI_SUM, win));
  }
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  double p = 1.0;
  for (int r = 0; r < size; ++r) p *= 2.0;
  CHECK(base[1] == p && base[2] == 1.0 + 0.5 * size && base[0] == 1.0);
  CHECK_OK(MPI_Win_free(&win));
}

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
static void passive(int with_accumulates) {
  const int n = 2 * size + 1;
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate((MPI_Aint)n * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
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

/* Post/start/complete/wait around a ring: each rank exposes its window to
 * its left neighbour and accesses its right one, round after round. */
static void pscw(void) {
  enum { ROUNDS = 20 };
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  memset(base, 0, K * sizeof(int));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Group world, from, to;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_OK(MPI_Group_incl(world, 1, &left, &from));
  CHECK_OK(MPI_Group_incl(world, 1, &right, &to));
  for (int round = 1; round <= ROUNDS; ++round) {
    CHECK_OK(MPI_Win_post(from, 0, win));
    CHECK_OK(MPI_Win_start(to, 0, win));
    if (round == 1) { /* no lock inside the access epoch: epochs are disjoint */
      CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
      CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC);
      CHECK_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
      CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    }
    int v[K];
    for (int i = 0; i < K; ++i) v[i] = round * 1000 + rank;
    CHECK_OK(MPI_Put(v, K / 2, MPI_INT, right, 0, K / 2, MPI_INT, win));
    CHECK_OK(MPI_Accumulate(v, K / 2, MPI_INT, right, K / 2, K / 2, MPI_INT, MPI_SUM, win));
    CHECK_OK(MPI_Win_complete(win));
    if (round % 2) {
      CHECK_OK(MPI_Win_wait(win));
    } else {
      int flag = 0;
      while (!flag) CHECK_OK(MPI_Win_test(win, &flag));
    }
    int acc = 0;
    for (int r = 1; r <= round; ++r) acc += r * 1000 + left;
    for (int i = 0; i < K / 2; ++i) CHECK(base[i] == round * 1000 + left && base[K / 2 + i] == acc);
  }
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  MPI_Group_free(&world);
  CHECK_OK(MPI_Win_free(&win));
}

/* MPI_Rput/Rget/Raccumulate/Rget_accumulate in a lock_all epoch. */
static void requests(void) {
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int* base = NULL;
  MPI_Win win;
  CHECK_OK(MPI_Win_allocate(4 * K * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &base, &win));
  for (int i = 0; i < 4 * K; ++i) base[i] = i;
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  int v[K], got[K], old[K];
  for (int i = 0; i < K; ++i) v[i] = rank * 100 + i;
  MPI_Request reqs[4];
  CHECK_OK(MPI_Win_lock_all(0, win));
  CHECK_OK(MPI_Rput(v, K, MPI_INT, right, 0, K, MPI_INT, win, &reqs[0]));
  CHECK_OK(MPI_Rget(got, K, MPI_INT, right, K, K, MPI_INT, win, &reqs[1]));
  CHECK_OK(MPI_Raccumulate(v, K, MPI_INT, right, 2 * K, K, MPI_INT, MPI_SUM, win, &reqs[2]));
  CHECK_OK(MPI_Rget_accumulate(v, K, MPI_INT, old, K, MPI_INT, right, 3 * K, K, MPI_INT,
                               MPI_REPLACE, win, &reqs[3]));
  CHECK_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 4; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < K; ++i) {
    CHECK(got[i] == K + i && old[i] == 3 * K + i);
    CHECK(base[i] == left * 100 + i);
    CHECK(base[2 * K + i] == 2 * K + i + left * 100 + i);
    CHECK(base[3 * K + i] == left * 100 + i);
  }
  CHECK_OK(MPI_Win_free(&win));
}

/* MPI_Win_allocate_shared: every rank's part is reachable by loads and
 * stores through MPI_Win_shared_query, and by Put/Get. */
static void shared(void) {
  int* mine = NULL;
  MPI_Win win;
  const MPI_Aint bytes = (MPI_Aint)(rank + 1) * K * sizeof(int);
  CHECK_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
  int* flavor = NULL;
  int flag = 0;
  CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED);
  CHECK_OK(MPI_Win_lock_all(0, win));
  for (int i = 0; i < (rank + 1) * K; ++i) mine[i] = rank * 10000 + i;
  CHECK_OK(MPI_Win_sync(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_OK(MPI_Win_sync(win));
  for (int r = 0; r < size; ++r) {
    MPI_Aint sz = -1;
    int du = -1;
    int* p = NULL;
    CHECK_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK(sz == (MPI_Aint)(r + 1) * K * (MPI_Aint)sizeof(int) && du == (int)sizeof(int));
    for (int i = 0; i < (r + 1) * K; ++i) CHECK(p[i] == r * 10000 + i);
  }
  MPI_Aint sz = -1;
  int du = -1;
  int* first = NULL;
  CHECK_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &first));
  CHECK(sz == K * (MPI_Aint)sizeof(int));
  CHECK_OK(MPI_Win_unlock_all(win));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Put into the right neighbour's part, seen there by a load */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_OK(MPI_Win_fence(0, win));
  int v = -rank - 1;
  CHECK_OK(MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, win));
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK(mine[1] == -left - 1);
  CHECK_OK(MPI_Win_free(&win));
  /* odd ranks bring no memory: their parts answer size 0 and NULL
   * (MPICH's win_shared_noncontig_put) */
  CHECK_OK(MPI_Win_allocate_shared(rank % 2 ? 0 : K * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                   MPI_COMM_WORLD, &mine, &win));
  for (int r = 0; r < size; ++r) {
    int* p = mine;
    CHECK_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK(r % 2 ? sz == 0 && p == NULL : sz == K * (MPI_Aint)sizeof(int) && p != NULL);
  }
  CHECK_OK(MPI_Win_free(&win));
}

/* MPI_Win_create_dynamic: memory attached later, addressed by absolute
 * displacements; an access outside attached memory is refused by the
 * target and reported at the origin's next synchronisation. */
static void dynamic(void) {
  MPI_Win win;
  CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int* buf = malloc(K * sizeof(int));
  for (int i = 0; i < K; ++i) buf[i] = i;
  CHECK_OK(MPI_Win_attach(win, buf, K * sizeof(int)));
  CHECK_CLASS(MPI_Win_attach(win, buf + 1, sizeof(int)), MPI_ERR_RMA_ATTACH);
  MPI_Aint mine, *all = malloc(size * sizeof(MPI_Aint));
  CHECK_OK(MPI_Get_address(buf, &mine));
  CHECK_OK(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_OK(MPI_Win_fence(0, win));
  int v[4] = {rank, rank, rank, rank}, got[4] = {0};
  CHECK_OK(MPI_Put(v, 4, MPI_INT, right, all[right], 4, MPI_INT, win));
  CHECK_OK(MPI_Accumulate(v, 4, MPI_INT, right, all[right] + 8 * sizeof(int), 4, MPI_INT, MPI_SUM, win));
  CHECK_OK(MPI_Get(got, 4, MPI_INT, right, all[right] + 16 * sizeof(int), 4, MPI_INT, win));
  CHECK_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < 4; ++i) {
    CHECK(buf[i] == left && buf[8 + i] == 8 + i + left && got[i] == 16 + i);
  }
  /* beyond the attached region: refused at the target */
  CHECK_OK(MPI_Put(v, 4, MPI_INT, right, all[right] + (K - 2) * sizeof(int), 4, MPI_INT, win));
  CHECK_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_RANGE);
  CHECK(buf[K - 2] == K - 2 && buf[K - 1] == K - 1);
  /* an array attached in two halves, accessed across the seam (MPICH's
   * win_dynamic_rma_flush_get: refused before) */
  int* pair = malloc(2 * K * sizeof(int));
  for (int i = 0; i < 2 * K; ++i) pair[i] = -i;
  CHECK_OK(MPI_Win_attach(win, pair, K * sizeof(int)));
  CHECK_OK(MPI_Win_attach(win, pair + K, K * sizeof(int)));
  MPI_Aint pair_at, *pairs = malloc(size * sizeof(MPI_Aint));
  CHECK_OK(MPI_Get_address(pair, &pair_at));
  CHECK_OK(MPI_Allgather(&pair_at, 1, MPI_AINT, pairs, 1, MPI_AINT, MPI_COMM_WORLD));
  int across[8] = {0};
  CHECK_OK(MPI_Win_fence(0, win));
  CHECK_OK(MPI_Get(across, 8, MPI_INT, right, pairs[right] + (K - 4) * sizeof(int), 8, MPI_INT, win));
  CHECK_OK(MPI_Accumulate(v, 4, MPI_INT, right, pairs[right] + (K - 2) * sizeof(int), 4, MPI_INT,
                          MPI_REPLACE, win));
  CHECK_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < 8; ++i) CHECK(across[i] == -(K - 4 + i));
  for (int i = 0; i < 4; ++i) CHECK(pair[K - 2 + i] == left);
  CHECK_OK(MPI_Win_detach(win, pair + K));
  CHECK_OK(MPI_Win_detach(win, pair));
  free(pair);
  free(pairs);
  CHECK_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_OK(MPI_Win_detach(win, buf));
  CHECK_CLASS(MPI_Win_detach(win, buf), MPI_ERR_RMA_ATTACH);
  int x = 0;
  MPI_Aint sz;
  int du;
  void* p;
  CHECK_CLASS(MPI_Win_shared_query(win, 0, &sz, &du, &p), MPI_ERR_RMA_FLAVOR);
  (void)x;
  CHECK_OK(MPI_Win_free(&win));
  free(buf);
  free(all);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* what = argc > 1 ? argv[1] : "fence";
  if (strcmp(what, "fence") == 0 || strcmp(what, "lock") == 0) {
    use_locks = strcmp(what, "lock") == 0;
    accesses(MPI_WIN_FLAVOR_CREATE);
    accesses(MPI_WIN_FLAVOR_ALLOCATE);
    doubles();
  } else if (strcmp(what, "contention") == 0) {
    contention();
  } else if (strcmp(what, "bulk") == 0) {
    bulk();
  } else if (strcmp(what, "passive") == 0) {
    passive(argc > 2 && strcmp(argv[2], "acc") == 0);
  } else if (strcmp(what, "poll") == 0) {
    poll_own_window(argc > 2 ? argv[2] : "sync");
  } else if (strcmp(what, "nocheck") == 0) {
    nocheck();
  } else if (strcmp(what, "char") == 0) {
    chars();
  } else if (strcmp(what, "shared") == 0) {
    shared();
  } else if (strcmp(what, "dynamic") == 0) {
    dynamic();
  } else if (strcmp(what, "pscw") == 0) {
    pscw();
  } else if (strcmp(what, "requests") == 0) {
    requests();
  } else {
    CHECK(!"unknown test");
  }
  MPI_Finalize();
  printf("OK\n");
  return 0;
}
