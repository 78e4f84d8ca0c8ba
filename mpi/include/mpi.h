/* Lapis MPI: the C interface (MPI 3.1 subset, see mpi/README.md for what is
 * implemented).
 *
 * Handles are plain ints, as in MPICH, so C and Fortran handles are the same
 * values. A handle encodes its kind (bits 20..23) under a fixed tag, so a
 * datatype passed where a communicator is expected is reported as
 * MPI_ERR_COMM instead of being misread. Index 0 of each kind is its null
 * handle.
 */
#ifndef LAPIS_MPI_H_
#define LAPIS_MPI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
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

typedef int64_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;
typedef int MPI_Fint;

/* Status: the three public fields plus the byte count and cancel flag the
 * library keeps (read them with MPI_Get_count / MPI_Test_cancelled). */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int lapis_cancelled;
  MPI_Count lapis_count;
} MPI_Status;

#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)

/* ---- handle values ----------------------------------------------------- */
#define LAPIS_HANDLE(kind, index) ((int)(0x4c000000 | ((kind) << 20) | (index)))

#define MPI_COMM_NULL ((MPI_Comm)LAPIS_HANDLE(1, 0))
#define MPI_COMM_WORLD ((MPI_Comm)LAPIS_HANDLE(1, 1))
#define MPI_COMM_SELF ((MPI_Comm)LAPIS_HANDLE(1, 2))

#define MPI_GROUP_NULL ((MPI_Group)LAPIS_HANDLE(3, 0))
#define MPI_GROUP_EMPTY ((MPI_Group)LAPIS_HANDLE(3, 1))

#define MPI_REQUEST_NULL ((MPI_Request)LAPIS_HANDLE(4, 0))

#define MPI_OP_NULL ((MPI_Op)LAPIS_HANDLE(5, 0))
#define MPI_MAX ((MPI_Op)LAPIS_HANDLE(5, 1))
#define MPI_MIN ((MPI_Op)LAPIS_HANDLE(5, 2))
#define MPI_SUM ((MPI_Op)LAPIS_HANDLE(5, 3))
#define MPI_PROD ((MPI_Op)LAPIS_HANDLE(5, 4))
#define MPI_LAND ((MPI_Op)LAPIS_HANDLE(5, 5))
#define MPI_BAND ((MPI_Op)LAPIS_HANDLE(5, 6))
#define MPI_LOR ((MPI_Op)LAPIS_HANDLE(5, 7))
#define MPI_BOR ((MPI_Op)LAPIS_HANDLE(5, 8))
#define MPI_LXOR ((MPI_Op)LAPIS_HANDLE(5, 9))
#define MPI_BXOR ((MPI_Op)LAPIS_HANDLE(5, 10))
#define MPI_MINLOC ((MPI_Op)LAPIS_HANDLE(5, 11))
#define MPI_MAXLOC ((MPI_Op)LAPIS_HANDLE(5, 12))
#define MPI_REPLACE ((MPI_Op)LAPIS_HANDLE(5, 13))
#define MPI_NO_OP ((MPI_Op)LAPIS_HANDLE(5, 14))

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)LAPIS_HANDLE(6, 0))
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)LAPIS_HANDLE(6, 1))
#define MPI_ERRORS_RETURN ((MPI_Errhandler)LAPIS_HANDLE(6, 2))

#define MPI_MESSAGE_NULL ((MPI_Message)LAPIS_HANDLE(7, 0))
#define MPI_MESSAGE_NO_PROC ((MPI_Message)LAPIS_HANDLE(7, 1))

#define MPI_INFO_NULL ((MPI_Info)LAPIS_HANDLE(8, 0))
#define MPI_INFO_ENV ((MPI_Info)LAPIS_HANDLE(8, 1))

#define MPI_WIN_NULL ((MPI_Win)LAPIS_HANDLE(9, 0))

/* Datatypes (kind 2). The order is fixed: mpi/internal/builtin_types.cc
 * defines one entry per index. */
