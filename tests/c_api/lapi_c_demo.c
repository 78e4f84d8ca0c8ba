/*
 * A LAPI program in plain C, run as N tasks under lapirun by
 * lapi_c_multirank_test. Every task talks to its neighbours and to task 0;
 * any failed check prints the reason and exits 1.
 *
 *   lapi_c_demo --expect-tasks N [--polling]
 *
 * Covers: Init/Qenv, Amsend with header + completion handlers named by
 * LAPI_Addr_set index, by a handler address exchanged with
 * LAPI_Address_init, and by the task's own handler address; zero-byte and
 * rendezvous-sized messages; Put/Get with target, origin and completion
 * counters into registered memory; Rmw/Rmw64 including LAPI's boolean
 * COMPARE_AND_SWAP; Fence ordering; Gfence; a second handle; Term.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapi/lapi.h"

int lapi_h_c11_check(void);

enum { kAmIndex = 5, kAmIndex2 = 7, kMagic = 0x1abcdef, kBigMsg = 256 * 1024 };
/* region: one Put slot per task (at most 64 tasks), then one int per task for the Fence test */
enum { kMaxTasks = 64, kSlotInts = 16, kFenceBase = kMaxTasks * kSlotInts, kRegionInts = kFenceBase + kMaxTasks };
enum { kSeqSmall, kSeqBig, kSeqExchangedAddr, kSeqOwnAddr, kSeqEmpty, kSeqCount };

typedef struct {
  int magic;
  int src;
  int len;
  int seq;
} demo_uhdr_t;

typedef struct {
  int seq;
  int src;
  int len;
  int ok;
} recv_info_t;

static lapi_handle_t g_hndl;
static int g_me = -1;
static int g_header_errors;
static recv_info_t g_recv[kSeqCount];
static unsigned char g_landing[kSeqCount][kBigMsg];

static void die(const char *what, int rc) {
  char msg[LAPI_MAX_ERR_STRING];
  LAPI_Msg_string(rc, msg);
  fprintf(stderr, "lapi_c_demo: task %d: FAILED %s (rc=%d: %s)\n", g_me, what, rc, msg);
  exit(1);
}

static void check(int rc, const char *what) {
  if (rc != LAPI_SUCCESS) die(what, rc);
}

static void expect(int cond, const char *what) {
  if (!cond) {
    fprintf(stderr, "lapi_c_demo: task %d: FAILED %s\n", g_me, what);
    exit(1);
  }
}

static unsigned char pattern(int src, int seq, long i) { return (unsigned char)(src * 31 + seq * 7 + i); }

static int msg_len_of(int seq) {
  switch (seq) {
    case kSeqBig: return kBigMsg;
    case kSeqEmpty: return 0;
    default: return 64;
  }
}

/* ---- Active-message handlers ------------------------------------------- */

static void on_complete(lapi_handle_t *hndl, void *param) {
  recv_info_t *r = (recv_info_t *)param;
  int ok = *hndl == g_hndl;
  long i;
  for (i = 0; i < r->len && ok; ++i) ok = g_landing[r->seq][i] == pattern(r->src, r->seq, i);
  r->ok = ok;
}

/* One body, three names: each is reached by a different hdr_hdl path. */
static void *accept_message(lapi_handle_t *hndl, void *uhdr, unsigned int *uhdr_len,
                            unsigned long *msg_len, compl_hndlr_t **comp_h, void **uinfo) {
  const lapi_return_info_t *ret = (const lapi_return_info_t *)msg_len;
  demo_uhdr_t h;
  if (*uhdr_len != sizeof h || *hndl != g_hndl) {
    ++g_header_errors;
    return NULL;
  }
  memcpy(&h, uhdr, sizeof h);
  if (h.magic != kMagic || h.seq < 0 || h.seq >= kSeqCount || ret->MAGIC != LAPIS_RETURN_INFO_MAGIC ||
      ret->src != h.src || *msg_len != (unsigned long)h.len || h.len != msg_len_of(h.seq)) {
    ++g_header_errors;
    return NULL;
  }
  g_recv[h.seq].seq = h.seq;
  g_recv[h.seq].src = h.src;
  g_recv[h.seq].len = h.len;
  *comp_h = on_complete;
  *uinfo = &g_recv[h.seq];
  return h.len > 0 ? g_landing[h.seq] : NULL;
}

static void *on_header_by_index(lapi_handle_t *hndl, void *uhdr, unsigned int *uhdr_len,
                                unsigned long *msg_len, compl_hndlr_t **comp_h, void **uinfo) {
  return accept_message(hndl, uhdr, uhdr_len, msg_len, comp_h, uinfo);
}

