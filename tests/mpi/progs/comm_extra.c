/* The rest of issue 10 section 2: MPI_Comm_create_group, split_type,
 * dup_with_info, set_info/get_info, attributes on datatypes, window
 * keyvals, MPI_Add_error_class/code/string, generalized requests,
 * MPI_Pcontrol, MPI_Isendrecv(_replace), MPI 4.1's MPI_Get_hw_resource_info,
 * and their bad arguments. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

static void create_group(void) {
  /* Even ranks only; the odd ones do not call. */
  MPI_Group world, evens;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int range[1][3] = {{0, size - 1, 2}};
  CHECK_OK(MPI_Group_range_incl(world, 1, range, &evens));
  if (rank % 2 == 0) {
    MPI_Comm c;
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 42, &c));
    int n, r, sum = -1;
    CHECK_OK(MPI_Comm_size(c, &n));
    CHECK_OK(MPI_Comm_rank(c, &r));
    CHECK(n == (size + 1) / 2 && r == rank / 2);
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    int expect = 0;
    for (int w = 0; w < size; w += 2) expect += w;
    CHECK(sum == expect);
    CHECK_OK(MPI_Comm_free(&c));
  } else {
    /* A process outside the group gets MPI_COMM_NULL at once. */
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 42, &c));
    CHECK(c == MPI_COMM_NULL);
  }
  CHECK_OK(MPI_Group_free(&evens));
  CHECK_OK(MPI_Group_free(&world));
  CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* MPI_Comm_idup: several outstanding, and one completing while rank 0 sits
 * in a blocking creation the others reach only after waiting for it. */
static void idup(void) {
  MPI_Comm x, a, b, c;
  MPI_Request r[2];
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &x));
  CHECK_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]));
  CHECK_OK(MPI_Comm_idup(x, &c, &r[1]));
  if (rank == 0) {
    CHECK_OK(MPI_Comm_dup(x, &b));
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  } else {
    CHECK_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_OK(MPI_Comm_dup(x, &b));
  }
  int n, me, result;
  CHECK_OK(MPI_Comm_size(a, &n));
  CHECK_OK(MPI_Comm_rank(a, &me));
  CHECK(n == size && me == rank);
  CHECK_OK(MPI_Comm_compare(a, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT);
  /* Same tag and peers on all four: each receive gets its own message. */
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm comms[4] = {a, b, c, x};
  MPI_Request s[4];
  int out[4], in[4];
  for (int i = 0; i < 4; ++i) {
    out[i] = rank * 10 + i;
    CHECK_OK(MPI_Isend(&out[i], 1, MPI_INT, right, 0, comms[i], &s[i]));
  }
  for (int i = 3; i >= 0; --i) {
    CHECK_OK(MPI_Recv(&in[i], 1, MPI_INT, left, 0, comms[i], MPI_STATUS_IGNORE));
    CHECK(in[i] == left * 10 + i);
  }
  CHECK_OK(MPI_Waitall(4, s, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 4; ++i) CHECK_OK(MPI_Comm_free(&comms[i]));
  CHECK_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &r[0]), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_idup(MPI_COMM_NULL, &a, &r[0]), MPI_ERR_COMM);
}

/* MPI_Comm_idup_with_info (MPI 4.0): the duplicate gets the given hints,
 * not the parent's, copied at the call (the info may be freed at once). */
static void idup_with_info(void) {
  MPI_Info info, got;
  MPI_Comm parent, d;
  MPI_Request r;
  char value[MPI_MAX_INFO_VAL];
  int flag, nkeys, result;
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "lapis_note", "parent"));
  CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &parent));
  CHECK_OK(MPI_Info_set(info, "lapis_note", "child"));
  CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  CHECK_OK(MPI_Comm_idup_with_info(parent, info, &d, &r));
  CHECK_OK(MPI_Info_free(&info));
  CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_OK(MPI_Comm_compare(d, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT);
  CHECK_OK(MPI_Comm_get_info(d, &got));
  CHECK_OK(MPI_Info_get_nkeys(got, &nkeys));
  CHECK_OK(MPI_Info_get(got, "lapis_note", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(nkeys == 3 && flag && !strcmp(value, "child"));  /* + mpi_memory_alloc_kinds */
  CHECK_OK(MPI_Info_free(&got));
  int sum = 0;
  CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d));
  CHECK(sum == size * (size - 1) / 2);
  CHECK_OK(MPI_Comm_free(&d));
  CHECK_OK(MPI_Comm_free(&parent));
  CHECK_CLASS(MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)7, &d, &r), MPI_ERR_INFO);
  CHECK_CLASS(MPI_Comm_idup_with_info(MPI_COMM_NULL, MPI_INFO_ENV, &d, &r), MPI_ERR_COMM);
}

