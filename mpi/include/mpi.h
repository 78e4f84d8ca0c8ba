/* Lapis MPI: the C interface (MPI 3.1 subset, see mpi/README.md for what is
 * implemented).
 *
 * Binary compatible with MPICH 4.0 (the ABI MPICH, Intel MPI, MVAPICH and
 * Cray MPICH share): every handle and constant below has MPICH's value,
 * MPI_Status has MPICH's layout, and the library exports the symbols MPICH's
 * mpi.h makes programs reference. A program built with MPICH's mpicc runs on
 * Lapis' libmpi.so.12 unchanged.
 *
 * This header is the one table of those values: the library decodes handles
 * from them (mpi/internal/handles.hpp knows only MPICH's bit layout), and
 * the Fortran headers are generated from them. tests/mpi/abi_table_test
 * compares each against MPICH's own mpi.h.
 *
 * Handles are plain ints, as in MPICH, so C and Fortran handles are the same
 * values. A handle encodes its kind: bits 30-31 (0 null, 1 predefined, 2
 * direct, 3 indirect), bits 26-29 the object type, and a predefined
 * datatype's size in bits 8-15. A datatype passed where a communicator is
 * expected is MPI_ERR_COMM instead of being misread.
 */
#ifndef LAPIS_MPI_H_
#define LAPIS_MPI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 4
#define MPI_SUBVERSION 1
#define LAPIS_MPI 1

/* ---- handle types ------------------------------------------------------ */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Group;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Message;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_Session;
typedef struct ADIOI_FileD *MPI_File;

typedef long MPI_Aint;
typedef long MPI_Offset;
typedef long MPI_Count;
typedef int MPI_Fint;

/* Status, MPICH's layout: the byte count is count_lo plus bits 1..31 of
 * count_hi_and_cancelled shifted up by 32; bit 0 is the cancel flag (read
 * them with MPI_Get_count / MPI_Test_cancelled). */
typedef struct MPI_Status {
  int count_lo;
  int count_hi_and_cancelled;
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
} MPI_Status;

/* ==== predefined handles (MPICH 4.0 values) ============================= */
#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)

#define MPI_GROUP_NULL ((MPI_Group)0x08000000)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)

#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_MAX ((MPI_Op)0x58000001)
#define MPI_MIN ((MPI_Op)0x58000002)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_PROD ((MPI_Op)0x58000004)
#define MPI_LAND ((MPI_Op)0x58000005)
#define MPI_BAND ((MPI_Op)0x58000006)
#define MPI_LOR ((MPI_Op)0x58000007)
#define MPI_BOR ((MPI_Op)0x58000008)
#define MPI_LXOR ((MPI_Op)0x58000009)
#define MPI_BXOR ((MPI_Op)0x5800000a)
#define MPI_MINLOC ((MPI_Op)0x5800000b)
#define MPI_MAXLOC ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP ((MPI_Op)0x5800000e)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000003)
/* Not MPI: MPICH's, for its C++ bindings' MPI::ERRORS_THROW_EXCEPTIONS
   (calls return their code; the bindings throw). */
#define MPIR_ERRORS_THROW_EXCEPTIONS ((MPI_Errhandler)0x54000002)

#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)

#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_INFO_ENV ((MPI_Info)0x5c000001)

#define MPI_WIN_NULL ((MPI_Win)0x20000000)
#define MPI_SESSION_NULL ((MPI_Session)0x38000000)
#define MPI_FILE_NULL ((MPI_File)0)

/* Datatypes: 0x4c000000 | size << 8 | index. Each one the library knows is
 * listed in mpi/internal/builtin_types.cc with its C layout. */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_CHAR ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x4c000118)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x4c000102)
#define MPI_BYTE ((MPI_Datatype)0x4c00010d)
#define MPI_WCHAR ((MPI_Datatype)0x4c00040e)
#define MPI_SHORT ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x4c000204)
#define MPI_INT ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED ((MPI_Datatype)0x4c000406)
#define MPI_LONG ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x4c000808)
#define MPI_FLOAT ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x4c00100c)
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x4c000809)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c000819)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_PACKED ((MPI_Datatype)0x4c00010f)
#define MPI_LB ((MPI_Datatype)0x4c000010)
#define MPI_UB ((MPI_Datatype)0x4c000011)

/* Pair types for MPI_MINLOC / MPI_MAXLOC (MPICH makes most of them direct
 * handles). */
