/* Assertions for the MPI test programs: a failed check prints the rank, the
 * place and the message, then ends the job with a non-zero status. */
#ifndef LAPIS_TESTS_MPI_CHECK_H_
#define LAPIS_TESTS_MPI_CHECK_H_

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_rank(void) {
  int init = 0, fin = 0, r = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

#define CHECK(cond)                                                                      \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      fprintf(stderr, "FAILED rank %d %s:%d: %s\n", check_rank(), __FILE__, __LINE__, #cond); \
      fflush(stderr);                                                                    \
      exit(3);                                                                           \
    }                                                                                    \
  } while (0)

/* The call must succeed. */
#define CHECK_OK(call)                                                                   \
  do {                                                                                   \
    int check_rc_ = (call);                                                              \
    if (check_rc_ != MPI_SUCCESS) {                                                      \
      char check_msg_[MPI_MAX_ERROR_STRING];                                             \
      int check_len_ = 0;                                                                \
      MPI_Error_string(check_rc_, check_msg_, &check_len_);                              \
      fprintf(stderr, "FAILED rank %d %s:%d: %s returned %s\n", check_rank(), __FILE__, \
              __LINE__, #call, check_msg_);                                              \
      fflush(stderr);                                                                    \
      exit(3);                                                                           \
    }                                                                                    \
  } while (0)

/* The call must fail with error class `cls` (MPI_ERRORS_RETURN installed). */
#define CHECK_CLASS(call, cls)                                                           \
  do {                                                                                   \
    int check_rc_ = (call), check_cls_ = -1;                                             \
    MPI_Error_class(check_rc_, &check_cls_);                                             \
    if (check_cls_ != (cls)) {                                                           \
      char check_msg_[MPI_MAX_ERROR_STRING];                                             \
      int check_len_ = 0;                                                                \
      MPI_Error_string(check_rc_, check_msg_, &check_len_);                              \
      fprintf(stderr, "FAILED rank %d %s:%d: %s returned \"%s\", expected %s\n",          \
              check_rank(), __FILE__, __LINE__, #call, check_msg_, #cls);                \
      fflush(stderr);                                                                    \
      exit(3);                                                                           \
    }                                                                                    \
  } while (0)

#endif