/* MPI_Comm_disconnect: work still in flight on the communicator (a send
 * whose request was freed, a freed nonblocking barrier) finishes, then the
 * communicator is freed and the handle set to MPI_COMM_NULL. */
static void disconnect(void) {
  enum { N = 1 << 16 }; /* above the eager limit: a rendezvous send */
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int* out = malloc(N * sizeof(int));
  int* in = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) out[i] = rank + i;
  MPI_Request s, b;
  CHECK_OK(MPI_Isend(out, N, MPI_INT, right, 5, d, &s));
  CHECK_OK(MPI_Request_free(&s));
  CHECK_OK(MPI_Recv(in, N, MPI_INT, left, 5, d, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; i += 997) CHECK(in[i] == left + i);
  CHECK_OK(MPI_Ibarrier(d, &b));
  CHECK_OK(MPI_Request_free(&b));
  CHECK_OK(MPI_Comm_disconnect(&d));
  CHECK(d == MPI_COMM_NULL);
  free(out);
  free(in);
  MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;
  CHECK_CLASS(MPI_Comm_disconnect(&world), MPI_ERR_COMM);
  CHECK(world == MPI_COMM_WORLD);
  CHECK_CLASS(MPI_Comm_disconnect(&null), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_disconnect(NULL), MPI_ERR_ARG);
}

static void split_type(void) {
  /* One host: SHARED is everyone, in key order. */
  MPI_Comm c;
  int n, r;
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c));
  CHECK_OK(MPI_Comm_size(c, &n));
  CHECK_OK(MPI_Comm_rank(c, &r));
  CHECK(n == size && r == size - 1 - rank);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
  CHECK(c == MPI_COMM_NULL);
  /* HW_GUIDED with shared memory named: the host; with another resource: none. */
  MPI_Info info;
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
  CHECK_OK(MPI_Comm_size(c, &n));
  CHECK(n == size);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://Bogus"));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
  CHECK(c == MPI_COMM_NULL);
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
  CHECK(c == MPI_COMM_NULL);
  /* RESOURCE_GUIDED (MPI 4.1): by process set, or by hardware as HW_GUIDED. */
  MPI_Info rg;
  CHECK_OK(MPI_Info_create(&rg));
  CHECK_OK(MPI_Info_set(rg, "mpi_pset_name", "mpi://WORLD"));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, -rank, rg, &c));
  CHECK_OK(MPI_Comm_size(c, &n));
  CHECK_OK(MPI_Comm_rank(c, &r));
  CHECK(n == size && r == size - 1 - rank);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Info_set(rg, "mpi_pset_name", "mpi://self"));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, rg, &c));
  CHECK_OK(MPI_Comm_size(c, &n));
  CHECK(n == 1);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Info_set(rg, "mpi_pset_name", "app://nothing"));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, rg, &c));
  CHECK(c == MPI_COMM_NULL);
  CHECK_OK(MPI_Info_delete(rg, "mpi_pset_name"));
  CHECK_OK(MPI_Info_set(rg, "mpi_hw_resource_type", "hwloc://Machine"));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, rg, &c));
  CHECK_OK(MPI_Comm_size(c, &n));
  CHECK(n == size);
  CHECK_OK(MPI_Comm_free(&c));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, MPI_INFO_NULL, &c));
  CHECK(c == MPI_COMM_NULL);
  CHECK_OK(MPI_Info_free(&rg));
  CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);
  CHECK_OK(MPI_Info_free(&info));
}

/* This rank's CPUs (its binding), as a bit mask of the first 64. */
static unsigned long long my_cpus(int* count) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
  unsigned long long mask = 0;
  for (int cpu = 0; cpu < 64; ++cpu) {
    if (CPU_ISSET(cpu, &set)) mask |= 1ull << cpu;
  }
  *count = CPU_COUNT(&set);
  return mask;
}

enum { kMaxTypes = 16 };

