/* Conversions between Fortran's view of MPI arguments and C's (see
 * fortran_support.h). */
#include "mpi/fortran/fortran_support.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/internal/fortran_commons.h"

/* MPI_BUFFER_AUTOMATIC (MPI 4.1): MPICH 4.2's common block for it and its
 * mpi_f08 module's variable, as for the weights values below. */
__attribute__((aligned(16))) MPI_Fint mpifcmba_[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_buffer_automatic[1];

void *lapis_f_buffer(void *fortran_address) {
  if (fortran_address == (void *)&mpipriv1_[0]) return MPI_BOTTOM;
  if (fortran_address == (void *)&mpipriv1_[1]) return MPI_IN_PLACE;
  if (fortran_address == (void *)mpifcmba_ ||
      fortran_address == (void *)__mpi_f08_link_constants_MOD_mpi_buffer_automatic) {
    return MPI_BUFFER_AUTOMATIC;
  }
  return fortran_address;
}

int lapis_f_keyval(MPI_Fint keyval) {
  switch (keyval - 1) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM: case MPI_WIN_BASE:
    case MPI_WIN_SIZE: case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
      return keyval - 1;
    default:
      return keyval;
  }
}

MPI_Status *lapis_f_status_in(MPI_Fint *fstatus, MPI_Status *scratch) {
  if (fstatus == MPI_F_STATUS_IGNORE || fstatus == MPI_F_STATUSES_IGNORE) {
    return MPI_STATUS_IGNORE;
  }
  memcpy(scratch, fstatus, sizeof *scratch);
  return scratch;
}

void lapis_f_status_out(const MPI_Status *c, MPI_Fint *fstatus) {
  if (c != MPI_STATUS_IGNORE) memcpy(fstatus, c, sizeof *c);
}

MPI_Status *lapis_f_statuses_in(MPI_Fint *fstatuses, int n) {
  if (fstatuses == MPI_F_STATUSES_IGNORE || fstatuses == MPI_F_STATUS_IGNORE) {
    return MPI_STATUSES_IGNORE;
  }
  if (n < 0) return NULL; /* C reports the bad count */
  MPI_Status *c = malloc((n > 0 ? (size_t)n : 1) * sizeof *c);
  if (c != NULL && n > 0) memcpy(c, fstatuses, (size_t)n * sizeof *c);
  return c;
}

void lapis_f_statuses_out(MPI_Status *c, MPI_Fint *fstatuses, int n) {
  if (c == MPI_STATUSES_IGNORE || c == NULL) return;
  if (n > 0) memcpy(fstatuses, c, (size_t)n * sizeof *c);
  free(c);
}

/* A CHARACTER*(len)'s length without its trailing blanks. */
static size_t unpadded(const char *f, size_t len) {
  while (len > 0 && f[len - 1] == ' ') --len;
  return len;
}

char *lapis_f_string_in(const char *f, size_t len) {
  len = unpadded(f, len);
  char *c = malloc(len + 1);
  if (c == NULL) return NULL;
  memcpy(c, f, len);
  c[len] = '\0';
  return c;
}

char *lapis_f_string_trimmed(const char *f, size_t len) {
  while (len > 0 && *f == ' ') ++f, --len;
  return lapis_f_string_in(f, len);
}

void lapis_f_string_keep(char *c, const char *f, size_t len, size_t max) {
  len = unpadded(f, len);
  if (len > max) len = max;
  memcpy(c, f, len);
  c[len] = '\0';
}

int lapis_f_info_get_string(MPI_Info info, const char *key, MPI_Fint *buflen, char *value,
                            int *flag) {
  int room = *buflen <= 0 ? *buflen : (*buflen < MPI_MAX_INFO_VAL ? *buflen : MPI_MAX_INFO_VAL) + 1;
  const int rc = MPI_Info_get_string(info, key, &room, value, flag);
  if (rc == MPI_SUCCESS && *flag) *buflen = room - 1;  /* C's size counts the terminator */
  return rc;
}

/* Whether a CHARACTER*(len) element is all blanks (an argv's end). */
static int blank(const char *f, size_t len) {
  for (size_t i = 0; i < len; ++i) {
    if (f[i] != ' ') return 0;
  }
  return 1;
}