#define MPI_DATATYPE_NULL ((MPI_Datatype)LAPIS_HANDLE(2, 0))
#define MPI_CHAR ((MPI_Datatype)LAPIS_HANDLE(2, 1))
#define MPI_SIGNED_CHAR ((MPI_Datatype)LAPIS_HANDLE(2, 2))
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)LAPIS_HANDLE(2, 3))
#define MPI_BYTE ((MPI_Datatype)LAPIS_HANDLE(2, 4))
#define MPI_WCHAR ((MPI_Datatype)LAPIS_HANDLE(2, 5))
#define MPI_SHORT ((MPI_Datatype)LAPIS_HANDLE(2, 6))
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)LAPIS_HANDLE(2, 7))
#define MPI_INT ((MPI_Datatype)LAPIS_HANDLE(2, 8))
#define MPI_UNSIGNED ((MPI_Datatype)LAPIS_HANDLE(2, 9))
#define MPI_LONG ((MPI_Datatype)LAPIS_HANDLE(2, 10))
#define MPI_UNSIGNED_LONG ((MPI_Datatype)LAPIS_HANDLE(2, 11))
#define MPI_LONG_LONG_INT ((MPI_Datatype)LAPIS_HANDLE(2, 12))
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)LAPIS_HANDLE(2, 13))
#define MPI_FLOAT ((MPI_Datatype)LAPIS_HANDLE(2, 14))
#define MPI_DOUBLE ((MPI_Datatype)LAPIS_HANDLE(2, 15))
#define MPI_LONG_DOUBLE ((MPI_Datatype)LAPIS_HANDLE(2, 16))
#define MPI_INT8_T ((MPI_Datatype)LAPIS_HANDLE(2, 17))
#define MPI_INT16_T ((MPI_Datatype)LAPIS_HANDLE(2, 18))
#define MPI_INT32_T ((MPI_Datatype)LAPIS_HANDLE(2, 19))
#define MPI_INT64_T ((MPI_Datatype)LAPIS_HANDLE(2, 20))
#define MPI_UINT8_T ((MPI_Datatype)LAPIS_HANDLE(2, 21))
#define MPI_UINT16_T ((MPI_Datatype)LAPIS_HANDLE(2, 22))
#define MPI_UINT32_T ((MPI_Datatype)LAPIS_HANDLE(2, 23))
#define MPI_UINT64_T ((MPI_Datatype)LAPIS_HANDLE(2, 24))
#define MPI_C_BOOL ((MPI_Datatype)LAPIS_HANDLE(2, 25))
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 26))
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 27))
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 28))
#define MPI_AINT ((MPI_Datatype)LAPIS_HANDLE(2, 29))
#define MPI_OFFSET ((MPI_Datatype)LAPIS_HANDLE(2, 30))
#define MPI_COUNT ((MPI_Datatype)LAPIS_HANDLE(2, 31))
#define MPI_PACKED ((MPI_Datatype)LAPIS_HANDLE(2, 32))
#define MPI_FLOAT_INT ((MPI_Datatype)LAPIS_HANDLE(2, 33))
#define MPI_DOUBLE_INT ((MPI_Datatype)LAPIS_HANDLE(2, 34))
#define MPI_LONG_INT ((MPI_Datatype)LAPIS_HANDLE(2, 35))
#define MPI_2INT ((MPI_Datatype)LAPIS_HANDLE(2, 36))
#define MPI_SHORT_INT ((MPI_Datatype)LAPIS_HANDLE(2, 37))
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)LAPIS_HANDLE(2, 38))
#define MPI_CXX_BOOL ((MPI_Datatype)LAPIS_HANDLE(2, 39))
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 40))
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 41))
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 42))
/* Fortran's named types (gfortran's default kinds: INTEGER, REAL and LOGICAL
 * are 4 bytes, DOUBLE PRECISION 8). */
#define MPI_CHARACTER ((MPI_Datatype)LAPIS_HANDLE(2, 43))
#define MPI_LOGICAL ((MPI_Datatype)LAPIS_HANDLE(2, 44))
#define MPI_INTEGER ((MPI_Datatype)LAPIS_HANDLE(2, 45))
#define MPI_REAL ((MPI_Datatype)LAPIS_HANDLE(2, 46))
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)LAPIS_HANDLE(2, 47))
#define MPI_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 48))
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)LAPIS_HANDLE(2, 49))
#define MPI_INTEGER1 ((MPI_Datatype)LAPIS_HANDLE(2, 50))
#define MPI_INTEGER2 ((MPI_Datatype)LAPIS_HANDLE(2, 51))
#define MPI_INTEGER4 ((MPI_Datatype)LAPIS_HANDLE(2, 52))
#define MPI_INTEGER8 ((MPI_Datatype)LAPIS_HANDLE(2, 53))
#define MPI_REAL4 ((MPI_Datatype)LAPIS_HANDLE(2, 54))
#define MPI_REAL8 ((MPI_Datatype)LAPIS_HANDLE(2, 55))
#define MPI_COMPLEX8 ((MPI_Datatype)LAPIS_HANDLE(2, 56))
#define MPI_COMPLEX16 ((MPI_Datatype)LAPIS_HANDLE(2, 57))
#define MPI_2INTEGER ((MPI_Datatype)LAPIS_HANDLE(2, 58))
#define MPI_2REAL ((MPI_Datatype)LAPIS_HANDLE(2, 59))
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)LAPIS_HANDLE(2, 60))
#define LAPIS_NUM_BUILTIN_TYPES 60