/* HW_UNGUIDED splits at the coarsest level where comm falls apart: on one
 * host, the first type (hw's order, coarse to fine) whose HW_GUIDED split
 * is smaller than the world somewhere and not empty everywhere; it gives
 * that split and names the type in the info passed in and the new
 * communicator's. No such type: MPI_COMM_NULL, the info untouched. */
static void hw_unguided(MPI_Info hw, int ntypes, const int* members_at) {
  int largest[kMaxTypes];
  CHECK_OK(MPI_Allreduce(members_at, largest, ntypes, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  char expected[MPI_MAX_INFO_KEY + 1] = "";
  for (int k = 0; k < ntypes && expected[0] == 0; ++k) {
    if (largest[k] > 0 && largest[k] < size) CHECK_OK(MPI_Info_get_nthkey(hw, k, expected));
  }
  MPI_Info asked, used;
  MPI_Comm c, guided = MPI_COMM_NULL;
  char value[MPI_MAX_INFO_VAL + 1];
  int len = sizeof value, flag = 0;
  CHECK_OK(MPI_Info_create(&asked));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, asked, &c));
  CHECK_OK(MPI_Info_get_string(asked, "mpi_hw_resource_type", &len, value, &flag));
  if (expected[0] != 0) {
    MPI_Info by_type;
    CHECK_OK(MPI_Info_create(&by_type));
    CHECK_OK(MPI_Info_set(by_type, "mpi_hw_resource_type", expected));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, by_type, &guided));
    CHECK_OK(MPI_Info_free(&by_type));
  }
  CHECK((c == MPI_COMM_NULL) == (guided == MPI_COMM_NULL));
  if (c != MPI_COMM_NULL) {
    int result = MPI_UNEQUAL;
    CHECK_OK(MPI_Comm_compare(c, guided, &result));
    CHECK(result == MPI_CONGRUENT);
    CHECK(flag && strcmp(value, expected) == 0);
    CHECK_OK(MPI_Comm_get_info(c, &used));
    len = sizeof value;
    CHECK_OK(MPI_Info_get_string(used, "mpi_hw_resource_type", &len, value, &flag));
    CHECK(flag && strcmp(value, expected) == 0);
    CHECK_OK(MPI_Info_free(&used));
    CHECK_OK(MPI_Comm_free(&c));
    CHECK_OK(MPI_Comm_free(&guided));
  } else {
    CHECK(!flag);
  }
  CHECK_OK(MPI_Info_free(&asked));
  CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
  CHECK((c == MPI_COMM_NULL) == (expected[0] == 0));
  if (c != MPI_COMM_NULL) CHECK_OK(MPI_Comm_free(&c));
}

/* MPI 4.1's MPI_Get_hw_resource_info, and HW_GUIDED by each type it names:
 * "true" (all this rank's CPUs in one resource of the type) gives the ranks
 * in the same resource, which include every rank bound exactly as this one;
 * "false" gives MPI_COMM_NULL. Whether a type is "true" is checked here
 * without the library where it can be: the machine (one host) always, a
 * hardware thread when bound to one CPU; and the split by hardware thread
 * gives exactly the ranks bound to this rank's CPU. */