/* Elements len apart * step, up to the first blank one, NULL-terminated. */
static char **argv_from(const char *f, size_t len, size_t step) {
  size_t n = 0;
  while (!blank(f + n * step * len, len)) ++n;
  char **argv = calloc(n + 1, sizeof *argv);
  if (argv == NULL) return NULL;
  for (size_t k = 0; k < n; ++k) argv[k] = lapis_f_string_trimmed(f + k * step * len, len);
  return argv;
}

char **lapis_f_argv_in(const char *f, size_t len) {
  if (f == &mpiprivc_[1]) return MPI_ARGV_NULL;
  return argv_from(f, len, 1);
}

char ***lapis_f_argvs_in(const char *f, size_t len, MPI_Fint count) {
  if (f == &mpiprivc_[0] || count <= 0) return MPI_ARGVS_NULL;
  char ***argvs = calloc((size_t)count, sizeof *argvs);
  if (argvs == NULL) return NULL;
  for (MPI_Fint i = 0; i < count; ++i) argvs[i] = argv_from(f + (size_t)i * len, len, (size_t)count);
  return argvs;
}

char **lapis_f_strings_in(const char *f, size_t len, MPI_Fint count) {
  char **strings = calloc(count > 0 ? (size_t)count : 1, sizeof *strings);
  if (strings == NULL) return NULL;
  for (MPI_Fint i = 0; i < count; ++i) strings[i] = lapis_f_string_trimmed(f + (size_t)i * len, len);
  return strings;
}

void lapis_f_free_argv(char **argv) {
  for (char **a = argv; a != NULL && *a != NULL; ++a) free(*a);
  free(argv);
}

void lapis_f_free_argvs(char ***argvs, MPI_Fint count) {
  for (MPI_Fint i = 0; argvs != NULL && i < count; ++i) lapis_f_free_argv(argvs[i]);
  free(argvs);
}

void lapis_f_free_strings(char **strings, MPI_Fint count) {
  for (MPI_Fint i = 0; strings != NULL && i < count; ++i) free(strings[i]);
  free(strings);
}

int *lapis_f_errcodes(MPI_Fint *f) {
  return f == &mpipriv2_[LAPIS_STATUS_INTS] ? MPI_ERRCODES_IGNORE : f;
}

/* MPICH's common blocks for the two weights values (its mpif.h and mpi
 * module), and its mpi_f08 module's variables for them, which a program
 * compiled against MPICH's module names. A program may allocate the common
 * blocks itself; this library then uses its copies (through the GOT). */
__attribute__((aligned(16))) MPI_Fint mpifcmb5_[1];
__attribute__((aligned(16))) MPI_Fint mpifcmb9_[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_unweighted[1];
MPI_Fint __mpi_f08_link_constants_MOD_mpi_weights_empty[1];

int *lapis_f_weights(MPI_Fint *f) {
  if (f == mpifcmb5_ || f == __mpi_f08_link_constants_MOD_mpi_unweighted) return MPI_UNWEIGHTED;
  if (f == mpifcmb9_ || f == __mpi_f08_link_constants_MOD_mpi_weights_empty) {
    return MPI_WEIGHTS_EMPTY;
  }
  return f;
}

void lapis_f_string_out(const char *c, char *f, size_t len, MPI_Fint *resultlen) {
  size_t n = strlen(c);
  if (n > len) n = len;
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
  if (resultlen != NULL) *resultlen = (MPI_Fint)n;
}

MPI_Aint lapis_f_attr_value(int keyval, void *c_value) {
  switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_APPNUM: case MPI_LASTUSEDCODE:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
      return c_value == NULL ? 0 : *(int *)c_value;
    case MPI_WIN_SIZE:
      return c_value == NULL ? 0 : *(MPI_Aint *)c_value;
    default: /* MPI_WIN_BASE is the address itself, as user attributes */
      return (MPI_Aint)(intptr_t)c_value;
  }
}

/* ---- attribute callbacks written in Fortran ---------------------------- */

/* What a Fortran keyval's C callbacks need; one per keyval, kept on a list
 * for the life of the process (callbacks may run after the keyval is
 * freed, for attributes still attached). */
struct FortranKeyval {
  lapis_f_copy_fn *copy;  /* MPI-2 callbacks: ADDRESS_KIND values */
  lapis_f_delete_fn *del;
  MPI_Aint extra_state;
  lapis_f_copy_int_fn *copy_int;  /* MPI_KEYVAL_CREATE's: INTEGER values */
  lapis_f_delete_int_fn *del_int;
  MPI_Fint extra_state_int;
  struct FortranKeyval *next;
};
static struct FortranKeyval *fortran_keyvals;