/* ---- special values ---------------------------------------------------- */
#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_UNWEIGHTED ((int *)2)

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

#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* Bytes MPI_Bsend needs in the attached buffer beyond the message itself. */
#define MPI_BSEND_OVERHEAD 64

/* Predefined attribute keys for MPI_Comm_get_attr. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7

/* Type constructors, as MPI_Type_get_envelope would report them. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_RESIZED 12

/* ---- error classes (error codes returned equal their class) ------------ */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_RMA_RANGE 38
#define MPI_ERR_RMA_ATTACH 39
#define MPI_ERR_RMA_SHARED 40
#define MPI_ERR_RMA_FLAVOR 41
#define MPI_ERR_FILE 42
#define MPI_ERR_NOT_SAME 43
#define MPI_ERR_AMODE 44
#define MPI_ERR_UNSUPPORTED_DATAREP 45
#define MPI_ERR_UNSUPPORTED_OPERATION 46
#define MPI_ERR_NO_SUCH_FILE 47
#define MPI_ERR_FILE_EXISTS 48
#define MPI_ERR_BAD_FILE 49
#define MPI_ERR_ACCESS 50
#define MPI_ERR_NO_SPACE 51
#define MPI_ERR_QUOTA 52
#define MPI_ERR_READ_ONLY 53
#define MPI_ERR_FILE_IN_USE 54
#define MPI_ERR_DUP_DATAREP 55
#define MPI_ERR_CONVERSION 56
#define MPI_ERR_IO 57
#define MPI_ERR_LASTCODE 57

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
/* A Fortran status is INTEGER(MPI_STATUS_SIZE) holding the C status' bytes;
 * these are the addresses of Fortran's MPI_STATUS(ES)_IGNORE. */
extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);

/* ---- callback types ---------------------------------------------------- */
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

int lapis_comm_null_copy_fn(MPI_Comm, int, void *, void *, void *, int *);
int lapis_comm_dup_fn(MPI_Comm, int, void *, void *, void *, int *);
int lapis_comm_null_delete_fn(MPI_Comm, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN lapis_comm_null_copy_fn
#define MPI_COMM_DUP_FN lapis_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN lapis_comm_null_delete_fn
#define MPI_NULL_COPY_FN lapis_comm_null_copy_fn
#define MPI_DUP_FN lapis_comm_dup_fn
#define MPI_NULL_DELETE_FN lapis_comm_null_delete_fn

/* ---- environment ------------------------------------------------------- */
int MPI_Init(int *argc, char ***argv);
/* MPI_THREAD_MULTIPLE is not offered: a request for it is granted
 * MPI_THREAD_SERIALIZED (check `provided`). */
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
int MPI_Initialized(int *flag);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
double MPI_Wtime(void);
double MPI_Wtick(void);

/* ---- errors ------------------------------------------------------------ */
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                               MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);

/* ---- attributes -------------------------------------------------------- */
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                           int *comm_keyval, void *extra_state);
int MPI_Comm_free_keyval(int *comm_keyval);
/* Deprecated MPI-1 name of MPI_Comm_get_attr, still used by old programs. */
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* ---- communicators ----------------------------------------------------- */
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
int MPI_Barrier(MPI_Comm comm);

/* ---- collectives and reduction operations ------------------------------ */
int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);
int MPI_Op_commutative(MPI_Op op, int *commute);
int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op);
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm);
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);
int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm);
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm);
int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm);
int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm);
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm);

/* ---- groups ------------------------------------------------------------ */
int MPI_Group_size(MPI_Group group, int *size);
int MPI_Group_rank(MPI_Group group, int *rank);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
int MPI_Group_free(MPI_Group *group);

/* ---- point-to-point ---------------------------------------------------- */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request);

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request array_of_requests[]);

int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status *array_of_statuses);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                MPI_Status *array_of_statuses);
int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status *array_of_statuses);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
/* Cancels receives that have not matched, and sends whose data has not been
 * matched at the destination (see mpi/README.md). */
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
int MPI_Status_set_cancelled(MPI_Status *status, int flag);

/* ---- datatypes --------------------------------------------------------- */
int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype);
int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype);
int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype);
int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype);
int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype);
int MPI_Type_commit(MPI_Datatype *datatype);
int MPI_Type_free(MPI_Datatype *datatype);
int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
int MPI_Type_size(MPI_Datatype datatype, int *size);
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                               MPI_Count *true_extent);
int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm);
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm);
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
int MPI_Get_address(const void *location, MPI_Aint *address);
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* ---- memory ------------------------------------------------------------ */
/* Memory registered with the Lapis core: rendezvous and RMA reach it
 * directly. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

#ifdef __cplusplus
}
#endif

#endif /* LAPIS_MPI_H_ */