static void hw_resources(void) {
  MPI_Info hw;
  CHECK_OK(MPI_Get_hw_resource_info(&hw));
  int nkeys = 0, ncpus = 0, saw_machine = 0, saw_pu = 0;
  const unsigned long long mine = my_cpus(&ncpus);
  unsigned long long* all = malloc(sizeof *all * (size_t)size);
  CHECK_OK(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG,
                         MPI_COMM_WORLD));
  CHECK_OK(MPI_Info_get_nkeys(hw, &nkeys));
  CHECK(nkeys >= 2);
  int members_at[kMaxTypes] = {0}; /* size of this rank's HW_GUIDED split by each type */
  MPI_Info split;
  CHECK_OK(MPI_Info_create(&split));
  for (int k = 0; k < nkeys; ++k) {
    char key[MPI_MAX_INFO_KEY + 1], value[8];
    int len = sizeof value, flag = 0;
    CHECK_OK(MPI_Info_get_nthkey(hw, k, key));
    CHECK_OK(MPI_Info_get_string(hw, key, &len, value, &flag));
    CHECK(flag && strncmp(key, "hwloc://", 8) == 0);
    const int restricted = strcmp(value, "true") == 0;
    CHECK(restricted || strcmp(value, "false") == 0);
    if (strcmp(key, "hwloc://Machine") == 0) {
      saw_machine = 1;
      CHECK(restricted);
    }
    if (strcmp(key, "hwloc://PU") == 0) {
      saw_pu = 1;
      CHECK(restricted == (ncpus == 1));
    }
    /* Every rank lists the same types (one host), in the same order. */
    MPI_Comm c;
    CHECK_OK(MPI_Info_set(split, "mpi_hw_resource_type", key));
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, split, &c));
    CHECK((c != MPI_COMM_NULL) == restricted);
    if (c == MPI_COMM_NULL) continue;
    int n = 0, twins = 0, twins_in = 0;
    CHECK_OK(MPI_Comm_size(c, &n));
    for (int r = 0; r < size; ++r) twins += all[r] == mine;
    int* members = malloc(sizeof *members * (size_t)n);
    CHECK_OK(MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, c));
    for (int i = 0; i < n; ++i) twins_in += all[members[i]] == mine;
    CHECK(twins_in == twins);
    if (strcmp(key, "hwloc://Machine") == 0) CHECK(n == size);
    if (strcmp(key, "hwloc://PU") == 0) CHECK(n == twins);
    if (k < kMaxTypes) members_at[k] = n;
    free(members);
    CHECK_OK(MPI_Comm_free(&c));
  }
  CHECK(saw_machine && saw_pu);
  CHECK_OK(MPI_Info_free(&split));
  hw_unguided(hw, nkeys < kMaxTypes ? nkeys : kMaxTypes, members_at);
  CHECK_OK(MPI_Info_free(&hw));
  free(all);
  CHECK_CLASS(MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG);
}

static void infos(void) {
  MPI_Info info, got;
  char value[MPI_MAX_INFO_VAL];
  int flag, nkeys;
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_Comm d;
  CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
  CHECK_OK(MPI_Info_free(&info));
  CHECK_OK(MPI_Comm_get_info(d, &got));
  CHECK_OK(MPI_Info_get(got, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(flag && !strcmp(value, "true"));
  CHECK_OK(MPI_Info_free(&got));
  /* set_info adds; dup keeps the hints; the communicator works. */
  CHECK_OK(MPI_Info_create(&info));
  CHECK_OK(MPI_Info_set(info, "lapis_note", "x"));
  CHECK_OK(MPI_Comm_set_info(d, info));
  CHECK_OK(MPI_Info_free(&info));
  MPI_Comm d2;
  CHECK_OK(MPI_Comm_dup(d, &d2));
  CHECK_OK(MPI_Comm_get_info(d2, &got));
  CHECK_OK(MPI_Info_get_nkeys(got, &nkeys));
  CHECK(nkeys == 3);  /* two hints, and the memory kinds */
  CHECK_OK(MPI_Info_free(&got));
  int sum = 0;
  CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d2));
  CHECK(sum == size * (size - 1) / 2);
  CHECK_OK(MPI_Comm_free(&d2));
  CHECK_OK(MPI_Comm_free(&d));
  /* No hints: only MPI 4.1's memory kinds. */
  CHECK_OK(MPI_Comm_get_info(MPI_COMM_WORLD, &got));
  CHECK_OK(MPI_Info_get_nkeys(got, &nkeys));
  CHECK_OK(MPI_Info_get(got, "mpi_memory_alloc_kinds", MPI_MAX_INFO_VAL - 1, value, &flag));
  CHECK(nkeys == 1 && flag && !strcmp(value, "mpi,system"));
  CHECK_OK(MPI_Info_free(&got));
}