#define MPI_FLOAT_INT ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT ((MPI_Datatype)0x8c000003)
#define MPI_2INT ((MPI_Datatype)0x4c000816)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x8c000004)

/* Fortran named types. */
#define MPI_COMPLEX ((MPI_Datatype)0x4c00081e)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001022)
#define MPI_LOGICAL ((MPI_Datatype)0x4c00041d)
#define MPI_REAL ((MPI_Datatype)0x4c00041c)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x4c00081f)
#define MPI_INTEGER ((MPI_Datatype)0x4c00041b)
#define MPI_2INTEGER ((MPI_Datatype)0x4c000820)
#define MPI_2REAL ((MPI_Datatype)0x4c000821)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x4c001023)
#define MPI_CHARACTER ((MPI_Datatype)0x4c00011a)
#define MPI_REAL4 ((MPI_Datatype)0x4c000427)
#define MPI_REAL8 ((MPI_Datatype)0x4c000829)
#define MPI_REAL16 ((MPI_Datatype)0x4c00102b)
#define MPI_COMPLEX8 ((MPI_Datatype)0x4c000828)
#define MPI_COMPLEX16 ((MPI_Datatype)0x4c00102a)
#define MPI_COMPLEX32 ((MPI_Datatype)0x4c00202c)
#define MPI_INTEGER1 ((MPI_Datatype)0x4c00012d)
#define MPI_INTEGER2 ((MPI_Datatype)0x4c00022f)
#define MPI_INTEGER4 ((MPI_Datatype)0x4c000430)
#define MPI_INTEGER8 ((MPI_Datatype)0x4c000831)
#define MPI_INTEGER16 ((MPI_Datatype)MPI_DATATYPE_NULL)

/* C99 fixed-size and other types. */
#define MPI_INT8_T ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T ((MPI_Datatype)0x4c00083e)
#define MPI_C_BOOL ((MPI_Datatype)0x4c00013f)
#define MPI_C_COMPLEX ((MPI_Datatype)0x4c000840)
#define MPI_C_FLOAT_COMPLEX MPI_C_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001041)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002042)
#define MPIX_C_FLOAT16 ((MPI_Datatype)0x4c000246)
#define MPI_AINT ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET ((MPI_Datatype)0x4c000844)
#define MPI_COUNT ((MPI_Datatype)0x4c000845)
#define MPI_CXX_BOOL ((MPI_Datatype)0x4c000133)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)0x4c000834)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x4c001035)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002036)

#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* Predefined attribute keys (MPI_Comm_get_attr / MPI_Win_get_attr). */
#define MPI_KEYVAL_INVALID 0x24000000
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d
#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009

/* ==== other constants (MPICH 4.0 values) ================================ */
#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)

#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BUFFER_AUTOMATIC ((void *)-2) /* MPI 4.1; MPICH 4.2's value */
#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
/* Addresses exported by the library, as MPICH does. */
extern int *const MPI_UNWEIGHTED;
extern int *const MPI_WEIGHTS_EMPTY;

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
/* File access modes (MPI_File_open), ROMIO's values as in MPICH. */
#define MPI_MODE_RDONLY 2
#define MPI_MODE_RDWR 8
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 1
#define MPI_MODE_EXCL 64
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_MAX_DATAREP_STRING 128

#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_GUIDED 2
#define MPI_COMM_TYPE_HW_UNGUIDED 3
/* MPI 4.1, at MPICH 4.2's value (MPICH 4.0 had MPIX_COMM_TYPE_NEIGHBORHOOD there). */
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4
/* MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD is left out: MPI_Comm_split_type refuses it, and a
 * program that tests for the macro (MPICH's cmsplit_type) should not take it for granted. */

#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_STRINGTAG_LEN 256
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* Bytes MPI_Bsend needs in the attached buffer beyond the message itself. */
#define MPI_BSEND_OVERHEAD 96

/* Fortran status arrays (MPI_Status as MPI_Fint[MPI_F_STATUS_SIZE]). */
#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE 2
#define MPI_F_TAG 3
#define MPI_F_ERROR 4
typedef struct {
  MPI_Fint count_lo;
  MPI_Fint count_hi_and_cancelled;
  MPI_Fint MPI_SOURCE;
  MPI_Fint MPI_TAG;
  MPI_Fint MPI_ERROR;
} MPI_F08_status;
extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;
extern MPI_F08_status *MPI_F08_STATUS_IGNORE;
extern MPI_F08_status *MPI_F08_STATUSES_IGNORE;