static void *on_header_exchanged(lapi_handle_t *hndl, void *uhdr, unsigned int *uhdr_len,
                                 unsigned long *msg_len, compl_hndlr_t **comp_h, void **uinfo) {
  return accept_message(hndl, uhdr, uhdr_len, msg_len, comp_h, uinfo);
}

static void *on_header_own_addr(lapi_handle_t *hndl, void *uhdr, unsigned int *uhdr_len,
                                unsigned long *msg_len, compl_hndlr_t **comp_h, void **uinfo) {
  return accept_message(hndl, uhdr, uhdr_len, msg_len, comp_h, uinfo);
}

/* A zero-byte message that only bumps the target counter (Fence test). */
static void *on_header_ping(lapi_handle_t *hndl, void *uhdr, unsigned int *uhdr_len,
                            unsigned long *msg_len, compl_hndlr_t **comp_h, void **uinfo) {
  (void)hndl; (void)uhdr; (void)uhdr_len; (void)msg_len; (void)comp_h; (void)uinfo;
  return NULL;
}

/* ---- Test steps --------------------------------------------------------- */

typedef struct {
  int me, n, left, right;
  lapi_cntr_t org, cmpl; /* origin-side counters; the target counter is g_tgt_cntr */
  void *cntr_tab[kMaxTasks];
} world_t;

static lapi_cntr_t g_tgt_cntr;

static void check_env(world_t *w, int expect_tasks, int polling) {
  int v = -1;
  check(LAPI_Qenv(g_hndl, TASK_ID, &w->me), "Qenv TASK_ID");
  check(LAPI_Qenv(g_hndl, NUM_TASKS, &w->n), "Qenv NUM_TASKS");
  g_me = w->me;
  expect(w->n == expect_tasks, "NUM_TASKS matches lapirun -n");
  expect(w->me >= 0 && w->me < w->n, "TASK_ID in range");
  expect(w->n <= kMaxTasks, "at most 64 tasks");
  check(LAPI_Qenv(g_hndl, INTERRUPT_SET, &v), "Qenv INTERRUPT_SET");
  expect(v == (polling ? 0 : 1), "interrupt mode is the default, LAPI_INTERRUPT_OFF turns it off");
  check(LAPI_Qenv(g_hndl, LOC_ADDRTBL_SZ, &v), "Qenv LOC_ADDRTBL_SZ");
  expect(v == LAPIS_ADDRTBL_SZ, "LOC_ADDRTBL_SZ");
  check(LAPI_Qenv(g_hndl, MAX_UHDR_SZ, &v), "Qenv MAX_UHDR_SZ");
  expect(v >= (int)sizeof(demo_uhdr_t) && v % 4 == 0, "MAX_UHDR_SZ usable and word aligned");
  w->left = (w->me + w->n - 1) % w->n;
  w->right = (w->me + 1) % w->n;
}

static void send_am(world_t *w, void *hdr_hdl, int seq, unsigned char *buf) {
  demo_uhdr_t h;
  long i;
  h.magic = kMagic;
  h.src = w->me;
  h.len = msg_len_of(seq);
  h.seq = seq;
  for (i = 0; i < h.len; ++i) buf[i] = pattern(w->me, seq, i);
  check(LAPI_Amsend(g_hndl, (unsigned)w->right, hdr_hdl, &h, sizeof h, h.len > 0 ? buf : NULL,
                    (unsigned long)h.len, (lapi_cntr_t *)w->cntr_tab[w->right], &w->org, &w->cmpl),
        "Amsend");
}

