/* One-sided communication (MPI-3 windows) checked against serial references.
 *   rma fence        Put/Get/Accumulate/Get_accumulate/Fetch_and_op/
 *                    Compare_and_swap, contiguous and derived types on both
 *                    sides, every window flavour, fence synchronisation
 *   rma lock         the same accesses under lock/unlock, lock_all/flush
 *   rma shared       MPI_Win_allocate_shared + MPI_Win_shared_query
 *   rma dynamic      MPI_Win_create_dynamic + attach/detach
 *   rma pscw         post/start/complete/wait and MPI_Win_test round a ring
 *   rma requests     MPI_Rput/Rget/Raccumulate/Rget_accumulate
 * Many ranks on one target at once are rma_concurrent.c's, bad arguments
 * rma_errors.c's. */
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
  CHECK_OK(MPI_Win_shared_query(win, 0, &sz, &du, &p)); /* a dynamic window: nothing */
  CHECK(sz == 0 && p == NULL);
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