/* A keyval's record once the C keyval exists (`rc` is the C call's result):
 * kept for good on success, freed otherwise. Only one thread is in MPI at a
 * time (see mpi/README.md). */
static int keep_keyval(struct FortranKeyval *k, int rc) {
  if (rc != MPI_SUCCESS) {
    free(k);
    return rc;
  }
  k->next = fortran_keyvals;
  fortran_keyvals = k;
  return rc;
}

static int copy_in_fortran(MPI_Comm oldcomm, int keyval, void *extra_state,
                           void *attribute_val_in, void *attribute_val_out, int *flag) {
  struct FortranKeyval *k = extra_state;
  MPI_Fint comm = oldcomm, key = keyval, fflag = 0, ierror = MPI_SUCCESS;
  MPI_Aint in = (MPI_Aint)(intptr_t)attribute_val_in, out = 0;
  k->copy(&comm, &key, &k->extra_state, &in, &out, &fflag, &ierror);
  *flag = fflag != 0;
  if (*flag) *(void **)attribute_val_out = (void *)(intptr_t)out;
  return ierror;
}

static int delete_in_fortran(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state) {
  struct FortranKeyval *k = extra_state;
  MPI_Fint fcomm = comm, key = keyval, ierror = MPI_SUCCESS;
  MPI_Aint value = (MPI_Aint)(intptr_t)attribute_val;
  k->del(&fcomm, &key, &value, &k->extra_state, &ierror);
  return ierror;
}

/* Datatypes' callbacks: the same with the datatype first (an int, as a
 * communicator, in MPICH's ABI). */
static int type_copy_in_fortran(MPI_Datatype oldtype, int keyval, void *extra_state,
                                void *attribute_val_in, void *attribute_val_out, int *flag) {
  return copy_in_fortran((MPI_Comm)oldtype, keyval, extra_state, attribute_val_in,
                         attribute_val_out, flag);
}

static int type_delete_in_fortran(MPI_Datatype type, int keyval, void *attribute_val,
                                  void *extra_state) {
  return delete_in_fortran((MPI_Comm)type, keyval, attribute_val, extra_state);
}

/* MPI-1 callbacks: attribute values and extra state as INTEGERs. */
static int copy_int_in_fortran(MPI_Comm oldcomm, int keyval, void *extra_state,
                               void *attribute_val_in, void *attribute_val_out, int *flag) {
  struct FortranKeyval *k = extra_state;
  MPI_Fint comm = oldcomm, key = keyval, fflag = 0, ierror = MPI_SUCCESS;
  MPI_Fint in = (MPI_Fint)(intptr_t)attribute_val_in, out = 0;
  k->copy_int(&comm, &key, &k->extra_state_int, &in, &out, &fflag, &ierror);
  *flag = fflag != 0;
  if (*flag) *(void **)attribute_val_out = (void *)(intptr_t)out;
  return ierror;
}

static int delete_int_in_fortran(MPI_Comm comm, int keyval, void *attribute_val,
                                 void *extra_state) {
  struct FortranKeyval *k = extra_state;
  MPI_Fint fcomm = comm, key = keyval, ierror = MPI_SUCCESS;
  MPI_Fint value = (MPI_Fint)(intptr_t)attribute_val;
  k->del_int(&fcomm, &key, &value, &k->extra_state_int, &ierror);
  return ierror;
}

/* The record of MPI-2 callbacks (ADDRESS_KIND values); NULL when out of memory. */
static struct FortranKeyval *keyval_record(lapis_f_copy_fn *copy, lapis_f_delete_fn *del,
                                           MPI_Aint extra_state) {
  struct FortranKeyval *k = calloc(1, sizeof *k);
  if (k == NULL) return NULL;
  k->copy = copy;
  k->del = del;
  k->extra_state = extra_state;
  return k;
}

int lapis_f_comm_create_keyval(lapis_f_copy_fn *copy, lapis_f_delete_fn *del,
                               MPI_Fint *keyval, MPI_Aint extra_state) {
  struct FortranKeyval *k = keyval_record(copy, del, extra_state);
  if (k == NULL) return MPI_Comm_create_keyval(NULL, NULL, NULL, NULL); /* reports the error */
  return keep_keyval(k, MPI_Comm_create_keyval(copy == NULL ? NULL : copy_in_fortran,
                                               del == NULL ? NULL : delete_in_fortran, keyval, k));
}

