/* What the generated Fortran glue (fortran_glue.c, from api.txt) needs
 * beyond mpi.h: the special addresses of mpif.h / the mpi module, and the
 * conversions of CHARACTER, status and attribute arguments. */
#ifndef LAPIS_MPI_FORTRAN_SUPPORT_H_
#define LAPIS_MPI_FORTRAN_SUPPORT_H_

#include <stddef.h>

#include "mpi.h"

/* INTEGER(MPI_STATUS_SIZE): an MPI_Status seen as Fortran INTEGERs. */
#define LAPIS_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* The buffer address C expects: MPI_BOTTOM and MPI_IN_PLACE are Fortran
 * variables in common blocks, recognised by their address. */
void *lapis_f_buffer(void *fortran_address);

/* A Fortran attribute key as C knows it: a predefined key's Fortran value
 * is its C value + 1 (MPICH's convention, gen_fortran.py FORTRAN_KEYVALS). */
int lapis_f_keyval(MPI_Fint keyval);

/* MPI_Status* for a Fortran status argument: `scratch` (filled from the
 * Fortran array) or MPI_STATUS_IGNORE for MPI_STATUS_IGNORE. */
MPI_Status *lapis_f_status_in(MPI_Fint *fstatus, MPI_Status *scratch);
void lapis_f_status_out(const MPI_Status *c, MPI_Fint *fstatus);
/* Same for n statuses; the result is malloc'ed (free with
 * lapis_f_statuses_out), or MPI_STATUSES_IGNORE, or NULL when n < 0. */
MPI_Status *lapis_f_statuses_in(MPI_Fint *fstatuses, int n);
void lapis_f_statuses_out(MPI_Status *c, MPI_Fint *fstatuses, int n);

/* A Fortran CHARACTER*(len) as a C string without its trailing blanks
 * (malloc'ed; NULL when out of memory). */
char *lapis_f_string_in(const char *f, size_t len);
/* The same without leading blanks either: info keys and values
 * (MPI_INFO_SET), spawn commands and arguments (MPI_COMM_SPAWN): "In
 * Fortran, leading and trailing spaces are stripped". */
char *lapis_f_string_trimmed(const char *f, size_t len);
/* An output CHARACTER*(len)'s current value into the C buffer `c` (room
 * for max characters and the terminator), so that a call that leaves its
 * output alone (MPI_INFO_GET of a missing key) gives the caller's value
 * back unchanged when the buffer is copied back. */
void lapis_f_string_keep(char *c, const char *f, size_t len, size_t max);
/* MPI_INFO_GET_STRING for Fortran: buflen counts characters, with no
 * terminator (C's counts it), on the way in and out; value and buflen stay
 * as they were when the key is missing, value when buflen is 0. */
int lapis_f_info_get_string(MPI_Info info, const char *key, MPI_Fint *buflen, char *value,
                            int *flag);
/* MPI_Comm_spawn's arguments. An argv: CHARACTER*(len) ARGV(*), up to its first blank element,
 * as a NULL-terminated array of trimmed C strings; MPI_ARGV_NULL gives NULL. An array of argvs:
 * CHARACTER*(len) ARRAY_OF_ARGV(count, *), the i-th command's in row i; MPI_ARGVS_NULL gives
 * NULL. `count` strings: CHARACTER*(len) ARRAY(count). MPI_ERRCODES_IGNORE by address. Each
 * result is freed with lapis_f_free_strings (count: the number of argvs or strings, 0 for one
 * argv). */
char **lapis_f_argv_in(const char *f, size_t len);
char ***lapis_f_argvs_in(const char *f, size_t len, MPI_Fint count);
char **lapis_f_strings_in(const char *f, size_t len, MPI_Fint count);
void lapis_f_free_argv(char **argv);
void lapis_f_free_argvs(char ***argvs, MPI_Fint count);
void lapis_f_free_strings(char **strings, MPI_Fint count);
int *lapis_f_errcodes(MPI_Fint *f);
/* Dist graph weights: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are Fortran
 * variables (MPICH's common blocks /MPIFCMB5/ and /MPIFCMB9/, or its
 * mpi_f08 module's), recognised by address; other arrays pass as they are. */
int *lapis_f_weights(MPI_Fint *f);

/* MPI_REGISTER_DATAREP with Fortran procedures (called through C
 * trampolines; MPI_CONVERSION_FN_NULL's address is C's null function). */