static int copies, deletes;
static int copy_fn(MPI_Datatype t, int key, void* extra, void* in, void* out, int* flag) {
  (void)t;
  (void)key;
  CHECK(extra == &copies);
  ++copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_fn(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t;
  (void)key;
  (void)value;
  (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static int allow_type_delete = 1, type_deletes_seen;
static int failing_type_copy(MPI_Datatype t, int key, void* extra, void* in, void* out, int* flag) {
  (void)t, (void)key, (void)extra, (void)in, (void)out;
  *flag = 0;
  return MPI_ERR_OTHER;
}
static int flagged_type_delete(MPI_Datatype t, int key, void* value, void* extra) {
  (void)t, (void)key, (void)value, (void)extra;
  ++type_deletes_seen;
  return allow_type_delete ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static void type_attributes(void) {
  int key, key2;
  static char anchor[8];
  MPI_Datatype t, t2;
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t));
  CHECK_OK(MPI_Type_create_keyval(copy_fn, delete_fn, &key, &copies));
  CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &key2, NULL));
  CHECK(key != key2);
  CHECK_OK(MPI_Type_set_attr(t, key, anchor));
  CHECK_OK(MPI_Type_set_attr(t, key2, anchor + 4));
  void* v = NULL;
  int flag = 0;
  CHECK_OK(MPI_Type_get_attr(t, key, &v, &flag));
  CHECK(flag && v == anchor);
  /* Dup: key's copy callback runs, key2 (null copy) is not copied. */
  CHECK_OK(MPI_Type_dup(t, &t2));
  CHECK(copies == 1);
  CHECK_OK(MPI_Type_get_attr(t2, key, &v, &flag));
  CHECK(flag && v == anchor + 1);
  CHECK_OK(MPI_Type_get_attr(t2, key2, &v, &flag));
  CHECK(!flag);
  /* Replacing a value deletes the old one; delete_attr; free deletes the rest. */
  CHECK_OK(MPI_Type_set_attr(t, key, anchor + 2));
  CHECK(deletes == 1);
  CHECK_OK(MPI_Type_delete_attr(t, key));
  CHECK(deletes == 2);
  CHECK_OK(MPI_Type_get_attr(t, key, &v, &flag));
  CHECK(!flag);
  CHECK_OK(MPI_Type_free(&t2));
  CHECK(deletes == 3);
  /* Attributes on a predefined type; a freed keyval's values still go. */
  const int saved = key;
  CHECK_OK(MPI_Type_set_attr(MPI_INT, key, anchor));
  CHECK_OK(MPI_Type_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  CHECK_CLASS(MPI_Type_set_attr(MPI_INT, saved, anchor), MPI_ERR_KEYVAL);
  CHECK_OK(MPI_Type_delete_attr(MPI_INT, saved));
  CHECK(deletes == 4);
  CHECK_OK(MPI_Type_free(&t));
  CHECK_OK(MPI_Type_free_keyval(&key2));
  /* Callbacks that fail (MPICH's attrerrtype): a delete that fails keeps the value (set_attr
   * and delete_attr return the error); a copy that fails fails MPI_Type_dup, which leaves no
   * type (MPI_DATATYPE_NULL); MPI_Type_free runs the delete once it succeeds. */
  int bomb;
  CHECK_OK(MPI_Type_create_keyval(failing_type_copy, flagged_type_delete, &bomb, NULL));
  CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &t2));
  CHECK_OK(MPI_Type_set_attr(t2, bomb, anchor));
  MPI_Errhandler old_errh;
  CHECK_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &old_errh));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  allow_type_delete = 0;
  CHECK(MPI_Type_set_attr(t2, bomb, anchor + 1) != MPI_SUCCESS);
  CHECK(MPI_Type_delete_attr(t2, bomb) != MPI_SUCCESS);
  CHECK_OK(MPI_Type_get_attr(t2, bomb, &v, &flag));
  CHECK(flag && v == anchor);
  MPI_Datatype t3 = MPI_INT;
  CHECK(MPI_Type_dup(t2, &t3) != MPI_SUCCESS);
  CHECK(t3 == MPI_DATATYPE_NULL);
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, old_errh));
  CHECK_OK(MPI_Errhandler_free(&old_errh));
  allow_type_delete = 1;
  type_deletes_seen = 0;
  CHECK_OK(MPI_Type_free(&t2));
  CHECK(type_deletes_seen == 1);
  /* Freed twice through two copies of its number while a value holds it (MPICH's
   * keyval_double_free_type), as for communicators. */
  int bomb_copy = bomb;
  CHECK_OK(MPI_Type_free_keyval(&bomb));
  CHECK_OK(MPI_Type_free_keyval(&bomb_copy));
  /* Window keyvals exist (no windows yet). */
  int wkey;
  CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wkey, NULL));
  CHECK_OK(MPI_Win_free_keyval(&wkey));
  CHECK(wkey == MPI_KEYVAL_INVALID);
}