static void active_messages(world_t *w) {
  static unsigned char out[kSeqCount][kBigMsg];
  void *handler_tab[kMaxTasks];
  int seq, cur = -1;

  check(LAPI_Addr_set(g_hndl, (void *)on_header_by_index, kAmIndex), "Addr_set");
  check(LAPIS_Hdr_hndlr_register(g_hndl, on_header_own_addr), "Hdr_hndlr_register");
  /* IBM's way: exchange the handler's address; also a barrier for Addr_set. */
  check(LAPI_Address_init(g_hndl, (void *)on_header_exchanged, handler_tab), "Address_init handler");
  check(LAPI_Gfence(g_hndl), "Gfence after Addr_set");

  send_am(w, (void *)(long)kAmIndex, kSeqSmall, out[kSeqSmall]);
  send_am(w, (void *)(long)kAmIndex, kSeqBig, out[kSeqBig]);
  send_am(w, handler_tab[w->right], kSeqExchangedAddr, out[kSeqExchangedAddr]);
  send_am(w, (void *)on_header_own_addr, kSeqOwnAddr, out[kSeqOwnAddr]);
  send_am(w, (void *)(long)kAmIndex, kSeqEmpty, out[kSeqEmpty]);

  check(LAPI_Waitcntr(g_hndl, &w->org, kSeqCount, &cur), "Waitcntr org");
  expect(cur == 0, "Waitcntr subtracts the value it waited for");
  check(LAPI_Waitcntr(g_hndl, &w->cmpl, kSeqCount, NULL), "Waitcntr cmpl");
  check(LAPI_Waitcntr(g_hndl, &g_tgt_cntr, kSeqCount, NULL), "Waitcntr tgt");
  expect(g_header_errors == 0, "header handlers saw the right uhdr, msg_len, src and handle");
  for (seq = 0; seq < kSeqCount; ++seq) {
    expect(g_recv[seq].src == w->left, "message came from the left neighbour");
    expect(g_recv[seq].ok, "completion handler ran and the data arrived intact");
  }
  /* The next phase bumps g_tgt_cntr again: nobody starts it before all counted this one. */
  check(LAPI_Gfence(g_hndl), "Gfence after active messages");
}

static void put_get(world_t *w, int *region, void **region_tab) {
  int mine[kSlotInts], back[kSlotInts], i;
  int *right_region = (int *)region_tab[w->right];
  for (i = 0; i < kSlotInts; ++i) mine[i] = w->me * 1000 + i;

  check(LAPI_Put(g_hndl, (unsigned)w->right, sizeof mine, right_region + w->me * kSlotInts, mine,
                 (lapi_cntr_t *)w->cntr_tab[w->right], &w->org, &w->cmpl),
        "Put");
  check(LAPI_Waitcntr(g_hndl, &w->org, 1, NULL), "Waitcntr org after Put");
  check(LAPI_Waitcntr(g_hndl, &w->cmpl, 1, NULL), "Waitcntr cmpl after Put");
  check(LAPI_Waitcntr(g_hndl, &g_tgt_cntr, 1, NULL), "Waitcntr tgt after Put");
  for (i = 0; i < kSlotInts; ++i) expect(region[w->left * kSlotInts + i] == w->left * 1000 + i, "Put data");

  memset(back, 0, sizeof back);
  check(LAPI_Get(g_hndl, (unsigned)w->right, sizeof back, right_region + w->me * kSlotInts, back,
                 (lapi_cntr_t *)w->cntr_tab[w->right], &w->org),
        "Get");
  check(LAPI_Waitcntr(g_hndl, &w->org, 1, NULL), "Waitcntr org after Get");
  check(LAPI_Waitcntr(g_hndl, &g_tgt_cntr, 1, NULL), "Waitcntr tgt after Get");
  expect(memcmp(back, mine, sizeof mine) == 0, "Get returns what Put wrote");
  check(LAPI_Gfence(g_hndl), "Gfence after Put/Get");
}

/* Data fence: the Put must be visible at the target before the later ping. */
static void fence(world_t *w, int *region, void **region_tab) {
  int *right_fence = (int *)region_tab[w->right] + kFenceBase;
  int value = 7000 + w->me;
  check(LAPI_Addr_set(g_hndl, (void *)on_header_ping, kAmIndex2), "Addr_set ping");
  check(LAPI_Gfence(g_hndl), "Gfence after Addr_set ping");
  check(LAPI_Put(g_hndl, (unsigned)w->right, sizeof value, right_fence + w->me, &value, NULL, NULL, NULL),
        "Put before Fence");
  check(LAPI_Fence(g_hndl), "Fence");
  check(LAPI_Amsend(g_hndl, (unsigned)w->right, (void *)(long)kAmIndex2, NULL, 0, NULL, 0,
                    (lapi_cntr_t *)w->cntr_tab[w->right], NULL, NULL),
        "Amsend after Fence");
  check(LAPI_Waitcntr(g_hndl, &g_tgt_cntr, 1, NULL), "Waitcntr ping");
  expect(region[kFenceBase + w->left] == 7000 + w->left, "Put before Fence landed before the ping");
}