int lapis_f_type_create_keyval(lapis_f_copy_fn *copy, lapis_f_delete_fn *del,
                               MPI_Fint *keyval, MPI_Aint extra_state) {
  struct FortranKeyval *k = keyval_record(copy, del, extra_state);
  if (k == NULL) return MPI_Type_create_keyval(NULL, NULL, NULL, NULL); /* reports the error */
  return keep_keyval(k, MPI_Type_create_keyval(copy == NULL ? NULL : type_copy_in_fortran,
                                               del == NULL ? NULL : type_delete_in_fortran,
                                               keyval, k));
}

void mpi_dup_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                 MPI_Fint *);
void mpi_null_copy_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                       MPI_Fint *);
void mpi_null_delete_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);

int lapis_f_keyval_create(lapis_f_copy_int_fn *copy, lapis_f_delete_int_fn *del,
                          MPI_Fint *keyval, MPI_Fint extra_state) {
  /* The predefined procedures do in C what they would do in Fortran, on values of any size. */
  MPI_Copy_function *c_copy = copy_int_in_fortran;
  if (copy == NULL || (void (*)(void))copy == (void (*)(void))mpi_null_copy_fn_) {
    c_copy = MPI_NULL_COPY_FN;
  } else if ((void (*)(void))copy == (void (*)(void))mpi_dup_fn_) {
    c_copy = MPI_DUP_FN;
  }
  MPI_Delete_function *c_del = delete_int_in_fortran;
  if (del == NULL || (void (*)(void))del == (void (*)(void))mpi_null_delete_fn_) {
    c_del = MPI_NULL_DELETE_FN;
  }
  struct FortranKeyval *k = calloc(1, sizeof *k);
  if (k == NULL) return MPI_Keyval_create(NULL, NULL, NULL, NULL); /* reports the error */
  k->copy_int = copy;
  k->del_int = del;
  k->extra_state_int = extra_state;
  return keep_keyval(k, MPI_Keyval_create(c_copy, c_del, keyval, k));
}

/* ---- generalized requests written in Fortran ---------------------------- */

struct FortranGrequest {
  lapis_f_grequest_query_fn *query;
  lapis_f_grequest_free_fn *free_fn;
  lapis_f_grequest_cancel_fn *cancel;
  MPI_Aint *extra_state;  /* the program's variable */
};

static int grequest_query_in_fortran(void *extra_state, MPI_Status *status) {
  struct FortranGrequest *g = extra_state;
  MPI_Fint ierror = MPI_SUCCESS;
  /* MPICH's MPI_Status is MPI_STATUS_SIZE INTEGERs: Fortran's status array. */
  g->query(g->extra_state, (MPI_Fint *)status, &ierror);
  return ierror;
}

/* Called once, when the request is freed: the record goes with it. */
static int grequest_free_in_fortran(void *extra_state) {
  struct FortranGrequest *g = extra_state;
  MPI_Fint ierror = MPI_SUCCESS;
  g->free_fn(g->extra_state, &ierror);
  free(g);
  return ierror;
}

static int grequest_cancel_in_fortran(void *extra_state, int complete) {
  struct FortranGrequest *g = extra_state;
  MPI_Fint fcomplete = complete != 0, ierror = MPI_SUCCESS;
  g->cancel(g->extra_state, &fcomplete, &ierror);
  return ierror;
}

int lapis_f_grequest_start(lapis_f_grequest_query_fn *query, lapis_f_grequest_free_fn *free_fn,
                           lapis_f_grequest_cancel_fn *cancel, MPI_Aint *extra_state,
                           MPI_Fint *request) {
  struct FortranGrequest *g = malloc(sizeof *g);
  if (g == NULL) return MPI_Grequest_start(NULL, NULL, NULL, NULL, NULL); /* reports the error */
  *g = (struct FortranGrequest){query, free_fn, cancel, extra_state};
  int rc = MPI_Grequest_start(grequest_query_in_fortran, grequest_free_in_fortran,
                              grequest_cancel_in_fortran, g, (MPI_Request *)request);
  if (rc != MPI_SUCCESS) free(g);
  return rc;
}

MPI_Aint *lapis_f_aints_in(const MPI_Fint *f, MPI_Fint n) {
  if (n < 1 || f == NULL) return NULL;
  MPI_Aint *c = malloc((size_t)n * sizeof *c);
  if (c == NULL) return NULL;
  for (MPI_Fint i = 0; i < n; ++i) c[i] = f[i];
  return c;
}