static void user_errors(void) {
  int cls, code, cls2, last, flag, len, got;
  int* attr;
  char text[MPI_MAX_ERROR_STRING];
  CHECK_OK(MPI_Add_error_class(&cls));
  CHECK(cls > MPICH_ERR_LAST_CLASS);
  CHECK_OK(MPI_Add_error_code(cls, &code));
  CHECK(code != cls);
  CHECK_OK(MPI_Add_error_code(MPI_ERR_ARG, &cls2));
  CHECK_OK(MPI_Error_class(cls2, &got));
  CHECK(got == MPI_ERR_ARG);
  CHECK_OK(MPI_Add_error_string(code, "my own failure"));
  CHECK_OK(MPI_Error_class(code, &got));
  CHECK(got == cls);
  CHECK_OK(MPI_Error_string(code, text, &len));
  CHECK(!strcmp(text, "my own failure") && len == 14);
  CHECK_OK(MPI_Error_string(cls, text, &len));
  CHECK(len == 0);
  CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &flag));
  last = *attr;
  CHECK(flag && last >= code && last >= cls2);
  /* A user handler sees the program's own code. */
  CHECK_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
  CHECK_CLASS(code, cls);

  /* MPI 4.1's removal: a string, then the codes, then their class. */
  CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG); /* its code is still there */
  CHECK_CLASS(MPI_Remove_error_code(cls), MPI_ERR_ARG);  /* a class, not a code */
  CHECK_CLASS(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG);  /* predefined */
  CHECK_CLASS(MPI_Remove_error_code(MPI_ERR_ARG), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Remove_error_string(MPI_ERR_ARG), MPI_ERR_ARG);
  CHECK_OK(MPI_Remove_error_string(code));
  CHECK_OK(MPI_Error_string(code, text, &len));
  CHECK(len == 0);
  CHECK_OK(MPI_Remove_error_code(code));
  CHECK_CLASS(MPI_Error_class(code, &got), MPI_ERR_ARG);  /* gone */
  CHECK_CLASS(MPI_Remove_error_code(code), MPI_ERR_ARG);  /* twice */
  CHECK_OK(MPI_Remove_error_class(cls));
  CHECK_CLASS(MPI_Add_error_code(cls, &got), MPI_ERR_ARG);
  CHECK_OK(MPI_Remove_error_code(cls2));  /* a code of a predefined class */
  /* Numbers are not handed out again. */
  CHECK_OK(MPI_Add_error_class(&got));
  CHECK(got > last);
  /* MPICH 4.0's names of the same calls (its binaries use them). */
  CHECK_OK(MPI_Add_error_code(got, &code));
  CHECK_OK(MPI_Add_error_string(code, "again"));
  CHECK_OK(MPIX_Delete_error_string(code));
  CHECK_OK(MPIX_Delete_error_code(code));
  CHECK_OK(MPIX_Delete_error_class(got));
  CHECK_CLASS(MPIX_Delete_error_class(got), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Delete_error_code(code), MPI_ERR_ARG);  /* gone already */
  CHECK_CLASS(MPIX_Delete_error_string(MPI_ERR_ARG), MPI_ERR_ARG);  /* predefined */
  CHECK_CLASS(MPIX_Delete_error_code(MPI_ERR_OTHER), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Delete_error_string(code), MPI_ERR_ARG);
}

static int query_calls, free_calls, cancel_calls;
static int g_query(void* extra, MPI_Status* st) {
  ++query_calls;
  MPI_Status_set_elements(st, MPI_INT, *(int*)extra);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = 99;
  return MPI_SUCCESS;
}
static int g_free(void* extra) {
  (void)extra;
  ++free_calls;
  return MPI_SUCCESS;
}
static int g_cancel(void* extra, int complete) {
  (void)extra;
  CHECK(!complete);
  ++cancel_calls;
  return MPI_SUCCESS;
}

static void grequests(void) {
  int n = 5, flag = 1, count;
  MPI_Request r;
  MPI_Status st;
  CHECK_OK(MPI_Grequest_start(g_query, g_free, g_cancel, &n, &r));
  CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  CHECK(!flag && r != MPI_REQUEST_NULL);
  CHECK_OK(MPI_Cancel(&r));
  CHECK(cancel_calls == 1);
  CHECK_OK(MPI_Grequest_complete(r));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL && query_calls == 1 && free_calls == 1);
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 5 && st.MPI_TAG == 99);
  /* Among other requests in Waitall; freed without waiting. */
  MPI_Request rs[2];
  int x = rank, y = -1;
  CHECK_OK(MPI_Grequest_start(g_query, g_free, NULL, &n, &rs[0]));
  CHECK_OK(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &rs[1]));
  CHECK_OK(MPI_Grequest_complete(rs[0]));
  CHECK_OK(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
  CHECK(y == rank && free_calls == 2);
  CHECK_OK(MPI_Grequest_start(NULL, g_free, NULL, NULL, &r));
  CHECK_OK(MPI_Grequest_complete(r));
  CHECK_OK(MPI_Request_free(&r));
  CHECK(free_calls == 3);
}