int lapis_f_register_datarep(const char *datarep, void (*read)(void), void (*write)(void),
                             void (*extent)(void), MPI_Aint extra_state);
/* Copies a C string into a CHARACTER*(len): truncated to len, padded with
 * blanks; *resultlen (when given) is the number of characters stored. */
void lapis_f_string_out(const char *c, char *f, size_t len, MPI_Fint *resultlen);

/* Attribute values: C returns the address of an int for the predefined
 * keys, the stored pointer-sized value for user keys. */
MPI_Aint lapis_f_attr_value(int keyval, void *c_value);
/* Attributes set and read from Fortran (mpi/api/attributes.cc, type_attr.cc, win_attr.cc):
 * the library notes that Fortran set the value, so that C reads a pointer to it. */
int lapis_f_comm_set_attr(MPI_Comm comm, int keyval, void *value);
int lapis_f_comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag);
int lapis_f_type_set_attr(MPI_Datatype type, int keyval, void *value);
int lapis_f_type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag);
int lapis_f_win_set_attr(MPI_Win win, int keyval, void *value);
int lapis_f_win_get_attr(MPI_Win win, int keyval, void *value, int *flag);

/* Attribute callbacks written in Fortran: everything by reference, values
 * INTEGER(KIND=MPI_ADDRESS_KIND), ierror last. */
typedef void lapis_f_copy_fn(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                             MPI_Aint *attribute_val_in, MPI_Aint *attribute_val_out,
                             MPI_Fint *flag, MPI_Fint *ierror);
typedef void lapis_f_delete_fn(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *attribute_val,
                               MPI_Aint *extra_state, MPI_Fint *ierror);
/* MPI_Comm_create_keyval with Fortran callbacks (C ones call them). */
/* MPI_File_create_errhandler from Fortran: the handler is called with the
 * file's Fortran handle (MPI_File_c2f's INTEGER), not a C MPI_File. */
int lapis_f_file_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
int lapis_f_comm_create_keyval(lapis_f_copy_fn *copy, lapis_f_delete_fn *del,
                               MPI_Fint *keyval, MPI_Aint extra_state);
/* The same for datatypes (their callbacks take the datatype first). */
int lapis_f_type_create_keyval(lapis_f_copy_fn *copy, lapis_f_delete_fn *del,
                               MPI_Fint *keyval, MPI_Aint extra_state);

/* MPI-1's MPI_KEYVAL_CREATE: callbacks whose extra state and values are
 * plain INTEGERs. MPI_DUP_FN, MPI_NULL_COPY_FN and MPI_NULL_DELETE_FN are
 * recognised by address and become their C counterparts. */
typedef void lapis_f_copy_int_fn(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                                 MPI_Fint *attribute_val_in, MPI_Fint *attribute_val_out,
                                 MPI_Fint *flag, MPI_Fint *ierror);
typedef void lapis_f_delete_int_fn(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
                                   MPI_Fint *extra_state, MPI_Fint *ierror);
int lapis_f_keyval_create(lapis_f_copy_int_fn *copy, lapis_f_delete_int_fn *del,
                          MPI_Fint *keyval, MPI_Fint extra_state);

/* MPI_Grequest_start with callbacks written in Fortran: they get the
 * program's own EXTRA_STATE variable by reference (as with MPICH, so what a
 * callback stores there the program sees), the status as an
 * INTEGER(MPI_STATUS_SIZE), COMPLETE as a LOGICAL. */
typedef void lapis_f_grequest_query_fn(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierror);
typedef void lapis_f_grequest_free_fn(MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void lapis_f_grequest_cancel_fn(MPI_Aint *extra_state, MPI_Fint *complete,
                                        MPI_Fint *ierror);
int lapis_f_grequest_start(lapis_f_grequest_query_fn *query, lapis_f_grequest_free_fn *free_fn,
                           lapis_f_grequest_cancel_fn *cancel, MPI_Aint *extra_state,
                           MPI_Fint *request);

/* MPI-1's INTEGER displacements as the MPI_Aint array C takes (malloc'ed;
 * the caller frees it; NULL when n < 1 or out of memory). */
MPI_Aint *lapis_f_aints_in(const MPI_Fint *f, MPI_Fint n);

#endif /* LAPIS_MPI_FORTRAN_SUPPORT_H_ */
