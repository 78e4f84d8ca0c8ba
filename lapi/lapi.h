/*
 * lapi.h — Lapis' C API in the shape of IBM's LAPI.
 *
 * Names, types, constants and argument order follow IBM RSCT LAPI, so LAPI
 * programs port by recompiling. This header is plain C11 (and C++): it pulls
 * in no system header and spells IBM's `uint`/`ulong` as `unsigned int` /
 * `unsigned long` (same types, no dependence on _DEFAULT_SOURCE).
 *
 * What differs from IBM LAPI, and why:
 *  - Put, Get and Rmw may only touch memory the target registered
 *    (LAPIS_Register_mem or LAPIS_Alloc_mem): UCX needs registered memory
 *    for remote access, and a target refuses anything outside it.
 *  - A target counter (tgt_cntr) must have been passed to LAPI_Setcntr,
 *    LAPI_Getcntr or LAPI_Waitcntr on the same handle at the target before
 *    any task names it; that call registers it with the target's context.
 *    Naming an unregistered counter is refused (LAPI_ERR_NO_CNTR_REG).
 *  - LAPI_Rmw/LAPI_Rmw64 with COMPARE_AND_SWAP complete before returning
 *    (allowed: LAPI only promises "non-blocking"); the other ops are
 *    non-blocking as in LAPI.
 *  - Vector, DGSP, Xfer, Util, multicast and Nopoll_wait calls are not
 *    provided.
 *
 * Progress: as in IBM LAPI, a handle starts in interrupt mode (a library
 * thread makes progress while the application computes) unless
 * LAPI_INTERRUPT_OFF is ORed into lapi_info_t.protocol or LAPIS_MODE=polling
 * is set; LAPI_Senv(INTERRUPT_SET) switches later.
 */