/* Type constructors, as MPI_Type_get_envelope would report them. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19

/* ---- error classes (error codes returned equal their class) ------------ */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 55
#define MPI_ERR_RMA_ATTACH 56
#define MPI_ERR_RMA_SHARED 57
#define MPI_ERR_RMA_FLAVOR 58
#define MPI_T_ERR_MEMORY 59
#define MPI_T_ERR_NOT_INITIALIZED 60
#define MPI_T_ERR_CANNOT_INIT 61
#define MPI_T_ERR_INVALID_INDEX 62
#define MPI_T_ERR_INVALID_ITEM 63
#define MPI_T_ERR_INVALID_HANDLE 64
#define MPI_T_ERR_OUT_OF_HANDLES 65
#define MPI_T_ERR_OUT_OF_SESSIONS 66
#define MPI_T_ERR_INVALID_SESSION 67
#define MPI_T_ERR_CVAR_SET_NOT_NOW 68
#define MPI_T_ERR_CVAR_SET_NEVER 69
#define MPI_T_ERR_PVAR_NO_STARTSTOP 70
#define MPI_T_ERR_PVAR_NO_WRITE 71
#define MPI_T_ERR_PVAR_NO_ATOMIC 72
#define MPI_T_ERR_INVALID_NAME 73
#define MPI_T_ERR_INVALID 74
#define MPI_ERR_SESSION 75
#define MPI_ERR_PROC_ABORTED 76
#define MPI_ERR_VALUE_TOO_LARGE 77
#define MPI_T_ERR_NOT_SUPPORTED 78
/* MPI 4.1's, at MPICH 4.2's values. */
#define MPI_T_ERR_NOT_ACCESSIBLE 79
#define MPI_ERR_ERRHANDLER 80
/* The last predefined error code; codes from MPI_Add_error_code would lie
 * above it. MPICH_ERR_LAST_CLASS is the last class. */
#define MPI_ERR_LASTCODE 0x3fffffff
#define MPICH_ERR_LAST_CLASS 80
/* Process-failure classes of the ULFM proposal, at MPICH's values.
 * MPIX_ERR_PROC_FAILED: a peer the call needed failed (lapirun
 * --continue-on-failure). */
#define MPICH_ERR_FIRST_MPIX 100
#define MPIX_ERR_PROC_FAILED (MPICH_ERR_FIRST_MPIX + 1)
#define MPIX_ERR_PROC_FAILED_PENDING (MPICH_ERR_FIRST_MPIX + 2)
#define MPIX_ERR_REVOKED (MPICH_ERR_FIRST_MPIX + 3)
#define MPIX_ERR_EAGAIN (MPICH_ERR_FIRST_MPIX + 4)
#define MPIX_ERR_NOREQ (MPICH_ERR_FIRST_MPIX + 5)
#define MPICH_ERR_LAST_MPIX (MPICH_ERR_FIRST_MPIX + 5)

/* ---- Fortran interoperability ------------------------------------------ */
/* A Fortran INTEGER handle is the C handle (mpif.h and the mpi module). */
#define MPI_Comm_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Comm_f2c(handle) ((MPI_Comm)(handle))
#define MPI_Type_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Type_f2c(handle) ((MPI_Datatype)(handle))
#define MPI_Group_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Group_f2c(handle) ((MPI_Group)(handle))
#define MPI_Request_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Request_f2c(handle) ((MPI_Request)(handle))
#define MPI_Op_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Op_f2c(handle) ((MPI_Op)(handle))
#define MPI_Errhandler_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Errhandler_f2c(handle) ((MPI_Errhandler)(handle))
#define MPI_Message_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Message_f2c(handle) ((MPI_Message)(handle))
#define MPI_Info_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Info_f2c(handle) ((MPI_Info)(handle))
#define MPI_Win_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Win_f2c(handle) ((MPI_Win)(handle))
#define MPI_Session_c2f(handle) ((MPI_Fint)(handle))
#define MPI_Session_f2c(handle) ((MPI_Session)(handle))
/* A Fortran status is INTEGER(MPI_STATUS_SIZE) holding the C status' bytes
 * (MPI_F_STATUS(ES)_IGNORE, declared above, are Fortran's ignore addresses). */
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
/* The same for mpi_f08's TYPE(MPI_Status) (MPI_F08_status, same layout),
 * to and from C and the INTEGER(MPI_STATUS_SIZE) array (MPI 4.0, 19.3.5). */