static void isendrecv(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
  MPI_Request r;
  MPI_Status st;
  CHECK_OK(MPI_Isendrecv(out, 3, MPI_INT, right, 7, in, 3, MPI_INT, left, 7, MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(in[0] == left && in[1] == left * 2 && in[2] == left * 3);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7);
  int count;
  CHECK_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 3);
  /* Replace, with a derived type, polled by MPI_Test, beside a nonblocking collective. */
  MPI_Datatype every_other;
  CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other));
  CHECK_OK(MPI_Type_commit(&every_other));
  int buf[5] = {rank, -7, rank + 10, -7, rank + 20};
  MPI_Request b;
  int token = rank, sum = 0;
  CHECK_OK(MPI_Iallreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &b));
  CHECK_OK(MPI_Isendrecv_replace(buf, 1, every_other, right, 8, left, 8, MPI_COMM_WORLD, &r));
  int flag = 0;
  while (!flag) CHECK_OK(MPI_Test(&r, &flag, &st));
  CHECK_OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
  CHECK(buf[0] == left && buf[2] == left + 10 && buf[4] == left + 20);
  CHECK(buf[1] == -7 && buf[3] == -7);
  CHECK(st.MPI_SOURCE == left && sum == size * (size - 1) / 2);
  CHECK_OK(MPI_Type_free(&every_other));
  /* MPI_PROC_NULL on both sides. */
  CHECK_OK(MPI_Isendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 0, in, 1, MPI_INT, MPI_PROC_NULL, 0,
                         MPI_COMM_WORLD, &r));
  CHECK_OK(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
}

static void bad_input(void) {
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Group g;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Request r = MPI_REQUEST_NULL;
  int k = 0, x = 0, flag;
  void* v;
  CHECK_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
  CHECK_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c), MPI_ERR_GROUP);
  CHECK_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, g, -1, &c), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, (MPI_Info)7, &c),
              MPI_ERR_INFO);
  CHECK_CLASS(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)7, &c), MPI_ERR_INFO);
  CHECK_CLASS(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL), MPI_ERR_INFO);
  CHECK_CLASS(MPI_Comm_get_info(MPI_COMM_NULL, &info), MPI_ERR_COMM);
  CHECK(c == MPI_COMM_NULL && info == MPI_INFO_NULL);
  CHECK_CLASS(MPI_Type_set_attr(MPI_INT, 12345, NULL), MPI_ERR_KEYVAL);
  CHECK_CLASS(MPI_Type_get_attr(MPI_DATATYPE_NULL, 12345, &v, &flag), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_free_keyval(&k), MPI_ERR_KEYVAL);
  CHECK_CLASS(MPI_Type_create_keyval(NULL, NULL, NULL, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Win_free_keyval(&k), MPI_ERR_KEYVAL);
  CHECK_CLASS(MPI_Add_error_code(100000, &k), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Add_error_class(NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Grequest_start(NULL, NULL, NULL, NULL, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Isendrecv_replace(&x, -1, MPI_INT, 0, 0, 0, 0, MPI_COMM_WORLD, &r),
              MPI_ERR_COUNT);
  CHECK(r == MPI_REQUEST_NULL);
  CHECK_OK(MPI_Group_free(&g));
}

int main(int argc, char** argv) {
  CHECK_OK(MPI_Init(&argc, &argv));
  CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_OK(MPI_Pcontrol(1));
  CHECK_OK(MPI_Pcontrol(0, "extra", 3));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  create_group();
  idup();
  idup_with_info();
  disconnect();
  split_type();
  hw_resources();
  infos();
  type_attributes();
  user_errors();
  grequests();
  isendrecv();
  bad_input();
  CHECK_OK(MPI_Finalize());
  printf("OK\n");
  return 0;
}