/* The predefined callbacks, as Fortran procedures (mpif.h declares them
 * EXTERNAL under their MPI names). */
void mpi_comm_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                            MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
void mpi_comm_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                            MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror) {
  (void)oldcomm, (void)keyval, (void)extra_state, (void)in, (void)out;
  *flag = 0;
  *ierror = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                      MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
void mpi_comm_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                      MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror) {
  (void)oldcomm, (void)keyval, (void)extra_state;
  *out = *in;
  *flag = 1;
  *ierror = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attribute_val,
                              MPI_Aint *extra_state, MPI_Fint *ierror);
void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attribute_val,
                              MPI_Aint *extra_state, MPI_Fint *ierror) {
  (void)comm, (void)keyval, (void)attribute_val, (void)extra_state;
  *ierror = MPI_SUCCESS;
}

/* MPI-1 names of the same. */
void mpi_null_copy_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                       MPI_Fint *) __attribute__((alias("mpi_comm_null_copy_fn_")));
void mpi_dup_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                 MPI_Fint *) __attribute__((alias("mpi_comm_dup_fn_")));
void mpi_null_delete_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *)
    __attribute__((alias("mpi_comm_null_delete_fn_")));

/* Datatypes' and windows' (the same signatures, a handle first). */
void mpi_type_null_copy_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *,
                            MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_comm_null_copy_fn_")));
void mpi_type_dup_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                      MPI_Fint *) __attribute__((alias("mpi_comm_dup_fn_")));
void mpi_type_null_delete_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *)
    __attribute__((alias("mpi_comm_null_delete_fn_")));
void mpi_win_null_copy_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *,
                           MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_comm_null_copy_fn_")));
void mpi_win_dup_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *,
                     MPI_Fint *) __attribute__((alias("mpi_comm_dup_fn_")));
void mpi_win_null_delete_fn_(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *)
    __attribute__((alias("mpi_comm_null_delete_fn_")));

/* MPI_F_SYNC_REG(buf): a call the compiler cannot see through is all it
 * takes (MPI 3.1 section 17.1.17); nothing to do here. */
void mpi_f_sync_reg_(void *buf);
void mpi_f_sync_reg_(void *buf) { (void)buf; }
/* mpi_f08's MPI_F_sync_reg (MPICH's names: the PMPI one, the MPI one weak,
 * as gen_f08_impl.py arranges its procedures). */
void pmpir_f_sync_reg_f08ts_(void *buf);
void pmpir_f_sync_reg_f08ts_(void *buf) { (void)buf; }
void mpi_f_sync_reg_f08ts_(void *buf) __attribute__((weak, alias("pmpir_f_sync_reg_f08ts_")));

/* MPICH 4.0's mpi_f08 has MPI 4.1's MPI_Remove_error_class/_code/_string as
 * MPIX_Delete_error_*, whose procedures are these (the PMPI one, the MPI one
 * weak, as for every f08 procedure there): a program compiled against its
 * module calls them. An absent OPTIONAL ierror comes as a null pointer. */