static void rmw(world_t *w, int *vars, void **vars_tab, long long *vars64, void **vars64_tab) {
  int *v0 = (int *)vars_tab[0];
  long long *v64 = (long long *)vars64_tab[0];
  int add = w->me + 1, prev = -1, cas[2], won = -1, one = 1;
  long long bit = 1LL << (32 + w->me % 31), prev64 = -1, cas64[2];

  check(LAPI_Rmw(g_hndl, FETCH_AND_ADD, 0, &v0[0], &add, &prev, &w->org), "Rmw FETCH_AND_ADD");
  check(LAPI_Waitcntr(g_hndl, &w->org, 1, NULL), "Waitcntr Rmw");
  expect(prev >= 0 && prev < w->n * (w->n + 1) / 2, "FETCH_AND_ADD returns the old value");

  cas[0] = 0;
  cas[1] = w->me + 1;
  check(LAPI_Rmw(g_hndl, COMPARE_AND_SWAP, 0, &v0[1], cas, &won, &w->org), "Rmw COMPARE_AND_SWAP");
  check(LAPI_Waitcntr(g_hndl, &w->org, 1, NULL), "Waitcntr CAS");
  expect(won == 0 || won == 1, "COMPARE_AND_SWAP reports TRUE or FALSE");
  if (won) check(LAPI_Rmw(g_hndl, FETCH_AND_ADD, 0, &v0[2], &one, NULL, &w->org), "count winners");
  else check(LAPI_Setcntr(g_hndl, &w->org, 1), "Setcntr");
  check(LAPI_Waitcntr(g_hndl, &w->org, 1, NULL), "Waitcntr winners");

  check(LAPI_Rmw64(g_hndl, FETCH_AND_OR, 0, &v64[0], &bit, &prev64, &w->org), "Rmw64 FETCH_AND_OR");
  check(LAPI_Waitcntr(g_hndl, &w->org, 1, NULL), "Waitcntr Rmw64");
  check(LAPI_Gfence(g_hndl), "Gfence after Rmw");

  /* Nobody can match -1: every CAS now fails. */
  cas[0] = -1;
  cas[1] = 99;
  won = -1;
  check(LAPI_Rmw(g_hndl, COMPARE_AND_SWAP, 0, &v0[1], cas, &won, NULL), "Rmw failing CAS");
  expect(won == 0, "COMPARE_AND_SWAP with a stale compare value reports FALSE");
  cas64[0] = -5;
  cas64[1] = 5;
  check(LAPI_Rmw64(g_hndl, COMPARE_AND_SWAP, 0, &v64[1], cas64, &prev64, NULL), "Rmw64 CAS");
  expect(prev64 == 0, "Rmw64 COMPARE_AND_SWAP with a stale compare value reports FALSE");
  check(LAPI_Gfence(g_hndl), "Gfence after CAS");

  if (w->me == 0) {
    long long all = 0;
    int t;
    for (t = 0; t < w->n; ++t) all |= 1LL << (32 + t % 31);
    expect(vars[0] == w->n * (w->n + 1) / 2, "FETCH_AND_ADD sum");
    expect(vars[1] >= 1 && vars[1] <= w->n, "one CAS won");
    expect(vars[2] == 1, "exactly one COMPARE_AND_SWAP reported TRUE");
    if (vars64[0] != all) fprintf(stderr, "vars64[0]=%llx want %llx\n", vars64[0], all);
    expect(vars64[0] == all, "FETCH_AND_OR bits");
    expect(vars64[1] == 0, "failed Rmw64 CAS left the value");
  }
}

/* A second, independent handle next to the first. */
static void second_handle(world_t *w) {
  lapi_handle_t h2;
  lapi_info_t info;
  static lapi_cntr_t tgt2;
  lapi_cntr_t cmpl2;
  void *tab[kMaxTasks];
  int n2 = -1;
  memset(&info, 0, sizeof info);
  check(LAPI_Init(&h2, &info), "second LAPI_Init");
  expect(h2 != g_hndl, "two live handles differ");
  check(LAPI_Qenv(h2, NUM_TASKS, &n2), "Qenv on second handle");
  expect(n2 == w->n, "second handle sees the same tasks");
  check(LAPI_Setcntr(h2, &tgt2, 0), "Setcntr h2");
  check(LAPI_Setcntr(h2, &cmpl2, 0), "Setcntr cmpl h2");
  check(LAPI_Addr_set(h2, (void *)on_header_ping, 3), "Addr_set h2");
  check(LAPI_Address_init(h2, &tgt2, tab), "Address_init h2");
  check(LAPI_Amsend(h2, (unsigned)w->right, (void *)3L, NULL, 0, NULL, 0, (lapi_cntr_t *)tab[w->right],
                    NULL, &cmpl2),
        "Amsend on h2");
  check(LAPI_Waitcntr(h2, &cmpl2, 1, NULL), "Waitcntr cmpl h2");
  check(LAPI_Waitcntr(h2, &tgt2, 1, NULL), "Waitcntr tgt h2");
  check(LAPI_Term(h2), "Term h2");
  expect(LAPI_Qenv(h2, NUM_TASKS, &n2) == LAPI_ERR_HNDL_INVALID, "terminated handle is invalid");
}