int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);
int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);

/* ---- callback types ---------------------------------------------------- */
typedef void MPI_Handler_function(MPI_Comm *, int *, ...);
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype, int, void *, void *, void *, int *);
typedef int MPI_Type_delete_attr_function(MPI_Datatype, int, void *, void *);
typedef int MPI_Win_copy_attr_function(MPI_Win, int, void *, void *, void *, int *);
typedef int MPI_Win_delete_attr_function(MPI_Win, int, void *, void *);
typedef int MPI_Copy_function(MPI_Comm, int, void *, void *, void *, int *);
typedef int MPI_Delete_function(MPI_Comm, int, void *, void *);
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
/* MPI 4.0: MPI_Op_create_c's user functions take an MPI_Count length. */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);

/* Null callbacks are null pointers (the library then skips them); the dup
 * callback copies the attribute value. */
int MPIR_Dup_fn(MPI_Comm, int, void *, void *, void *, int *);
#define MPI_NULL_COPY_FN ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_DUP_FN MPIR_Dup_fn
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN ((MPI_Comm_copy_attr_function *)MPI_DUP_FN)
#define MPI_TYPE_NULL_COPY_FN ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN ((MPI_Type_copy_attr_function *)MPI_DUP_FN)
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function *)MPI_DUP_FN)

/* A window's error handler (MPI_Win_create_errhandler). */
typedef void(MPI_Win_errhandler_function)(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
/* A session's error handler (MPI 4.0, MPI_Session_create_errhandler). */
typedef void(MPI_Session_errhandler_function)(MPI_Session *, int *, ...);
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;
/* Generalized requests' callbacks (MPI_Grequest_start). */
typedef int(MPI_Grequest_cancel_function)(void *, int);
typedef int(MPI_Grequest_free_function)(void *);
typedef int(MPI_Grequest_query_function)(void *, MPI_Status *);
/* MPICH's extension: a request that progresses itself (MPIX_Grequest_start),
 * and classes of such requests (MPIX_Grequest_class_create). */
typedef int(MPIX_Grequest_poll_function)(void *, MPI_Status *);
typedef int(MPIX_Grequest_wait_function)(int, void **, double, MPI_Status *);
typedef int MPIX_Grequest_class;

/* MPICH's GPU queries (MPIX_GPU_query_support): Lapis moves host memory only. */
#define MPIX_GPU_SUPPORT_CUDA (0)
#define MPIX_GPU_SUPPORT_ZE (1)
#define MPIX_GPU_SUPPORT_HIP (2)

/* PMPI_ spellings of the handle conversions, macros as in MPICH's mpi.h
 * (MPICH's test suite calls PMPI_Message_c2f and friends directly). */
#define PMPI_Comm_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Comm_f2c(handle) ((MPI_Comm)(handle))
#define PMPI_Type_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Type_f2c(handle) ((MPI_Datatype)(handle))
#define PMPI_Group_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Group_f2c(handle) ((MPI_Group)(handle))
#define PMPI_Request_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Request_f2c(handle) ((MPI_Request)(handle))
#define PMPI_Op_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Op_f2c(handle) ((MPI_Op)(handle))
#define PMPI_Errhandler_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Errhandler_f2c(handle) ((MPI_Errhandler)(handle))
#define PMPI_Message_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Message_f2c(handle) ((MPI_Message)(handle))
#define PMPI_Info_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Info_f2c(handle) ((MPI_Info)(handle))
#define PMPI_Win_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Win_f2c(handle) ((MPI_Win)(handle))
#define PMPI_Session_c2f(handle) ((MPI_Fint)(handle))
#define PMPI_Session_f2c(handle) ((MPI_Session)(handle))

/* The functions, and every one of them as PMPI_ too (the profiling
 * interface). */
#include "mpi_proto.h"
#include "mpi_proto_rma.h"
#include "mpi_proto_topo.h"
#include "mpi_proto_large.h"
#include "mpi_proto_io.h"
#include "mpi_proto_tool.h"
#include "lapis_pmpi.h"

#ifdef __cplusplus
}
#endif

#endif /* LAPIS_MPI_H_ */
