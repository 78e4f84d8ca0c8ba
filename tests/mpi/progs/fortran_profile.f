! The Fortran profiling interface (MPI 3.1 section 14.2) with mpif.h: this
! program defines its own MPI_SEND and MPI_RECV, which count their calls and
! reach Lapis through PMPI_SEND / PMPI_RECV; PMPI_WTIME and PMPI_WTICK are
! functions of mpif.h. Prints OK per rank.
      PROGRAM PROFILE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NEXT, PREV, SBUF(3), RBUF(3)
      INTEGER STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION T0, T1, TICK
      COMMON /COUNTS/ NSEND, NRECV, NAMOUNT
      INTEGER NSEND, NRECV, NAMOUNT
      COMMON /FAILS/ NFAIL
      INTEGER NFAIL
      NFAIL = 0
      NSEND = 0
      NRECV = 0
      NAMOUNT = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      NEXT = MOD(RANK + 1, NPROCS)
      PREV = MOD(RANK + NPROCS - 1, NPROCS)
      T0 = PMPI_WTIME()
      SBUF(1) = RANK
      SBUF(2) = 7
      SBUF(3) = -RANK
      IF (MOD(RANK, 2) .EQ. 0) THEN
        CALL MPI_SEND(SBUF, 3, MPI_INTEGER, NEXT, 5, MPI_COMM_WORLD,
     &       IERR)
        CALL MPI_RECV(RBUF, 3, MPI_INTEGER, PREV, 5, MPI_COMM_WORLD,
     &       STATUS, IERR)
      ELSE
        CALL MPI_RECV(RBUF, 3, MPI_INTEGER, PREV, 5, MPI_COMM_WORLD,
     &       STATUS, IERR)
        CALL MPI_SEND(SBUF, 3, MPI_INTEGER, NEXT, 5, MPI_COMM_WORLD,
     &       IERR)
      END IF
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'recv through pmpi_recv')
      CALL CHECK(RBUF(1) .EQ. PREV .AND. RBUF(2) .EQ. 7 .AND.
     &     RBUF(3) .EQ. -PREV, 'data through the wrappers')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. PREV, 'status through pmpi')
      CALL CHECK(NSEND .EQ. 1 .AND. NRECV .EQ. 1,
     &     'the program''s MPI_SEND and MPI_RECV ran')
      CALL CHECK(NAMOUNT .EQ. 6, 'counts seen by the wrappers')
      T1 = PMPI_WTIME()
      TICK = PMPI_WTICK()
      CALL CHECK(T1 .GE. T0 .AND. T0 .GT. 0D0, 'pmpi_wtime')
      CALL CHECK(ABS(T1 - MPI_WTIME()) .LT. 10D0, 'pmpi_wtime clock')
      CALL CHECK(TICK .GT. 0D0 .AND. TICK .LT. 1D0, 'pmpi_wtick')
      CALL MPI_FINALIZE(IERR)
      IF (NFAIL .EQ. 0) PRINT '(A)', 'OK'
      END

      SUBROUTINE MPI_SEND(BUF, COUNT, DTYPE, DEST, TAG, COMM, IERR)
      INTEGER COUNT, DTYPE, DEST, TAG, COMM, IERR, BUF(*)
      COMMON /COUNTS/ NSEND, NRECV, NAMOUNT
      INTEGER NSEND, NRECV, NAMOUNT
      NSEND = NSEND + 1
      NAMOUNT = NAMOUNT + COUNT
      CALL PMPI_SEND(BUF, COUNT, DTYPE, DEST, TAG, COMM, IERR)
      END

      SUBROUTINE MPI_RECV(BUF, COUNT, DTYPE, SRC, TAG, COMM, STATUS,
     &     IERR)
      INCLUDE 'mpif.h'
      INTEGER COUNT, DTYPE, SRC, TAG, COMM, IERR, BUF(*)
      INTEGER STATUS(MPI_STATUS_SIZE)
      COMMON /COUNTS/ NSEND, NRECV, NAMOUNT
      INTEGER NSEND, NRECV, NAMOUNT
      NRECV = NRECV + 1
      NAMOUNT = NAMOUNT + COUNT
      CALL PMPI_RECV(BUF, COUNT, DTYPE, SRC, TAG, COMM, STATUS, IERR)
      END

      SUBROUTINE CHECK(COND, WHAT)
      LOGICAL COND
      CHARACTER*(*) WHAT
      COMMON /FAILS/ NFAIL
      INTEGER NFAIL
      IF (.NOT. COND) THEN
        NFAIL = NFAIL + 1
        PRINT '(A, A)', 'FAILED: ', WHAT
      END IF
      END
