! An invalid communicator handle from Fortran under the default handler
! (MPI_ERRORS_ARE_FATAL): the job must end with the MPI error, naming the
! function, instead of crashing or carrying on.
      PROGRAM FATAL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, N
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(12345, N, IERR)
      PRINT '(A)', 'NOT REACHED'
      CALL MPI_FINALIZE(IERR)
      END