#define LAPIS_MPICH_DELETE_ERROR(what)                                              \
  void pmpir_delete_error_##what##_f08_(const MPI_Fint *value, MPI_Fint *ierror); \
  void pmpir_delete_error_##what##_f08_(const MPI_Fint *value, MPI_Fint *ierror) { \
    const int rc = MPIX_Delete_error_##what((int)*value);                           \
    if (ierror != NULL) *ierror = (MPI_Fint)rc;                                      \
  }                                                                                  \
  void mpi_delete_error_##what##_f08_(const MPI_Fint *value, MPI_Fint *ierror)      \
      __attribute__((weak, alias("pmpir_delete_error_" #what "_f08_")));
LAPIS_MPICH_DELETE_ERROR(class)
LAPIS_MPICH_DELETE_ERROR(code)
LAPIS_MPICH_DELETE_ERROR(string)

/* MPI_CONVERSION_FN_NULL for MPI_REGISTER_DATAREP: a procedure whose address
 * stands for C's null conversion function (lapis_f_register_datarep). */
void mpi_conversion_fn_null_(void);
void mpi_conversion_fn_null_(void) {}

/* MPI_REGISTER_DATAREP's procedures in Fortran take every argument by
 * reference (the buffers as addresses: an array, or mpi_f08's TYPE(C_PTR),
 * VALUE) and return their error in a last argument, so C calls them
 * through these trampolines. The record lives as long as the registration
 * (for the rest of the process: MPI has no way to remove one). */
typedef void lapis_f_datarep_fn(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                                MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void lapis_f_extent_fn(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra_state,
                               MPI_Fint *ierror);
struct lapis_f_datarep {
  lapis_f_datarep_fn *read, *write;
  lapis_f_extent_fn *extent;
  MPI_Aint extra_state;
};

static int f_convert(lapis_f_datarep_fn *fn, void *userbuf, MPI_Datatype t, int count,
                     void *filebuf, MPI_Offset position, struct lapis_f_datarep *d) {
  MPI_Fint datatype = MPI_Type_c2f(t), n = count, ierror = MPI_SUCCESS;
  fn(userbuf, &datatype, &n, filebuf, &position, &d->extra_state, &ierror);
  return ierror;
}
static int f_read(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset position,
                  void *extra) {
  struct lapis_f_datarep *d = extra;
  return f_convert(d->read, userbuf, t, count, filebuf, position, d);
}
static int f_write(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset position,
                   void *extra) {
  struct lapis_f_datarep *d = extra;
  return f_convert(d->write, userbuf, t, count, filebuf, position, d);
}
static int f_extent(MPI_Datatype t, MPI_Aint *extent, void *extra) {
  struct lapis_f_datarep *d = extra;
  MPI_Fint datatype = MPI_Type_c2f(t), ierror = MPI_SUCCESS;
  d->extent(&datatype, extent, &d->extra_state, &ierror);
  return ierror;
}

int lapis_f_register_datarep(const char *datarep, void (*read)(void), void (*write)(void),
                             void (*extent)(void), MPI_Aint extra_state) {
  struct lapis_f_datarep *d = malloc(sizeof *d);
  if (d == NULL) return MPI_Register_datarep(datarep, NULL, NULL, NULL, NULL); /* its error */
  d->read = (lapis_f_datarep_fn *)read;
  d->write = (lapis_f_datarep_fn *)write;
  d->extent = (lapis_f_extent_fn *)extent;
  d->extra_state = extra_state;
  const int rc = MPI_Register_datarep(datarep, read == mpi_conversion_fn_null_ ? NULL : f_read,
                                      write == mpi_conversion_fn_null_ ? NULL : f_write,
                                      extent == NULL ? NULL : f_extent, d);
  if (rc != MPI_SUCCESS) free(d);
  return rc;
}

/* MPICH's Fortran library has each predefined procedure under a PMPI name
 * too (pmpi_comm_dup_fn_ ...), so a profiling tool built against it finds
 * them here. */
#define LAPIS_PMPI_TWIN(name) extern __typeof__(name) p##name __attribute__((alias(#name)));
LAPIS_PMPI_TWIN(mpi_comm_null_copy_fn_)
LAPIS_PMPI_TWIN(mpi_comm_dup_fn_)
LAPIS_PMPI_TWIN(mpi_comm_null_delete_fn_)
LAPIS_PMPI_TWIN(mpi_null_copy_fn_)
LAPIS_PMPI_TWIN(mpi_dup_fn_)
LAPIS_PMPI_TWIN(mpi_null_delete_fn_)
LAPIS_PMPI_TWIN(mpi_type_null_copy_fn_)
LAPIS_PMPI_TWIN(mpi_type_dup_fn_)
LAPIS_PMPI_TWIN(mpi_type_null_delete_fn_)
LAPIS_PMPI_TWIN(mpi_win_null_copy_fn_)
LAPIS_PMPI_TWIN(mpi_win_dup_fn_)
LAPIS_PMPI_TWIN(mpi_win_null_delete_fn_)
LAPIS_PMPI_TWIN(mpi_f_sync_reg_)
LAPIS_PMPI_TWIN(mpi_conversion_fn_null_)

/* MPI_ALLOC_MEM's TYPE(C_PTR) form in the `mpi` module (gen_fortran.py):
 * the C pointer itself, where the INTEGER(KIND=MPI_ADDRESS_KIND) form gets
 * its value. */
void mpi_alloc_mem_cptr_(const MPI_Aint *size, const MPI_Fint *info, void **baseptr,
                         MPI_Fint *ierror);
void mpi_alloc_mem_cptr_(const MPI_Aint *size, const MPI_Fint *info, void **baseptr,
                         MPI_Fint *ierror) {
  *ierror = MPI_Alloc_mem(*size, (MPI_Info)*info, baseptr);
}
