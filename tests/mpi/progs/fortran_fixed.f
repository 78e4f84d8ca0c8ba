! Fixed-form Fortran 77 style program with INCLUDE 'mpif.h': point-to-point
! with statuses, nonblocking requests, collectives on Fortran types, a
! derived type, MPI_IN_PLACE and MPI_WTIME. Prints OK per rank.
      PROGRAM FIXED
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NEXT, PREV, I, N, COUNT
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 2)
      INTEGER REQS(2), VEC, IBUF(10), JBUF(10), ISUM
      DOUBLE PRECISION X(4), Y(4), T0, T1
      REAL RBUF(3), SBUF(3)
      LOGICAL FLAG
      COMMON /FAILS/ NFAIL
      INTEGER NFAIL
      NFAIL = 0

      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'init')
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(FLAG, 'initialized')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      NEXT = MOD(RANK + 1, NPROCS)
      PREV = MOD(RANK + NPROCS - 1, NPROCS)
      T0 = MPI_WTIME()

! Ring: blocking send to next, receive from anyone; the status names the
! sender (MPI_SOURCE index) and the tag.
      DO I = 1, 10
        IBUF(I) = RANK * 100 + I
      END DO
      CALL MPI_SENDRECV(IBUF, 10, MPI_INTEGER, NEXT, 7, JBUF, 10,
     &     MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &     STATUS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'sendrecv')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. PREV, 'status source')
      CALL CHECK(STATUS(MPI_TAG) .EQ. 7, 'status tag')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
      CALL CHECK(COUNT .EQ. 10, 'get_count')
      CALL CHECK(JBUF(10) .EQ. PREV * 100 + 10, 'ring data')

! Nonblocking pair with a status array; then one ignoring statuses.
      CALL MPI_IRECV(RBUF, 3, MPI_REAL, PREV, 9, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      X(1) = RANK
      CALL MPI_ISEND(X, 1, MPI_DOUBLE_PRECISION, NEXT, 8,
     &     MPI_COMM_WORLD, REQS(2), IERR)
      CALL MPI_RECV(Y, 1, MPI_DOUBLE_PRECISION, PREV, 8,
     &     MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      CALL CHECK(Y(1) .EQ. DBLE(PREV), 'isend data')
      SBUF(1) = 1.5
      SBUF(2) = 2.5
      SBUF(3) = RANK
      CALL MPI_SEND(SBUF, 3, MPI_REAL, NEXT, 9, MPI_COMM_WORLD, IERR)
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'waitall')
      CALL CHECK(STATS(MPI_SOURCE, 1) .EQ. PREV, 'waitall source')
      CALL CHECK(STATS(MPI_TAG, 1) .EQ. 9, 'waitall tag')
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'request freed')
      CALL CHECK(RBUF(3) .EQ. REAL(PREV), 'irecv data')

! Collectives on Fortran types.
      X(1) = RANK + 1
      X(2) = 0.5D0
      CALL MPI_ALLREDUCE(X, Y, 2, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(Y(1) .EQ. DBLE(NPROCS * (NPROCS + 1) / 2), 'dp sum')
      CALL CHECK(Y(2) .EQ. 0.5D0 * NPROCS, 'dp sum 2')
      ISUM = RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 1, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(ISUM .EQ. NPROCS - 1, 'in_place integer max')
      N = 0
      IF (RANK .EQ. 0) N = 4242
      CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(N .EQ. 4242, 'bcast')

! A derived type: every other element of IBUF.
      CALL MPI_TYPE_VECTOR(5, 1, 2, MPI_INTEGER, VEC, IERR)
      CALL MPI_TYPE_COMMIT(VEC, IERR)
      DO I = 1, 10
        IBUF(I) = RANK * 10 + I
        JBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(IBUF, 1, VEC, NEXT, 3, JBUF, 5, MPI_INTEGER,
     &     PREV, 3, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECK(JBUF(1) .EQ. PREV * 10 + 1, 'vector 1')
      CALL CHECK(JBUF(5) .EQ. PREV * 10 + 9, 'vector 5')
      CALL CHECK(JBUF(6) .EQ. -1, 'vector untouched')
      CALL MPI_TYPE_FREE(VEC, IERR)
      CALL CHECK(VEC .EQ. MPI_DATATYPE_NULL, 'type freed')

      T1 = MPI_WTIME()
      CALL CHECK(T1 .GE. T0 .AND. MPI_WTICK() .GT. 0D0, 'wtime')
      CALL MPI_FINALIZE(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'finalize')
      IF (NFAIL .EQ. 0) PRINT '(A)', 'OK'
      IF (NFAIL .NE. 0) CALL EXIT(3)
      END

      SUBROUTINE CHECK(COND, WHAT)
      LOGICAL COND
      CHARACTER*(*) WHAT
      COMMON /FAILS/ NFAIL
      INTEGER NFAIL
      IF (.NOT. COND) THEN
        PRINT '(A, A)', 'FAILED ', WHAT
        NFAIL = NFAIL + 1
      END IF
      END