static void error_text(world_t *w) {
  char msg[LAPI_MAX_ERR_STRING];
  int rc = LAPI_Amsend(g_hndl, (unsigned)w->n, (void *)(long)kAmIndex, NULL, 0, NULL, 0, NULL, NULL, NULL);
  expect(rc == LAPI_ERR_TGT, "Amsend to a task past the end fails with LAPI_ERR_TGT");
  check(LAPI_Msg_string(rc, msg), "Msg_string");
  expect(strstr(msg, "LAPI_ERR_TGT") != NULL && strstr(msg, "tgt=") != NULL,
         "Msg_string names the code and the argument");
}

int main(int argc, char **argv) {
  int expect_tasks = -1, polling = 0, exit_early = 0, i;
  lapi_info_t info;
  world_t w;
  static int vars[4];
  static long long vars64[2];
  int *region = NULL;
  void *region_tab[kMaxTasks], *vars_tab[kMaxTasks], *vars64_tab[kMaxTasks];

  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--polling") == 0) polling = 1;
    else if (strcmp(argv[i], "--expect-tasks") == 0 && i + 1 < argc) expect_tasks = atoi(argv[++i]);
    else if (strcmp(argv[i], "--exit-without-term") == 0) exit_early = 1;
  }
  expect(lapi_h_c11_check() == 0, "lapi.h compiled as strict C11");

  memset(&info, 0, sizeof info);
  if (polling) info.protocol = LAPI_INTERRUPT_OFF;
  check(LAPI_Init(&g_hndl, &info), "LAPI_Init");
  memset(&w, 0, sizeof w);
  check_env(&w, expect_tasks, polling);
  if (exit_early) {
    /* The last task leaves without LAPI_Term while the others wait for it in
     * a fence: lapirun must end the job rather than let them hang. */
    if (w.me == w.n - 1) exit(0);
    check(LAPI_Gfence(g_hndl), "Gfence");
    printf("NOT REACHED\n");
  }

  check(LAPI_Setcntr(g_hndl, &g_tgt_cntr, 3), "Setcntr");
  expect(g_tgt_cntr.cntr == 3, "lapi_cntr_t.cntr overlays the value");
  check(LAPI_Setcntr(g_hndl, &g_tgt_cntr, 0), "Setcntr tgt");
  check(LAPI_Setcntr(g_hndl, &w.org, 0), "Setcntr org");
  check(LAPI_Setcntr(g_hndl, &w.cmpl, 0), "Setcntr cmpl");
  check(LAPI_Address_init(g_hndl, &g_tgt_cntr, w.cntr_tab), "Address_init counters");

  check(LAPIS_Alloc_mem(g_hndl, kRegionInts * sizeof(int), (void **)&region), "Alloc_mem");
  memset(region, 0, kRegionInts * sizeof(int));
  check(LAPIS_Register_mem(g_hndl, vars, sizeof vars), "Register_mem vars");
  check(LAPIS_Register_mem(g_hndl, vars64, sizeof vars64), "Register_mem vars64");
  check(LAPI_Address_init(g_hndl, region, region_tab), "Address_init region");
  check(LAPI_Address_init(g_hndl, vars, vars_tab), "Address_init vars");
  check(LAPI_Address_init(g_hndl, vars64, vars64_tab), "Address_init vars64");

  active_messages(&w);
  put_get(&w, region, region_tab);
  fence(&w, region, region_tab);
  rmw(&w, vars, vars_tab, vars64, vars64_tab);
  second_handle(&w);
  error_text(&w);

  check(LAPI_Gfence(g_hndl), "final Gfence");
  check(LAPIS_Free_mem(g_hndl, region), "Free_mem");
  check(LAPI_Term(g_hndl), "LAPI_Term");
  expect(LAPI_Term(g_hndl) == LAPI_ERR_HNDL_INVALID, "second LAPI_Term fails");
  printf("lapi_c_demo: task %d of %d OK\n", w.me, w.n);
  return 0;
}