#ifndef LAPIS_LAPI_H_
#define LAPIS_LAPI_H_

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Return codes (IBM LAPI numbering; Lapis' own from 530) ------------- */
#define LAPI_SUCCESS              (0)
#define LAPI_ERR_UNKNOWN          (400) /* internal or asynchronous error */
#define LAPI_ERR_ALL_HNDL_IN_USE  (401) /* no free LAPI handle */
#define LAPI_ERR_INFO_NULL        (405) /* lapi_info pointer is NULL */
#define LAPI_ERR_HDR_HNDLR_NULL   (409) /* header handler NULL (also async: unknown at target) */
#define LAPI_WARN_PARM_NULL       (411) /* a required pointer is NULL */
#define LAPI_ERR_TIMEOUT          (413) /* communication timeout (async) */
#define LAPI_ERR_HNDL_INVALID     (417) /* handle not valid or terminated */
#define LAPI_ERR_RET_PTR_NULL     (418) /* output pointer is NULL */
#define LAPI_ERR_ADDR_HNDL_RANGE  (419) /* addr_hndl not in 1..LOC_ADDRTBL_SZ-1 */
#define LAPI_ERR_ADDR_TBL_NULL    (420) /* output address table is NULL */
#define LAPI_ERR_TGT_PURGED       (421) /* target task is gone */
#define LAPI_ERR_MEMORY_EXHAUSTED (423) /* out of memory */
#define LAPI_ERR_INFO_NONZERO     (424) /* unused lapi_info_t fields must be zero */
#define LAPI_ERR_ORG_ADDR_NULL    (425) /* origin buffer NULL but length > 0 */
#define LAPI_ERR_TGT_ADDR_NULL    (426) /* target buffer NULL but length > 0 */
#define LAPI_ERR_DATA_LEN         (427) /* length too big */
#define LAPI_ERR_TGT              (428) /* target task not valid */
#define LAPI_ERR_UHDR_NULL        (429) /* uhdr NULL but uhdr_len > 0 */
#define LAPI_ERR_UHDR_LEN         (430) /* uhdr_len above MAX_UHDR_SZ */
#define LAPI_ERR_HDR_LEN          (431) /* uhdr_len not a multiple of 4 */
#define LAPI_ERR_NO_CONNECTIVITY  (434) /* no connection to the task */
#define LAPI_ERR_CNTR_NULL        (458) /* counter pointer is NULL */
#define LAPI_ERR_CNTR_VAL         (459) /* counter value below zero */
#define LAPI_ERR_QUERY_TYPE       (460) /* query not valid (or not settable) */
#define LAPI_ERR_IN_VAL_NULL      (461) /* Rmw in_val is NULL */
#define LAPI_ERR_RMW_OP           (462) /* Rmw operation not valid */
#define LAPI_ERR_TGT_VAR_NULL     (463) /* Rmw tgt_var is NULL */
#define LAPI_ERR_SET_VAL          (464) /* Senv value not valid */
#define LAPI_ERR_OP_SZ            (474) /* Rmw operand size not 32 or 64 */
#define LAPI_ERR_NO_CALLBACK_REG  (511) /* handler index not set at the target */
#define LAPI_ERR_NO_CNTR_REG      (512) /* target counter not registered at the target */
#define LAPI_ERR_CODE_UNKNOWN     (519) /* LAPI_Msg_string: code unknown */
#define LAPIS_ERR_IN_HEADER_HANDLER (530) /* communication call inside a header handler */
#define LAPIS_ERR_NOT_REGISTERED  (531) /* remote range is not registered memory */
#define LAPIS_ERR_REMOTE_REFUSED  (532) /* the target refused the request */
#define LAPIS_ERR_BOOTSTRAP       (533) /* address exchange with the launcher failed */
#define LAPIS_ERR_TRANSPORT       (534) /* UCX reported an error */
#define LAPIS_ERR_TERMINATED      (535) /* use after LAPI_Term */
#define LAPIS_ERR_DATA_CORRUPT    (536) /* data damaged after every retransmission (LAPIS_CHECKSUM) */
#define LAPIS_ERR_CNTR_UNSET      (537) /* counter neither set with LAPI_Setcntr nor zero-filled */

#define LAPI_MAX_ERR_STRING (160) /* LAPI_Msg_string writes at most this many bytes */

/* ---- Basic types -------------------------------------------------------- */
typedef unsigned int lapi_handle_t;
typedef unsigned long long lapi_long_t; /* 64-bit address in any task */

typedef enum { FETCH_AND_ADD = 0, FETCH_AND_OR, SWAP, COMPARE_AND_SWAP } RMW_ops_t;
typedef enum { GET_ERR = 0, PUT_ERR, RMW_ERR, AM_ERR, INT_ERR, TMR_ERR } lapi_err_t;
typedef enum { L1_LIB = 0, L2_LIB, L3_LIB, L4_LIB, LAST_LIB } lapi_lib_t;

/* Queries for LAPI_Qenv / LAPI_Senv, in IBM's order; Lapis' after LAST_QUERY.
 * Settable with LAPI_Senv: ERROR_CHK (0|1), TIMEOUT (MIN..MAX_TIMEOUT, kept
 * for compatibility, no effect), INTERRUPT_SET (0|1), ACK_THRESHOLD (1..30,
 * no effect), LAPIS_COMPLETION_POLICY, LAPIS_EAGER_LIMIT. IBM queries that
 * have no meaning over UCX (statistics, RC QPs, shared-memory task lists, ...)
 * return LAPI_ERR_QUERY_TYPE. */
typedef enum {
  TASK_ID = 0,   /* this task's id */
  NUM_TASKS,     /* tasks in the job */
  MAX_UHDR_SZ,   /* largest uhdr_len for LAPI_Amsend */
  MAX_DATA_SZ,   /* largest data length (clamped to INT_MAX) */
  ERROR_CHK,     /* argument checking in the core on(1)/off(0) */
  TIMEOUT,
  MIN_TIMEOUT,
  MAX_TIMEOUT,
  INTERRUPT_SET, /* interrupt mode on(1)/off(0) = polling */
  MAX_PORTS,
  MAX_PKT_SZ,    /* Lapis: eager limit (data at least this long uses rendezvous) */
  NUM_REX_BUFS,
  REX_BUF_SZ,
  LOC_ADDRTBL_SZ, /* size of the LAPI_Addr_set table */
  EPOCH_NUM,
  USE_THRESH,
  RCV_FIFO_SIZE,
  MAX_ATOM_SIZE,
  BUF_CP_SIZE,
  MAX_PKTS_OUT,
  ACK_THRESHOLD,
  QUERY_SHM_ENABLED,
  QUERY_SHM_NUM_TASKS,
  QUERY_SHM_TASKS,
  QUERY_STATISTICS,
  PRINT_STATISTICS,
  QUERY_SHM_STATISTICS,
  QUERY_LOCAL_SEND_STATISTICS,
  BULK_XFER,
  BULK_MIN_MSG_SIZE,
  RDMA_REMOTE_RCXT_AVAIL,
  RDMA_REMOTE_RCXT_TOTAL,
  RC_MAX_QP,
  RC_QP_IN_USE,
  RC_QP_USE_LRU,
  RC_QP_USE_LMC,
  RC_QP_INIT_SETUP,
  LAST_QUERY,
  /* Lapis extensions */
  LAPIS_COMPLETION_POLICY, /* LAPIS_POLICY_* (settable) */
  LAPIS_EAGER_LIMIT,       /* bytes; Amsend data >= this goes by rendezvous (settable) */
  LAPIS_FAULTS_REFUSED,    /* peers' requests this task refused */
  LAPIS_FAULTS_REPORTED,   /* this task's requests that a target refused */
  LAPIS_LAST_QUERY
} lapi_query_t;

/* Values of LAPIS_COMPLETION_POLICY: where completion handlers run. */
#define LAPIS_POLICY_INLINE 0 /* in the progress context, right after the data lands */
#define LAPIS_POLICY_THREAD 1 /* on one completion-handler thread (classic LAPI) */
#define LAPIS_POLICY_FIBER  2 /* on a fiber: a handler that waits suspends only itself */

/* Values of LOC_ADDRTBL_SZ and the settable ranges of LAPI_Senv. */
#define LAPIS_ADDRTBL_SZ   128
#define LAPIS_MIN_TIMEOUT  10
#define LAPIS_MAX_TIMEOUT  86400

/* ---- Counters ------------------------------------------------------------
 * The user allocates a lapi_cntr_t (static, heap or stack) and initializes
 * it with LAPI_Setcntr before first use (zero-filled storage also starts at
 * 0). It holds the library's counter object; `cntr` overlays its current
 * value for reading, but use LAPI_Getcntr/LAPI_Waitcntr, which also make
 * progress and report failed operations. Do not copy a lapi_cntr_t, and do
 * not let one die while an operation still names it. */
#define LAPIS_CNTR_OPAQUE_SIZE 32
typedef union {
  int cntr;
  unsigned char lapis_opaque[LAPIS_CNTR_OPAQUE_SIZE];
  long long lapis_align_ll;
  void *lapis_align_ptr;
  double lapis_align_d;
} lapi_cntr_t;

/* ---- Initialization ------------------------------------------------------ */
typedef unsigned int lapi_dev_t; /* protocol: input flags below; not written back */

/* Input flags ORed into lapi_info_t.protocol. */
#define LAPI_SHARE_PROTOCOL 0x80000000u /* accepted, no effect */
#define LAPI_INTERRUPT_OFF  0x20000000u /* start in polling mode */

typedef void(LAPI_err_hndlr)(lapi_handle_t *hndl, int *error_code, lapi_err_t *err_type,
                             int *task_id, int *src);

typedef struct com_thread_info com_thread_info_t; /* IBM thread attributes: unsupported */
typedef struct lapi_extend lapi_extend_t;          /* IBM UDP extension: unsupported */

/* Zero the whole structure (memset) before setting fields: any field Lapis
 * does not use must stay zero, else LAPI_Init fails with LAPI_ERR_INFO_NONZERO.
 * Used: protocol (flags above), lib_vers (< LAST_LIB), instance_no (0..16,
 * ignored), err_hndlr (called on asynchronous errors: a target refused a
 * request, or an Amsend named a header handler unknown here), adapter_name
 * (ignored). */
typedef struct {
  lapi_dev_t protocol;
  lapi_lib_t lib_vers;
  unsigned int epoch_num;     /* must be 0 */
  int num_compl_hndlr_thr;    /* must be 0 (use LAPIS_COMPLETION_POLICY) */
  unsigned int instance_no;
  int info6;                  /* must be 0 */
  LAPI_err_hndlr *err_hndlr;
  com_thread_info_t *lapi_thread_attr; /* must be NULL */
  void *adapter_name;
  lapi_extend_t *add_info;    /* must be NULL */
} lapi_info_t;

/* ---- Active messages -----------------------------------------------------
 * A header handler runs at the target when an Amsend arrives. It returns the
 * buffer where the message's data lands (NULL discards it) and may set a
 * completion handler and its argument, which run once the data is in place.
 * Header handlers must not call communication functions (they fail with
 * LAPIS_ERR_IN_HEADER_HANDLER); Qenv, Getcntr and Setcntr are fine.
 *
 * `msg_len` points to a lapi_return_info_t (first member msg_len, as in IBM
 * LAPI): cast it to read `src`, or set ctl_flags = LAPI_BURY_MSG to drop the
 * message (no data lands, no completion handler runs). */
typedef int lapi_ret_flags_t;
#define LAPI_NORMAL      0x0
#define LAPI_LOCAL_STATE 0x1 /* accepted, no effect */
#define LAPI_SEND_REPLY  0x2 /* accepted, no effect */

typedef enum { LAPI_DELIVER_MSG = 0, LAPI_BURY_MSG, LAPI_DROP_PKT } lapi_ctl_flags_t;
typedef void *lapi_dg_handle_t; /* DGSP is not supported: always NULL */

#define LAPIS_RETURN_INFO_MAGIC 0x4C415049 /* "LAPI" */
typedef struct {
  unsigned long msg_len;     /* bytes of user data in this message */
  int MAGIC;                 /* LAPIS_RETURN_INFO_MAGIC */
  lapi_ret_flags_t ret_flags;
  lapi_ctl_flags_t ctl_flags; /* OUT: LAPI_BURY_MSG or LAPI_DROP_PKT drop the message */
  lapi_dg_handle_t dgsp_handle;
  unsigned long bytes;       /* = msg_len */
  int src;                   /* sending task */
  void *udata_one_pkt_ptr;   /* always NULL */
  unsigned long recv_offset_dgsp_bytes;
} lapi_return_info_t;

typedef void(compl_hndlr_t)(lapi_handle_t *hndl, void *completion_param);
typedef void *(hdr_hndlr_t)(lapi_handle_t *hndl, void *uhdr, unsigned int *uhdr_len,
                            unsigned long *msg_len, compl_hndlr_t **comp_h, void **uinfo);

/* ---- Setup, query, errors ------------------------------------------------ */
int LAPI_Init(lapi_handle_t *hndl, lapi_info_t *lapi_info); /* collective */
int LAPI_Term(lapi_handle_t hndl);                          /* collective */
int LAPI_Qenv(lapi_handle_t hndl, lapi_query_t query, int *ret_val);
int LAPI_Senv(lapi_handle_t hndl, lapi_query_t query, int set_val);
/* Writes at most LAPI_MAX_ERR_STRING bytes (NUL included): the code's name and
 * meaning, plus the detail of this thread's most recent failure if it had
 * this code (which argument, which task). Callable before LAPI_Init. */
int LAPI_Msg_string(int error_code, void *buf);

/* ---- Header-handler table -------------------------------------------------
 * hdr_hdl in LAPI_Amsend is either an index 1..LOC_ADDRTBL_SZ-1 set at the
 * TARGET with LAPI_Addr_set (the fast path), or a function address. Every
 * task that receives by index must LAPI_Addr_set it (then synchronize, e.g.
 * LAPI_Gfence) before others send to it.
 *
 * A function address is accepted at the target only for handlers the target
 * made known: stored with LAPI_Addr_set, announced with
 * LAPIS_Hdr_hndlr_register, or passed as my_addr to LAPI_Address_init (a code
 * address exchanged there is taken as a header handler). The origin may pass
 * the target's address (learnt with LAPI_Address_init, IBM's way) or, in a
 * job whose tasks run the same binary, its own address of the function: the
 * message carries the address and its offset inside its executable or
 * library, and the target matches either. Anything else is dropped at the
 * target, counted, and reported to its err_hndlr as LAPI_ERR_HDR_HNDLR_NULL. */
int LAPI_Addr_set(lapi_handle_t hndl, void *addr, int addr_hndl);
int LAPI_Addr_get(lapi_handle_t hndl, void **addr, int addr_hndl);
int LAPIS_Hdr_hndlr_register(lapi_handle_t hndl, hdr_hndlr_t *hdr_hdl);

/* ---- Communication ----------------------------------------------------------
 * Counters: tgt_cntr is the TARGET's address of its lapi_cntr_t (from
 * LAPI_Address_init), bumped there once the data landed and any completion
 * handler ran; org_cntr (origin) once the origin buffer may be reused;
 * cmpl_cntr (origin) once the target finished. Any may be NULL. */
int LAPI_Amsend(lapi_handle_t hndl, unsigned int tgt, void *hdr_hdl, void *uhdr,
                unsigned int uhdr_len, void *udata, unsigned long udata_len,
                lapi_cntr_t *tgt_cntr, lapi_cntr_t *org_cntr, lapi_cntr_t *cmpl_cntr);
int LAPI_Put(lapi_handle_t hndl, unsigned int tgt, unsigned long len, void *tgt_addr,
             void *org_addr, lapi_cntr_t *tgt_cntr, lapi_cntr_t *org_cntr,
             lapi_cntr_t *cmpl_cntr);
int LAPI_Get(lapi_handle_t hndl, unsigned int tgt, unsigned long len, void *tgt_addr,
             void *org_addr, lapi_cntr_t *tgt_cntr, lapi_cntr_t *org_cntr);
/* *prev_tgt_val (may be NULL) gets the old value once org_cntr moves. For
 * COMPARE_AND_SWAP in_val is {compare, new} and *prev_tgt_val becomes 1 (TRUE)
 * if the swap happened, else 0 (FALSE); that op completes before returning. */
int LAPI_Rmw(lapi_handle_t hndl, RMW_ops_t op, unsigned int tgt, int *tgt_var, int *in_val,
             int *prev_tgt_val, lapi_cntr_t *org_cntr);
int LAPI_Rmw64(lapi_handle_t hndl, RMW_ops_t op, unsigned int tgt, long long *tgt_var,
               long long *in_val, long long *prev_tgt_val, lapi_cntr_t *org_cntr);

/* ---- Counters, progress, ordering --------------------------------------- */
int LAPI_Setcntr(lapi_handle_t hndl, lapi_cntr_t *cntr, int val);
/* Makes progress in polling mode. Returns the error of a failed operation
 * that named the counter (the value is still written). */
int LAPI_Getcntr(lapi_handle_t hndl, lapi_cntr_t *cntr, int *val);
/* Waits until cntr >= val, then subtracts val; *cur_cntr_val (may be NULL)
 * gets the value after that. */
int LAPI_Waitcntr(lapi_handle_t hndl, lapi_cntr_t *cntr, int val, int *cur_cntr_val);
int LAPI_Probe(lapi_handle_t hndl);
int LAPI_Fence(lapi_handle_t hndl);  /* data fence: this task's operations completed at targets */
int LAPI_Gfence(lapi_handle_t hndl); /* collective: fence + barrier */

/* ---- Address exchange (collective) --------------------------------------- */
int LAPI_Address(void *my_addr, unsigned long *ret_addr);
int LAPI_Address_init(lapi_handle_t hndl, void *my_addr, void *add_tab[]);
int LAPI_Address_init64(lapi_handle_t hndl, lapi_long_t my_addr, lapi_long_t *add_tab);

/* ---- Lapis extensions ------------------------------------------------------
 * Remote Put/Get/Rmw may touch only registered memory. Alloc_mem returns
 * memory the transport allocated and registered (fastest on shared memory). */
int LAPIS_Register_mem(lapi_handle_t hndl, void *addr, unsigned long len);
int LAPIS_Deregister_mem(lapi_handle_t hndl, void *addr);
int LAPIS_Alloc_mem(lapi_handle_t hndl, unsigned long len, void **addr);
int LAPIS_Free_mem(lapi_handle_t hndl, void *addr);
/* Withdraws a counter registered by Setcntr/Getcntr/Waitcntr (call before
 * its storage goes away if other tasks may still name it). */
int LAPIS_Unregister_cntr(lapi_handle_t hndl, lapi_cntr_t *cntr);

#ifdef __cplusplus
}
#endif

#endif /* LAPIS_LAPI_H_ */
